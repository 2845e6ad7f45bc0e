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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/filelock"
	"github.com/webpilot-mcp/webpilot/internal/mcpproxy"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

// DaemonIdleExit is how long the per-user daemon lives without an MCP
// client.
const DaemonIdleExit = 10 * time.Minute

// fingerprint names a set of browser settings (browserSettings); a daemon
// whose fingerprint differs from a proxy's drives another browser.
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
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// daemonEnv is the environment of a daemon started for browser settings:
// the proxy's own, without any webpilot setting or secret, plus each
// browser setting (environment, not flags: flags show in the process list,
// and a CDP header may carry a credential). The clients' own settings and
// secrets travel with each client's requests (mcpserver.SettingsHeader),
// never in the daemon's environment.
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
		if !drop[name] && !strings.HasPrefix(name, secrets.EnvPrefix) {
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
	opts := daemonOptions(cfg, dir, func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) })
	header, err := clientHeader(cfg)
	if err != nil {
		return err
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
		Header:       header,
		Logger:       log,
		NamedSession: cfg.Sources["session"] != "default",
	})
	if err != nil {
		return fmt.Errorf("%w (webpilot mcp --standalone runs without the daemon)", err)
	}
	return nil
}

// daemonOptions say which daemon a client with cfg needs: the one of its
// browser settings, started with them when none runs.
func daemonOptions(cfg *Config, dir string, logf func(format string, args ...any)) daemon.EnsureOptions {
	settings := browserSettings(cfg)
	return daemon.EnsureOptions{
		Dir:     dir,
		Version: version,
		Config:  fingerprint(settings),
		Start: func() (<-chan error, error) {
			return spawnDaemon(dir, daemonEnv(os.Environ(), settings))
		},
		Logf: logf,
	}
}

// clientHeader are the headers of cfg's client on every request to the
// daemon: its own settings, its browser session and profile when given,
// and its working directory.
func clientHeader(cfg *Config) (http.Header, error) {
	own, err := encodeClientSettings(cfg, os.Environ())
	if err != nil {
		return nil, err
	}
	header := http.Header{}
	header.Set(mcpserver.SettingsHeader, own)
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
	return header, nil
}

// daemonTransport adds the daemon's token and the client's headers to
// every request.
type daemonTransport struct {
	token  string
	header http.Header
}

func (d daemonTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+d.token)
	for k, v := range d.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectDaemon connects an MCP client named name to the per-user daemon
// of cfg's browser settings, starting it when none runs: the CLI's way to
// share the browser that the agents use.
func connectDaemon(ctx context.Context, cfg *Config, name string, stderr io.Writer) (*mcp.ClientSession, daemon.State, error) {
	dir, err := daemon.Dir()
	if err != nil {
		return nil, daemon.State{}, err
	}
	header, err := clientHeader(cfg)
	if err != nil {
		return nil, daemon.State{}, err
	}
	st, err := daemon.Ensure(ctx, daemonOptions(cfg, dir, func(format string, args ...any) { fmt.Fprintf(stderr, "webpilot: "+format+"\n", args...) }))
	if err != nil {
		return nil, daemon.State{}, fmt.Errorf("%w (--standalone runs without the daemon)", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: version}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: st.URL(), HTTPClient: &http.Client{Transport: daemonTransport{st.Token, header}}}, nil)
	if err != nil {
		return nil, st, fmt.Errorf("connect to the webpilot daemon (pid %d) at %s: %w", st.PID, st.Addr, err)
	}
	return cs, st, nil
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
	bset := browserSettings(cfg)
	fp := fingerprint(bset)

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
	st := daemon.State{PID: os.Getpid(), Addr: ln.Addr().String(), Token: token, Version: version, Config: fp, Started: a.started.UTC(), Settings: bset}
	if err := daemon.WriteState(dir, st); err != nil {
		_ = a.close()
		return err
	}
	a.log.Info("daemon started", "pid", st.PID, "addr", st.Addr, "version", version, "idle_exit", idle)
	err = a.server.RunHTTP(ctx, ln, a.httpBounds(mcpserver.HTTPOptions{
		Addr:      st.Addr,
		Token:     token,
		IdleExit:  idle,
		Retirable: true,
		Pair:      a.pairHere,
		Status: func(ds *daemon.Status) {
			ds.PID, ds.Started, ds.Backend, ds.Log = st.PID, st.Started, a.backendKind(), cfg.LogFile
			a.mu.Lock()
			srv := a.bridgeSrv
			a.mu.Unlock()
			if srv != nil {
				ds.BridgePort, ds.Extension = srv.Port(), []string{}
				for _, h := range srv.Profiles() {
					ds.Extension = append(ds.Extension, fmt.Sprintf("%s (extension %s)", h.ProfileName, h.ExtensionVersion))
				}
				actx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				ds.Approvals = approvalLines(a.manager.ApprovalRules(actx))
				cancel()
			}
			ds.Settings = map[string]string{}
			for k, v := range cfg.View() {
				if settingKinds[k] == kindBrowser {
					// The daemon's environment holds only what the
					// proxy that started it forwarded.
					ds.Settings[k] = strings.Replace(fmt.Sprint(v), "(env)", "(from the client that started it)", 1)
				}
			}
		},
	}))
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

// approvalLines are the person's remembered answers as status lines
// ("example.com allowed for Claude Code"); none is an empty list, a
// failure a line of its own.
func approvalLines(rules []browser.ApprovalRule, err error) []string {
	out := []string{}
	for _, r := range rules {
		word := "allowed"
		if r.Answer == "deny" {
			word = "denied"
		}
		out = append(out, fmt.Sprintf("%s %s for %s", r.Site, word, r.Client))
	}
	if err != nil {
		out = append(out, "(could not read them all: "+err.Error()+")")
	}
	return out
}
