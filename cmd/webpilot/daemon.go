package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/filelock"
	"github.com/webpilot-mcp/webpilot/internal/mcpproxy"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

// DaemonIdleExit is how long the per-user daemon lives without an MCP
// client.
const DaemonIdleExit = 10 * time.Minute

// notForwarded are the settings a proxy keeps to itself: the browser
// session and the browser profile are per client (sent as
// mcpserver.SessionHeader and mcpserver.BrowserProfileHeader: clients that
// want different ones share the daemon), and the rest are about the
// proxy's own process or the daemon's transport.
var notForwarded = map[string]bool{"session": true, "browser_profile": true, "standalone": true, "log_file": true,
	"daemon": true, "idle_exit": true, "listen": true, "auth_token": true}

// pathKeys are settings that name files: a proxy makes them absolute
// before handing them to the daemon, which runs in another directory.
var pathKeys = map[string]bool{"user_data_dir": true, "output_dir": true, "browser": true, "secrets": true, "trace": true}

// forwarded are the settings (key → text) a daemon must run with to serve
// this proxy: every one not at its default, but the proxy's own.
func forwarded(cfg *Config) map[string]string {
	out := make(map[string]string)
	for k, v := range cfg.Raw {
		if notForwarded[k] {
			continue
		}
		if pathKeys[k] && v != "" && strings.ContainsRune(v, filepath.Separator) && !filepath.IsAbs(v) {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		out[k] = v
	}
	return out
}

// fingerprint names a set of settings; a daemon whose fingerprint differs
// from a proxy's runs other settings.
func fingerprint(settings map[string]string) string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%q\n", k, settings[k])
	}
	// The secrets of the environment (WEBPILOT_SECRET_<NAME>, which the
	// daemon inherits): a client with others needs another daemon. Only a
	// digest of them is kept.
	var sec []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, secrets.EnvPrefix) {
			sec = append(sec, kv)
		}
	}
	slices.Sort(sec)
	for _, kv := range sec {
		fmt.Fprintf(h, "secret %x\n", sha256.Sum256([]byte(kv)))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// daemonEnv is the environment of a daemon started for settings: the
// proxy's own, without any webpilot setting, plus each forwarded one
// (environment, not flags: flags show in the process list, and a CDP
// header may carry a credential).
func daemonEnv(environ []string, settings map[string]string) []string {
	drop := make(map[string]bool)
	for _, k := range configKeys() {
		drop[envName(k.name)] = true
	}
	// The one daemon setting a user may want from the environment: how
	// long it outlives its last client.
	delete(drop, envName("idle-exit"))
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !drop[name] {
			env = append(env, kv)
		}
	}
	for k, v := range settings {
		env = append(env, envName(strings.ReplaceAll(k, "_", "-"))+"="+v)
	}
	return env
}

// runProxy is `webpilot mcp` without --standalone: it finds the per-user
// daemon, or starts it, and relays MCP between stdio and it.
func runProxy(ctx context.Context, cfg *Config, stdin io.Reader, stdout, stderr io.Writer) error {
	dir, err := daemon.Dir()
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if cfg.Debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("component", "proxy")
	settings := forwarded(cfg)
	opts := daemon.EnsureOptions{
		Dir:     dir,
		Version: version,
		Config:  fingerprint(settings),
		Start: func() (<-chan error, error) {
			return spawnDaemon(dir, daemonEnv(os.Environ(), settings))
		},
		Logf: func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) },
	}
	header := http.Header{}
	if cfg.Sources["session"] != "default" {
		header.Set(mcpserver.SessionHeader, cfg.Session)
	}
	if cfg.BrowserProfile != "" {
		header.Set(mcpserver.BrowserProfileHeader, cfg.BrowserProfile)
	}
	if wd, err := os.Getwd(); err == nil {
		// The project recipes are those of the client's folder.
		header.Set(mcpserver.WorkdirHeader, wd)
	}
	err = mcpproxy.Run(ctx, stdin, stdout, mcpproxy.Options{
		Connect: func(ctx context.Context, _ *mcpproxy.Endpoint) (mcpproxy.Endpoint, error) {
			st, err := daemon.Ensure(ctx, opts)
			if err != nil {
				return mcpproxy.Endpoint{}, err
			}
			log.Debug("daemon", "pid", st.PID, "addr", st.Addr, "version", st.Version)
			return mcpproxy.Endpoint{URL: st.URL(), Token: st.Token}, nil
		},
		Header: header,
		Logger: log,
	})
	if err != nil {
		return fmt.Errorf("%w (webpilot mcp --standalone runs without the daemon)", err)
	}
	return nil
}

