package main

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
)

// runServe serves MCP over Streamable HTTP at /mcp, with GET /health, on
// --listen (loopback by default; another address needs --auth-token).
// Each MCP client gets a browser session of its own unless --session is
// given. On SIGINT/SIGTERM (ctx ends) the calls running get a few seconds
// to answer, then the browser's agent tabs are closed as `webpilot mcp`
// does.
func runServe(ctx context.Context, args []string, stderr io.Writer) error {
	cfg, err := parseConfig("serve", args, stderr)
	if err != nil {
		return err
	}
	if cfg.Daemon {
		return runDaemon(ctx, cfg, stderr)
	}
	if err := checkListen(cfg.Listen, cfg.AuthToken); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (--listen): %w", cfg.Listen, err)
	}
	defer ln.Close()
	a, err := newApp(cfg, stderr)
	if err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(cfg.Listen)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	addr := net.JoinHostPort(host, port)
	fmt.Fprintf(stderr, "webpilot %s: MCP over HTTP at http://%s/mcp (health: http://%s/health)\n", version, addr, addr)
	err = a.server.RunHTTP(ctx, ln, mcpserver.HTTPOptions{
		Addr:          addr,
		Token:         cfg.AuthToken,
		SharedDefault: cfg.Sources["session"] != "default",
		IdleExit:      cfg.IdleExit,
	})
	if cerr := a.close(); cerr != nil {
		a.log.Warn("shutdown", "err", cerr)
	}
	return err
}

// checkListen refuses an address off loopback without a token: anyone who
// can reach it would drive the user's browser.
func checkListen(listen, token string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("%w: --listen %q: %v", errUsage, listen, err)
	}
	if !mcpserver.IsLoopback(host) && token == "" {
		return fmt.Errorf("%w: --listen %s is not a loopback address: set --auth-token (or WEBPILOT_AUTH_TOKEN) so that every request must carry it, or listen on 127.0.0.1", errUsage, listen)
	}
	return nil
}
