package main

import (
	"context"
	"io"
)

// runMCP serves MCP on stdio. Until the per-user daemon exists, mcp always
// runs standalone: MCP, the browser and everything else in this process.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("mcp", args, stderr)
	if err != nil {
		return err
	}
	a, err := newApp(cfg, stderr)
	if err != nil {
		return err
	}
	err = a.server.RunStdio(ctx, stdin, nopCloser{stdout})
	if cerr := a.close(); cerr != nil {
		a.log.Warn("shutdown", "err", cerr)
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
