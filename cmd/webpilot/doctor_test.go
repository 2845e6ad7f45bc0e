package main

import (
	"strings"
	"testing"
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
