package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line wires secrets end to end: --secrets FILE and
// WEBPILOT_SECRET_<NAME> are typed by name, every result and the trace show
// <secret:NAME>, and a bad secrets file stops webpilot with a usage error
// that shows no value.
func TestSecretsCommand(t *testing.T) {
	skipShort(t)
	base := fixtures(t)
	cliEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "secrets")
	if err := os.WriteFile(file, []byte("PW=s3cr3t-&-<value>\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WEBPILOT_SECRET_TOKEN", "tok-9f8e7d6c")
	traceDir := filepath.Join(dir, "traces")
	args := append([]string{"call"}, browserArgs("--secrets", file, "--trace", traceDir)...)
	args = append(args, "browser_flow", `{"steps":[{"do":"navigate","url":"`+base+`/form.html","snapshot":"none"},`+
		`{"do":"action","action":"fill","selector":"#name","secret":"PW","snapshot":"none"},`+
		`{"do":"read","what":"value","selector":"#name"},`+
		`{"do":"action","action":"type","selector":"#name","secret":"TOKEN","snapshot":"none"},`+
		`{"do":"read","what":"value","selector":"#name"}]}`)
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "<secret:PW>") || !strings.Contains(out, "<secret:PW><secret:TOKEN>") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(traceDir, "*.html"))
	var traceText string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		traceText += string(b)
	}
	for _, v := range []string{"s3cr3t", "tok-9f8e7d6c"} {
		if strings.Contains(out+errs+traceText, v) {
			t.Errorf("%q shows in the output, the log or the trace", v)
		}
	}
	if traceText == "" {
		t.Error("no trace was written")
	}
	// A bad file: a usage error naming the line, never the value.
	if err := os.WriteFile(file, []byte("pw-lower=ab\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, append(append([]string{"call"}, browserArgs("--secrets", file)...), "browser_status")...)
	if code != 2 || !strings.Contains(errs, "secrets:1") || strings.Contains(errs, "=ab") {
		t.Errorf("a bad secrets file: exit %d, stderr %q", code, errs)
	}
}
