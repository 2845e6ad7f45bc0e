package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/daemon"

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
	if err := checkDaemonBrowser(ctx, cfg); err != nil {
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
	err = a.server.RunHTTP(ctx, ln, a.httpBounds(mcpserver.HTTPOptions{
		Addr:          addr,
		Token:         cfg.AuthToken,
		SharedDefault: cfg.Sources["session"] != "default",
		IdleExit:      cfg.IdleExit,
	}))
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

// browserResource names what of the machine a browser with cfg's settings
// holds for itself: its profile folder (launch), the bridge's port (the
// user's Chrome), or nothing (an endpoint, a temporary profile).
func browserResource(cfg *Config) string {
	switch {
	case cfg.Backend == "endpoint" || cfg.Backend == "auto" && cfg.CDPEndpoint != "":
		return ""
	case cfg.Backend == "bridge":
		return fmt.Sprintf("the bridge port %d (your Chrome)", cfg.BridgePort)
	case cfg.Backend == "auto" && ownBrowserSetting(cfg) == "":
		if secret, err := readSecret(); err == nil && secret != nil {
			return fmt.Sprintf("the bridge port %d (your Chrome)", cfg.BridgePort)
		}
	}
	if cfg.Isolated {
		return ""
	}
	dir := cfg.UserDataDir
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "webpilot", "profile")
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return "the browser profile " + dir
}

// checkDaemonBrowser refuses to serve a browser that the per-user daemon
// already drives (the same profile, or the bridge's port): the two would
// fight over it, and every call of one would fail.
func checkDaemonBrowser(ctx context.Context, cfg *Config) error {
	mine := browserResource(cfg)
	if mine == "" {
		return nil
	}
	dir, err := daemon.Dir()
	if err != nil {
		return nil
	}
	st, err := daemon.Find(ctx, dir)
	if err != nil {
		return nil // none runs
	}
	dcfg, err := settingsConfig(st.Settings)
	if err != nil || browserResource(dcfg) != mine {
		return nil
	}
	who := ""
	if s, err := daemon.GetStatus(ctx, st); err == nil {
		var names []string
		for _, c := range s.Clients {
			names = append(names, c.Name)
		}
		who = fmt.Sprintf(", %d client(s)", len(s.Clients))
		if len(names) > 0 {
			who += ": " + strings.Join(names, ", ")
		}
	}
	other := "serve another browser (--isolated, or --user-data-dir DIR)"
	if strings.HasPrefix(mine, "the bridge port") {
		// The extension connects to one webpilot: another bridge port
		// would serve no Chrome at all.
		other = "serve a browser of its own instead of your Chrome (--isolated, or --user-data-dir DIR)"
	}
	return fmt.Errorf("%w: the per-user webpilot daemon (pid %d, up since %s%s) already drives %s, which this serve would use too.\n"+
		"Stop it first (`webpilot daemon stop`; its MCP clients start it again on their next call), or %s, or let your client use the daemon through `webpilot mcp` on stdio",
		errUsage, st.PID, st.Started.Local().Format("15:04:05"), who, mine, other)
}

// settingsConfig is the Config of a daemon's browser settings (its state
// file's): defaults with them applied.
func settingsConfig(settings map[string]string) (*Config, error) {
	fs := flag.NewFlagSet("webpilot settings", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	env := make(map[string]string)
	for k, v := range settings {
		env[envName(strings.ReplaceAll(k, "_", "-"))] = v
	}
	return loadConfig(fs, nil, func(name string) string { return env[name] }, "")
}
