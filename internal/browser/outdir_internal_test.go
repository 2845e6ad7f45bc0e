package browser

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/outdir"
)

// Each way an output directory fails is named, with its path and a way out.
func TestOutputError(t *testing.T) {
	p := &Policy{out: outdir.New("/data/out", 0)}
	for _, tc := range []struct {
		name string
		err  error
		code Code
		hint string
	}{
		{"disk full", &fs.PathError{Op: "write", Path: "/data/out/x", Err: syscall.ENOSPC}, CodeLimitExceeded, "full"},
		{"quota", fmt.Errorf("save x: %w", syscall.EDQUOT), CodeLimitExceeded, "full"},
		{"read-only", &fs.PathError{Op: "mkdir", Path: "/data/out", Err: syscall.EROFS}, CodeInternal, "read-only"},
		{"not a directory", &fs.PathError{Op: "mkdir", Path: "/data/out", Err: syscall.ENOTDIR}, CodeInternal, "a file stands"},
		{"permission", &fs.PathError{Op: "open", Path: "/data/out/x", Err: syscall.EACCES}, CodeInternal, "permission"},
		{"budget", &outdir.FullError{Dir: "/data/out", Used: 10, Need: 20, Max: 15}, CodeLimitExceeded, "--output-max-mb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			be, ok := AsError(p.outputError(tc.err))
			if !ok {
				t.Fatalf("not a browser error")
			}
			if be.Code != tc.code || !strings.Contains(be.Message, "/data/out") || !strings.Contains(be.Hint, tc.hint) {
				t.Fatalf("%s %q (hint %q): want %s naming the directory and a hint with %q", be.Code, be.Message, be.Hint, tc.code, tc.hint)
			}
			if !errors.Is(be, tc.err) && be.Err != tc.err {
				t.Errorf("the cause is not kept")
			}
		})
	}
	if p.outputError(nil) != nil {
		t.Errorf("no error made one")
	}
}
