package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/opencli"
)

// doctorOpenCLI reports OpenCLI: found or not, where, and its version
// (it is run with --version).
func doctorOpenCLI(ctx context.Context, cfg *Config, ok func(string, ...any), bad func(string, string, ...any), note func(string, ...any)) {
	if err := findOpenCLI(cfg); err != nil {
		bad("point --opencli-bin (WEBPILOT_OPENCLI_BIN) at OpenCLI's program, or unset it to look for one", "opencli: %s", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return
	}
	if cfg.OpenCLI == nil {
		note("opencli: not found — optional: `npm install -g @jackwener/opencli` adds its site adapters as the opencli tools (%s)", cfg.OpenCLIMissing)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, opencli.VersionTimeout+time.Second)
	defer cancel()
	svc := opencli.NewPool(nil).Service(*cfg.OpenCLI)
	v, err := svc.WaitVersion(ctx)
	switch {
	case err != nil:
		bad("check that it runs on its own (opencli --version): npm's opencli needs Node 20 or newer on PATH", "opencli: found (%s, %s) but %v", cfg.OpenCLI, cfg.OpenCLI.Source, err)
	case v == "":
		bad("check that it runs on its own (opencli --version)", "opencli: found (%s, %s) but --version did not answer", cfg.OpenCLI, cfg.OpenCLI.Source)
	default:
		ok("opencli: %s (version %s, from %s): the opencli tools are on", cfg.OpenCLI, v, cfg.OpenCLI.Source)
	}
}

// errDoctor marks a doctor run whose chosen backend does not work: exit 1.
var errDoctor = errors.New("doctor found a problem")

// doctorConnectWait is how long doctor waits for the extension to connect:
// a Chrome that is open retries every 10 s at most, and one whose
// extension worker slept is woken by its alarm every 30 s.
var doctorConnectWait = 32 * time.Second

// runDoctor checks what webpilot needs and prints one line per check, with
// what to do about each failure: the config, the browser (found and
// launched), and the bridge (pairing, port, the extension connecting).
// It fails when the backend webpilot would use does not work.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("doctor", args, stderr)
	if err != nil {
		return err
	}
	ok := func(format string, a ...any) { fmt.Fprintf(stdout, "✔ "+format+"\n", a...) }
	bad := func(fix, format string, a ...any) {
		fmt.Fprintf(stdout, "✘ "+format+"\n", a...)
		if fix != "" {
			fmt.Fprintf(stdout, "  → %s\n", fix)
		}
	}
	note := func(format string, a ...any) { fmt.Fprintf(stdout, "• "+format+"\n", a...) }

	goVersion := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok && bi.GoVersion != "" {
		goVersion = bi.GoVersion
	}
	note("webpilot %s (%s/%s, %s)", version, runtime.GOOS, runtime.GOARCH, goVersion)
	ok("config: valid (backend %s, bridge port %d, headless %s%s)", cfg.Backend, cfg.BridgePort, cfg.Headless, configOverrides(cfg))
	if n := networkSettings(cfg); n != "" {
		note("network: %s", n)
	}

	// The launch backend: discovery, then a real start.
	launchWorks := false
	path, err := launch.Discover(cfg.Browser, launch.SystemProbe(os.Getenv))
	if err != nil {
		bad(browserFix(cfg.Browser), "browser: %v", err)
	} else {
		ok("browser found: %s", path)
		start := time.Now()
		opts := launchOptions(cfg)
		opts.BrowserPath, opts.Isolated = path, true
		mode := "headed"
		if opts.Headless {
			mode = "headless"
		}
		info, err := tryLaunch(ctx, opts)
		took := time.Since(start).Round(10 * time.Millisecond)
		if err != nil {
			fix := "pass --browser another one, or run `webpilot doctor --debug` to see more"
			var se *backend.StartError
			output := ""
			if errors.As(err, &se) {
				if se.Hint != "" {
					fix = se.Hint
				}
				err, output = errors.New(se.Reason), se.Output
			}
			bad(fix, "browser launch (%s, temporary profile) failed after %s: %v", mode, took, err)
			if output != "" {
				note("the browser's output:\n%s", indent(strings.TrimRight(output, "\n")))
			}
		} else {
			launchWorks = true
			ok("browser launch: %s started %s in %s", info.Version, mode, took)
		}
	}

	// The per-user daemon, which every `webpilot mcp` reaches.
	daemonSt, daemonUp := doctorDaemon(ctx, cfg, ok, bad, note)

	doctorOpenCLI(ctx, cfg, ok, bad, note)

	// The bridge: pairing, the port, the extension connecting.
	bridgeWorks, bridgeChecked := false, false
	secret, err := readSecret()
	paired := secret != nil
	switch {
	case err != nil:
		bad("run `webpilot pair` again", "bridge pairing: %v", err)
	case !paired:
		note("bridge: not paired — to drive your own Chrome, run `webpilot extension --out DIR`, load it in Chrome, then `webpilot pair` (optional)")
	default:
		where, _ := pairingFile()
		ok("bridge: paired (%s)", where)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", cfg.BridgePort)
	portFree := false
	if ln, lerr := net.Listen("tcp", addr); lerr == nil {
		_ = ln.Close()
		portFree = true
		ok("bridge port %d is free", cfg.BridgePort)
	} else {
		note("bridge port %d is in use (a running webpilot holds it, or another program: then pick another with --bridge-port)", cfg.BridgePort)
	}
	if paired && err == nil {
		if daemonUp && daemonSt.BridgePort == cfg.BridgePort {
			// The daemon holds the port: it knows whether the extension is
			// connected.
			bridgeChecked = true
			if len(daemonSt.Extension) > 0 {
				bridgeWorks = true
				ok("extension connected to the daemon: %s", strings.Join(daemonSt.Extension, ", "))
				note("%s", approvalNote(cfg.Approve, daemonSt.Approvals))
			} else {
				var approvals []string
				bridgeWorks, bridgeChecked, approvals = doctorWaitDaemonExtension(ctx, cfg.BridgePort, ok, bad, note)
				if bridgeWorks {
					note("%s", approvalNote(cfg.Approve, approvals))
				}
			}
		} else if !portFree {
			note("extension connection not checked: the port is in use, most likely by a running webpilot that the extension is connected to")
			bridgeWorks, bridgeChecked = true, false
		} else {
			bridgeChecked = true
			note("waiting up to %s for the extension to connect (it retries every 10 s; a sleeping Chrome wakes it every 30 s)…", doctorConnectWait)
			hs, cerr := tryBridge(ctx, addr, secret)
			if cerr != nil {
				bad(fmt.Sprintf("open Chrome with the webpilot extension enabled; its popup must show port %d and \"paired\" (run `%s` again if not)", cfg.BridgePort, pairCommand(cfg.BridgePort)),
					"extension did not connect within %s: %v", doctorConnectWait, cerr)
			} else {
				bridgeWorks = true
				ok("extension connected: version %s, Chrome profile %s", hs[0].ExtensionVersion, bridge.DescribeProfiles(hs))
			}
		}
	}

	// The verdict: the backend webpilot would use.
	choice := cfg.Backend
	if choice == "auto" {
		choice = "launch"
		if paired && ownBrowserSetting(cfg) == "" {
			choice = "bridge"
		}
	}
	works := launchWorks
	if choice == "bridge" {
		works = bridgeWorks
	}
	via := ""
	if cfg.Backend == "auto" {
		via = " (auto)"
	}
	switch {
	case works && choice == "bridge" && !bridgeChecked:
		note("webpilot would use the bridge%s; it could not be checked while another process holds its port", via)
		return nil
	case works:
		ok("ready: webpilot would use the %s backend%s, and it works", choice, via)
		return nil
	}
	bad("", "not ready: webpilot would use the %s backend%s, and it does not work (see above)", choice, via)
	return errDoctor
}

// doctorDaemon reports the per-user daemon: whether it runs, its version,
// backend and browser, its clients.
func doctorDaemon(ctx context.Context, cfg *Config, ok func(string, ...any), bad func(string, string, ...any), note func(string, ...any)) (daemon.Status, bool) {
	dir, err := daemon.Dir()
	if err != nil {
		return daemon.Status{}, false
	}
	st, err := daemon.Find(ctx, dir)
	if err != nil {
		note("daemon: not running (the first `webpilot mcp` starts it; state dir %s)", dir)
		return daemon.Status{}, false
	}
	s, err := daemon.GetStatus(ctx, st)
	if err != nil {
		bad("see `webpilot daemon logs`; `webpilot daemon restart` starts it again", "daemon (pid %d) does not answer its status: %v", st.PID, err)
		return daemon.Status{}, false
	}
	var names []string
	for _, c := range s.Clients {
		names = append(names, c.Name)
	}
	clients := "no client"
	if len(names) > 0 {
		clients = fmt.Sprintf("%d client(s): %s", len(names), strings.Join(names, ", "))
	}
	ok("daemon: running (pid %d, version %s, up %s), backend %s, browser %s, %s", s.PID, s.Version, time.Since(s.Started).Round(time.Second), s.Backend, s.Browser, clients)
	if s.Version != version {
		note("the daemon runs version %s and this is %s: it is replaced once it has no client (or now: `webpilot daemon restart`)", s.Version, version)
	}
	// Would a client with these settings get the daemon's browser?
	if dcfg, err := settingsConfig(st.Settings); err == nil {
		if raw, err := encodeClientSettings(cfg, nil); err == nil {
			if cs, err := decodeClientSettings(raw); err == nil {
				if diff := browserConflict(dcfg, cs); diff != "" {
					bad("use the daemon's browser settings, or stop it (`webpilot daemon stop`) so that the next client starts it with yours",
						"the daemon drives another browser than these settings ask for (%s): a client with them gets NO_BROWSER", diff)
				}
			}
		}
	}
	return s, true
}

// doctorWaitDaemonExtension waits for the extension to connect to the
// running daemon's bridge listener on port, asking the daemon; it gives
// the person's remembered answers the daemon knows then.
func doctorWaitDaemonExtension(ctx context.Context, port int, ok func(string, ...any), bad func(string, string, ...any), note func(string, ...any)) (works, checked bool, approvals []string) {
	dir, err := daemon.Dir()
	if err != nil {
		return false, false, nil
	}
	note("waiting up to %s for the extension to connect to the daemon (it retries every 10 s; a sleeping Chrome wakes it every 30 s)…", doctorConnectWait)
	deadline := time.Now().Add(doctorConnectWait)
	for {
		st, err := daemon.Find(ctx, dir)
		if err == nil {
			if s, err := daemon.GetStatus(ctx, st); err == nil && len(s.Extension) > 0 {
				ok("extension connected to the daemon: %s", strings.Join(s.Extension, ", "))
				return true, true, s.Approvals
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			bad(fmt.Sprintf("open Chrome with the webpilot extension enabled; its popup must show port %d and \"paired\" (run `webpilot pair` again if not)", port),
				"extension did not connect to the daemon within %s", doctorConnectWait)
			return false, true, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// networkSettings lists the launched browser's network settings that are
// set, each with its value and where it came from ("" when none is).
func networkSettings(cfg *Config) string {
	var parts []string
	add := func(key string, v any) {
		if src := cfg.Sources[key]; src != "" && src != "default" {
			parts = append(parts, fmt.Sprintf("%s %v (%s)", key, v, src))
		}
	}
	add("proxy_server", cfg.ProxyServer)
	add("proxy_bypass", cfg.ProxyBypass)
	add("ignore_https_errors", cfg.IgnoreHTTPSErrors)
	add("http_auth", strings.Join(cfg.HTTPAuth, ",")) // (secret names, never values)
	return strings.Join(parts, "; ")
}

// configOverrides lists the settings not at their default, with where they came from.
func configOverrides(cfg *Config) string {
	var keys []string
	for k, src := range cfg.Sources {
		if src != "default" {
			keys = append(keys, k+" from "+src)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	return "; set: " + strings.Join(keys, ", ")
}

// browserFix says how to get a browser webpilot can launch.
func browserFix(explicit string) string {
	if explicit != "" {
		return "pass --browser the path of an installed Chromium or Chrome executable, or leave it out to let webpilot find one"
	}
	if os.Getenv(launch.EnvBrowser) != "" {
		return "set " + launch.EnvBrowser + " to the path of an installed Chromium or Chrome executable, or unset it to let webpilot find one"
	}
	switch runtime.GOOS {
	case "darwin":
		return "install Google Chrome or Chromium (brew install --cask chromium), or pass --browser PATH"
	case "windows":
		return "install Google Chrome, Edge or Brave, or pass --browser PATH"
	}
	return "install Chromium (Debian/Ubuntu: sudo apt-get install chromium) or Google Chrome, or pass --browser PATH"
}

// tryLaunch starts the browser as opts say (a temporary profile), reads its
// version and shuts it down.
func tryLaunch(ctx context.Context, opts launch.Options) (backend.Info, error) {
	b := launch.New(opts)
	defer b.Close()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		return backend.Info{}, err
	}
	info := b.Info()
	if info.Version == "" {
		info.Version = "the browser"
	}
	return info, nil
}

// tryBridge listens on addr with the pairing secret and waits a few seconds
// for the extension to connect; it returns the browser profiles connected
// then (at least one).
func tryBridge(ctx context.Context, addr string, secret []byte) ([]bridge.Hello, error) {
	srv, err := bridge.Listen(bridge.Options{Addr: addr, ExtensionIDs: extension.IDs(), Secret: secret, ServerVersion: version})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, doctorConnectWait)
	defer cancel()
	if _, err := srv.Relay(ctx, ""); err != nil && !errors.Is(err, bridge.ErrAmbiguousProfile) {
		return nil, err
	}
	hs := srv.Profiles()
	if len(hs) == 0 {
		return nil, bridge.ErrDisconnected
	}
	return hs, nil
}

// approvalNote says whether clients ask the person before they use a site
// in their Chrome (--approve) and what the person answered so far.
func approvalNote(mode string, rules []string) string {
	line := "approvals (--approve " + mode + "): "
	if mode == "always" {
		line += "clients never ask before they use a site in your Chrome"
	} else {
		line += "a client asks you in the extension the first time it uses a site, and always before it binds one of your tabs"
	}
	if len(rules) == 0 {
		return line + "; no answers remembered yet"
	}
	return line + "; remembered: " + strings.Join(rules, "; ") + " (revoke them in the extension's popup)"
}
