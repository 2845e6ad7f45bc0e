package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// cliEnv isolates a CLI test: the user config dir (pairing, profile) is a
// temp dir, so a user's pairing is never read, and the working directory
// holds no .webpilot.json.
func cliEnv(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	t.Chdir(t.TempDir())
}

// browserArgs are the flags of a browser test: a throwaway headless
// profile, in this process (the tests of the daemon start it as a program).
func browserArgs(args ...string) []string {
	out := append([]string(nil), args...)
	out = append(out, "--standalone", "--isolated", "--headless=true", "--backend", "launch")
	return append(out, browserFlag()...)
}

// browserFlag points at the test Chromium unless WEBPILOT_BROWSER names one.
func browserFlag() []string {
	if os.Getenv("WEBPILOT_BROWSER") == "" {
		if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
			return []string{"--browser", "/usr/lib/chromium/chromium"}
		}
	}
	return nil
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx := backendtest.Context(t, 90*time.Second)
	var out, errb syncBuffer
	code = exitCode(run(ctx, args, strings.NewReader(""), &out, &errb), &errb)
	return code, out.String(), errb.String()
}

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
}

func TestCallStatus(t *testing.T) {
	skipShort(t)
	cliEnv(t)
	code, out, errs := runCLI(t, browserArgs("call")...)
	if code != 2 || !strings.Contains(errs, "no tool given") {
		t.Errorf("call without a tool: exit %d, stderr %q; want 2 and a usage error", code, errs)
	}
	code, out, errs = runCLI(t, append([]string{"call"}, browserArgs("browser_status")...)...)
	if code != 0 || !strings.HasPrefix(out, `Session "`) {
		t.Fatalf("the short status: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, append([]string{"call"}, browserArgs("browser_status", `{"verbose": true}`)...)...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if st["version"] != version {
		t.Errorf("status version = %v, want %q", st["version"], version)
	}
}

func TestCallNavigate(t *testing.T) {
	skipShort(t)
	base := fixtures(t)
	cliEnv(t)
	args := append([]string{"call"}, browserArgs()...)
	args = append(args, "browser_navigate", `{"url":"`+base+`/basic.html"}`)
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(out, "Loaded") {
		t.Fatalf("exit %d, want 0 and \"Loaded\"\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

func TestCallToolError(t *testing.T) {
	skipShort(t)
	cliEnv(t)
	// Flags after TOOL and the JSON work too. Port 1 is refused by browsers.
	args := append([]string{"call", "browser_navigate", `{"url":"http://127.0.0.1:1/"}`}, browserArgs()...)
	code, out, errs := runCLI(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if errorCode(strings.TrimSpace(out)) != "NAVIGATION_FAILED" || !strings.Contains(errs, "NAVIGATION_FAILED") {
		t.Errorf("want the NAVIGATION_FAILED body on stdout and the code on stderr\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
}

func TestCallUsageErrors(t *testing.T) {
	cliEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown tool", []string{"call", "--standalone", "--backend", "launch", "browser_teleport"}, []string{`unknown tool "browser_teleport"`, "browser_navigate", "browser_status"}},
		{"a tool the profile leaves out", []string{"call", "--standalone", "--backend", "launch", "browser_network"}, []string{"browser_network is off", "--caps +network"}},
		{"invalid JSON", []string{"call", "--standalone", "--backend", "launch", "browser_status", "{url:"}, []string{"not valid JSON"}},
		{"not an object", []string{"call", "--standalone", "browser_status", "[1]"}, []string{"must be a JSON object"}},
		{"bad flag", []string{"call", "--standalone", "--timeout", "soon", "browser_status"}, []string{"timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
}

func TestSplitCallArgs(t *testing.T) {
	for _, tc := range []struct {
		in         []string
		flags, pos string
	}{
		{[]string{"browser_status"}, "", "browser_status"},
		{[]string{"--isolated", "browser_status", "{}"}, "--isolated", "browser_status {}"},
		{[]string{"--browser", "/x", "t", "{}", "--debug"}, "--browser /x --debug", "t {}"},
		{[]string{"t", "--debug"}, "--debug", "t"},
		{[]string{"--", "t"}, "--", "t"},
		{[]string{"t", "{}", "extra"}, "extra", "t {}"},
	} {
		f, p := splitCallArgs(tc.in)
		if strings.Join(f, " ") != tc.flags || strings.Join(p, " ") != tc.pos {
			t.Errorf("splitCallArgs(%q) = %q, %q; want %q, %q", tc.in, f, p, tc.flags, tc.pos)
		}
	}
}

// Images in a result are saved as webpilot-<tool>-<n>.<ext>, never over an
// existing file, and their paths printed.
func TestPrintResultImages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "webpilot-shot-1.png"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "two images"},
		&mcp.ImageContent{MIMEType: "image/png", Data: []byte("png-bytes")},
		&mcp.ImageContent{MIMEType: "image/jpeg", Data: []byte("jpeg-bytes")},
	}}
	var out strings.Builder
	if err := printResult(res, "shot", dir, &out); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"webpilot-shot-1.png": "old", "webpilot-shot-2.png": "png-bytes", "webpilot-shot-3.jpg": "jpeg-bytes"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
		if want != "old" && !strings.Contains(out.String(), name) {
			t.Errorf("output does not name %s:\n%s", name, out.String())
		}
	}
	if !strings.HasPrefix(out.String(), "two images\n") {
		t.Errorf("output = %q", out.String())
	}
}