// spawnDaemon starts `webpilot serve --daemon` detached from this process
// (its own session, no terminal, stdio not the host's), in dir.
func spawnDaemon(dir string, env []string) (<-chan error, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the webpilot executable: %w", err)
	}
	errf, err := os.OpenFile(filepath.Join(dir, daemon.StartErrFile), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	cmd := exec.Command(exe, "serve", "--daemon")
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stderr = errf
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited, nil
}

// runDaemon is `webpilot serve --daemon`: the per-user daemon. It holds
// the run lock for its life (a second one exits), listens on a free
// loopback port with a fresh token, writes both to the state file, logs to
// the log file next to it, and exits after --idle-exit (10 minutes by
// default) without an MCP client, or when a proxy of another version or
// other settings asks while it has none.
func runDaemon(ctx context.Context, cfg *Config, stderr io.Writer) error {
	dir, err := daemon.Dir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the daemon's state dir: %w", err)
	}
	// A daemon that is exiting (idle, or replaced) may still hold the lock
	// while it closes its browser.
	lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	lock, err := filelock.Acquire(lctx, filepath.Join(dir, daemon.RunLock))
	cancel()
	if err != nil {
		return fmt.Errorf("another webpilot daemon is running (%s): %w", filepath.Join(dir, daemon.StateFile), err)
	}
	defer lock.Release()

	listen := cfg.Listen
	if cfg.Sources["listen"] == "default" {
		listen = "127.0.0.1:0"
	}
	if host, _, _ := net.SplitHostPort(listen); !mcpserver.IsLoopback(host) {
		return fmt.Errorf("%w: --daemon listens on loopback only, not %s", errUsage, listen)
	}
	token := cfg.AuthToken
	if token == "" {
		token = daemon.NewToken()
	}
	idle := cfg.IdleExit
	if cfg.Sources["idle_exit"] == "default" {
		idle = DaemonIdleExit
	}
	if cfg.LogFile == "" {
		cfg.LogFile = filepath.Join(dir, daemon.LogFile)
	}
	fp := fingerprint(forwarded(cfg))

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	defer ln.Close()
	// The log goes to the log file only: stderr is the start-error file.
	a, err := newApp(cfg, io.Discard)
	if err != nil {
		return err
	}
	st := daemon.State{PID: os.Getpid(), Addr: ln.Addr().String(), Token: token, Version: version, Config: fp, Started: time.Now().UTC()}
	if err := daemon.WriteState(dir, st); err != nil {
		_ = a.close()
		return err
	}
	a.log.Info("daemon started", "pid", st.PID, "addr", st.Addr, "version", version, "idle_exit", idle)
	err = a.server.RunHTTP(ctx, ln, mcpserver.HTTPOptions{
		Addr:      st.Addr,
		Token:     token,
		IdleExit:  idle,
		Retirable: true,
	})
	// Gone from the state file first: a proxy from now on starts a new
	// daemon, which waits for the run lock until this one has closed its
	// browser.
	if rerr := daemon.RemoveState(dir, st.PID); rerr != nil {
		a.log.Warn("shutdown", "err", rerr)
	}
	if cerr := a.close(); cerr != nil {
		a.log.Warn("shutdown", "err", cerr)
	}
	a.log.Info("daemon stopped", "pid", st.PID)
	return err
}
