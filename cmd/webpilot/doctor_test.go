package main

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

func TestDoctorWorkingBrowser(t *testing.T) {
	skipShort(t)
	cliEnv(t)
	code, out, errs := runCLI(t, append([]string{"doctor"}, browserFlag()...)...)
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"• webpilot " + version, "✔ config", "✔ browser found", "✔ browser launch: ", "not paired", "✔ ready"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDoctorMissingBrowser(t *testing.T) {
	cliEnv(t)
	code, out, errs := runCLI(t, "doctor", "--browser", "/nonexistent")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"✘ browser", "/nonexistent", "→ pass --browser the path of an installed Chromium", "✘ not ready"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "browser launch") {
		t.Errorf("doctor tried to launch a browser it did not find:\n%s", out)
	}
}

// A paired extension that connects only some seconds after doctor started
// (Chrome opened late, or its extension in retry backoff) is reported
// connected, not missing.
func TestDoctorExtensionConnectsLate(t *testing.T) {
	skipShort(t)
	cliEnv(t)
	secret := make([]byte, 32)
	for i := range secret {
		secret[i] = byte(i + 7)
	}
	if _, err := writeSecret(secret); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := runCLI(t, append([]string{"doctor", "--bridge-port", strconv.Itoa(port)}, browserFlag()...)...)
		done <- result{code, out, errs}
	}()
	ctx := backendtest.Context(t, 90*time.Second)
	select {
	case r := <-done:
		t.Fatalf("doctor ended before the extension came: exit %d\n%s%s", r.code, r.out, r.err)
	case <-time.After(5 * time.Second):
	}
	chrome, stop, err := backendtest.ExtensionBrowser(ctx, port)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := backendtest.ProvisionExtension(ctx, chrome, port, secret); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 0 || !strings.Contains(r.out, "✔ extension connected") || !strings.Contains(r.out, "✔ ready: webpilot would use the bridge backend (auto)") {
		t.Errorf("doctor with a late extension: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if !strings.Contains(r.out, "daemon: not running") {
		t.Errorf("doctor does not report the daemon:\n%s", r.out)
	}
}

// A headed browser where there is no display: doctor checks the mode the
// user will run and names the browser's own reason, and a call fails with
// that reason and the way out, not "install a browser".
func TestHeadedWithoutDisplay(t *testing.T) {
	skipShort(t)
	if runtime.GOOS != "linux" {
		t.Skip("a display is an X11/Wayland matter")
	}
	cliEnv(t)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	code, out, errs := runCLI(t, append([]string{"doctor", "--headed"}, browserFlag()...)...)
	if code != 1 {
		t.Fatalf("doctor --headed: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"✘ browser launch (headed, temporary profile)", "no display", "Missing X server", "→ run it headless", "✘ not ready"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor --headed output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, append([]string{"call", "--standalone", "--isolated", "--headed", "--backend", "launch", "browser_navigate", `{"url":"about:blank"}`}, browserFlag()...)...)
	if code != 1 {
		t.Fatalf("call --headed: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"NO_BROWSER", "did not start", "no display", "leave out --headed"} {
		if !strings.Contains(out, want) {
			t.Errorf("call --headed output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "install Chromium") {
		t.Errorf("call --headed blames a missing browser:\n%s", out)
	}
}
