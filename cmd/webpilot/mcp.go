package main

import (
	"context"
	"io"
)

// runMCP serves MCP on stdio: through the per-user daemon (runProxy), or
// with --standalone everything in this process: MCP, the browser, the
// bridge.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("mcp", args, stderr)
	if err != nil {
		return err
	}
	if !cfg.Standalone {
		return runProxy(ctx, cfg, stdin, stdout, stderr)
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
