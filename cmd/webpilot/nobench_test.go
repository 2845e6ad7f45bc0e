package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// The benchmark is a command of its own (cmd/webpilot-bench, run by make
// bench): webpilot has no bench command, says where the benchmark went, and
// its usage does not list one.
func TestBenchIsNotACommand(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"bench", "-runs", "1"}, strings.NewReader(""), &out, &errb)
	if !errors.Is(err, errUsage) {
		t.Fatalf("webpilot bench: err = %v, want a usage error", err)
	}
	if !strings.Contains(err.Error(), "make bench") {
		t.Errorf("webpilot bench: %q does not say to run make bench", err)
	}
	if code := exitCode(err, &errb); code != 2 {
		t.Errorf("webpilot bench: exit %d, want 2", code)
	}
	if strings.Contains(usage, "bench") {
		t.Errorf("the usage lists a bench command:\n%s", usage)
	}
}

// The webpilot binary links none of the benchmark's code: neither its
// command nor the tokenizer only the benchmark counts tokens with.
func TestBinaryHasNoBenchmark(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the binary's packages")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "webpilot-bench") || strings.HasPrefix(p, "github.com/tiktoken-go/") {
			t.Errorf("webpilot links %s, a package of the benchmark", p)
		}
	}
}
