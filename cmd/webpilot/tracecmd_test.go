package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/outdir"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// webpilot call --trace DIR records the call; webpilot trace show prints
// its steps, one line each.
func TestTraceShowCommand(t *testing.T) {
	skipShort(t)
	base := fixtures(t)
	cliEnv(t)
	dir := t.TempDir()
	args := append([]string{"call"}, browserArgs("--trace", dir)...)
	args = append(args, "browser_flow", `{"steps":[{"do":"navigate","url":"`+base+`/trace/form.html"},{"do":"action","action":"click","selector":"#go"}]}`)
	if code, out, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(files) != 1 {
		t.Fatalf("trace files in %s: %v, want one", dir, files)
	}
	code, out, errs := runCLI(t, "trace", "show", files[0])
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "session default, started ") ||
		!regexp.MustCompile(`^\s+1 \d\d:\d\d:\d\d\.\d{3} browser_flow 2 step\(s\) → ok @ http://127\.0\.0\.1:\d+/trace/form\.html$`).MatchString(lines[1]) {
		t.Errorf("trace show: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	if code, _, errs := runCLI(t, "trace", "show", filepath.Join(backendtest.PagesDir(), "basic.html")); code != 1 || !strings.Contains(errs, "not a webpilot trace") {
		t.Errorf("trace show of a plain page: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCLI(t, "trace"); code != 2 {
		t.Errorf("trace without show: exit %d, want 2", code)
	}
}

// A --trace folder in the output directory writes into a trace folder of
// its own there, counted in the directory's budget; elsewhere, the folder
// itself.
func TestTraceRecorderFolder(t *testing.T) {
	out := t.TempDir()
	m := browser.NewManager(browser.Options{Backend: launch.New(launch.Options{}), OutputDir: out})
	rec, err := traceRecorder(filepath.Join(out, "traces"), m.DefaultPolicy(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rec.Dir(), filepath.Join(out, "trace-")) {
		t.Fatalf("trace dir %s, want a trace folder in %s", rec.Dir(), out)
	}
	path, err := rec.Record("s", trace.Step{Tool: "browser_status", OK: true})
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(out, outdir.ManifestFile))
	if err != nil || !strings.Contains(string(manifest), filepath.Base(rec.Dir())) {
		t.Errorf("the output dir's manifest does not own the trace folder: %s %v", manifest, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}

	elsewhere := filepath.Join(t.TempDir(), "traces")
	if rec, err = traceRecorder(elsewhere, m.DefaultPolicy(), nil); err != nil || rec.Dir() != elsewhere {
		t.Errorf("trace dir %v (%v), want %s", rec.Dir(), err, elsewhere)
	}
	if rec, err = traceRecorder("", m.DefaultPolicy(), nil); rec != nil || err != nil {
		t.Errorf("no --trace: %v %v", rec, err)
	}
}
