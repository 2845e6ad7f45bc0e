package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// -h prints the flags and exits 0, without an error line after them
// ("flag: help requested"), and builds nothing.
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	code := exitCode(runBench(context.Background(), []string{"--help"}, &out, &errb), &errb)
	if code != 0 || strings.Contains(errb.String(), "help requested") || strings.Contains(errb.String(), "webpilot: usage") {
		t.Errorf("webpilot-bench --help: exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), "-peers") {
		t.Errorf("webpilot-bench --help does not list -peers:\n%s", errb.String())
	}
}

// A flag that does not exist is a usage error: exit 2.
func TestUnknownFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := exitCode(runBench(context.Background(), []string{"-nosuchflag"}, &out, &errb), &errb); code != 2 {
		t.Errorf("webpilot-bench -nosuchflag: exit %d, want 2 (stderr %q)", code, errb.String())
	}
}
