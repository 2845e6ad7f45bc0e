package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

// envRunMain makes the test binary run webpilot's main instead of the tests,
// so subprocess tests start `webpilot` without building it (go-sdk
// mcp/cmd_test.go does the same).
const envRunMain = "WEBPILOT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main() // exits
	}
	clearUserSettings()
	os.Exit(m.Run())
}

// clearUserSettings unsets the WEBPILOT_* settings and secrets of the shell
// the tests run in (a user's exported WEBPILOT_BRIDGE_PORT, say), which would
// otherwise reach every webpilot a test starts. WEBPILOT_BROWSER stays: it
// names the browser the tests use.
func clearUserSettings() {
	for _, k := range configKeys() {
		if k.name != "browser" {
			_ = os.Unsetenv(envName(k.name))
		}
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, secrets.EnvPrefix) {
			_ = os.Unsetenv(name)
		}
	}
}

// webpilotCmd is a `webpilot args...` command: this test binary re-executed
// as webpilot, in an empty working directory (no .webpilot.json), with its
// stderr collected for failure messages.
func webpilotCmd(t *testing.T, stderr *syncBuffer, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = t.TempDir()
	// Temporary profiles go under the test's own dir, so a killed webpilot
	// leaves nothing behind in the system temp dir.
	cmd.Env = append(os.Environ(), envRunMain+"=1", "TMPDIR="+cmd.Dir, "XDG_CONFIG_HOME="+cmd.Dir)
	cmd.Stderr = stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("webpilot stderr:\n%s", stderr.String())
		}
	})
	return cmd
}

// fixtures serves testdata/pages (by its absolute path: tests may change
// the working directory after).
func fixtures(t *testing.T) string { return backendtest.ServePages(t) }

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer = backendtest.SyncBuffer

// --help on every command prints its usage and exits 0, without an error
// line ("flag: help requested") after it.
func TestHelpOfEveryCommand(t *testing.T) {
	for _, cmd := range []string{"mcp", "serve", "demo", "call", "doctor", "pair", "daemon", "extension", "skill", "recipe", "trace"} {
		var out, errb bytes.Buffer
		code := exitCode(run(context.Background(), []string{cmd, "--help"}, strings.NewReader(""), &out, &errb), &errb)
		if code != 0 || strings.Contains(errb.String(), "help requested") || strings.Contains(errb.String(), "webpilot: usage") {
			t.Errorf("webpilot %s --help: exit %d, stderr ends %q", cmd, code, tail(errb.String(), 120))
		}
		if out.Len()+errb.Len() == 0 {
			t.Errorf("webpilot %s --help printed nothing", cmd)
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func TestBuildVersion(t *testing.T) {
	info := func(v string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/webpilot-mcp/webpilot", Version: v}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	for _, tc := range []struct {
		name, stamped string
		read          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"stamped by make", "v1.4.0-3-gabc", info("v9.9.9"), "v1.4.0-3-gabc"},
		{"go install @version", "dev", info("v1.2.3"), "1.2.3"},
		{"a checkout", "dev", info("(devel)", rev), "dev+0123456789ab"},
		{"a changed checkout", "dev", info("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "dev+0123456789ab-dirty"},
		{"nothing known", "dev", info("(devel)"), "dev"},
		{"no build info", "dev", func() (*debug.BuildInfo, bool) { return nil, false }, "dev"},
	} {
		if got := buildVersion(tc.stamped, tc.read); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// make build stamps the version with -X, which sets only a variable
// initialised with a constant: the stamp must survive buildVersion.
func TestStampedVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds webpilot")
	}
	bin := filepath.Join(t.TempDir(), "webpilot")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=9.8.7-stamp", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "webpilot 9.8.7-stamp" {
		t.Errorf("webpilot version = %q, %v; want the stamp", out, err)
	}
}
