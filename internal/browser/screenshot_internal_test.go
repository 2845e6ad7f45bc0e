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

// A capture's area is bounded in device pixels, from its top-left corner.
func TestClipBound(t *testing.T) {
	for _, tc := range []struct {
		name         string
		w, h, dpr    float64
		wantW, wantH float64
		cut          bool
	}{
		{"viewport-sized", 1280, 800, 1, 1280, 800, false},
		{"tall page", 1265, 1_200_000, 1, 1265, 16384, true},
		{"tall page at dpr 2", 1265, 1_200_000, 2, 1265, 8192, true},
		{"wide and tall", 20000, 20000, 1, 16384, 2560, true},
		{"on the limit", 2560, 16384, 1, 2560, 16384, false},
		{"no dpr given", 100, 100, 0, 100, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clip{X: 5, Y: 7, Width: tc.w, Height: tc.h, Scale: 1}
			note := c.bound(tc.dpr)
			if c.Width != tc.wantW || c.Height != tc.wantH || (note != "") != tc.cut || c.X != 5 || c.Y != 7 {
				t.Fatalf("bound → %.0f×%.0f at %.0f,%.0f, note %q; want %.0f×%.0f, cut %v", c.Width, c.Height, c.X, c.Y, note, tc.wantW, tc.wantH, tc.cut)
			}
		})
	}
}
