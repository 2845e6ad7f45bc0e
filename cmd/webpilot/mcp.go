package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// runMCP serves MCP on stdio. Until the per-user daemon exists, mcp always
// runs standalone: MCP, the browser and everything else in this process.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("mcp", args, stderr)
	if err != nil {
		return err
	}
	// The default session obeys the rule for the names agents pass.
	var be *browser.Error
	if err := tools.CheckSessionName(cfg.Session); errors.As(err, &be) {
		return fmt.Errorf("%w: --session: %s", errUsage, be.Message)
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
