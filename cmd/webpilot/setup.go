package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/webpilot-mcp/webpilot/extension"
	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/logfile"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/opencli"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// app is a configured webpilot: the config, the browser manager and the MCP
// server, with what closes them.
type app struct {
	cfg     *Config
	log     *slog.Logger
	backend backend.Backend // the browser every session shares; nil with farm
	farm    *endpoint.Farm  // a backend of its own per session (--endpoint-per-session)
	// mu guards kind and bridgeSrv, which a pairing through the daemon
	// changes.
	mu        sync.Mutex
	kind      string         // the backend chosen: launch or bridge, and why
	bridgeSrv *bridge.Server // the bridge's listener, when there is one
	manager   *browser.Manager
	server    *mcpserver.Server
	gate      *recipes.Gate
	// masks masks the log with the secrets of this process and, in the
	// daemon, of every client's settings.
	masks *secrets.Registry
	// openclis are the OpenCLI commands the clients run, each with its
	// version and catalog.
	openclis *opencli.Pool
	started  time.Time
	closers  []func() error
}

// parseConfig parses a subcommand's flags into a Config.
func parseConfig(name string, args []string, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet("webpilot "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir, _ := os.Getwd()
	cfg, err := loadConfig(fs, args, os.Getenv, dir)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return cfg, nil
}

// newApp wires a webpilot from its config. Nothing is started here: with
// prewarm (the default) the browser launches, or the endpoint is dialled,
// when the first client request arrives; with --no-prewarm on the first tool
// that needs it.
func newApp(cfg *Config, stderr io.Writer) (*app, error) {
	a := &app{cfg: cfg, masks: &secrets.Registry{}, started: time.Now()}
	if err := findOpenCLI(cfg); err != nil {
		return nil, err
	}
	level := slog.LevelWarn
	if cfg.Debug {
		level = slog.LevelDebug
	}
	var w io.Writer = stderr
	if cfg.LogFile != "" {
		// Rotated by size (logfile.DefaultMaxBytes, DefaultKeep older
		// files), so a server that runs for days keeps a bounded log.
		f, err := logfile.Open(cfg.LogFile, 0, 0)
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, f.Close)
		w = io.MultiWriter(stderr, f)
		if level > slog.LevelInfo {
			level = slog.LevelInfo
		}
	}
	sec, err := secrets.Load(cfg.Secrets, os.Environ())
	if err != nil {
		for _, c := range a.closers {
			_ = c()
		}
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	// The log is masked like every result: it never holds a secret.
	a.masks.Add(sec)
	a.log = slog.New(a.masks.Handler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
	if n := sec.Len(); n > 0 {
		a.log.Info("secrets declared", "names", strings.Join(sec.Names(), ","))
	}
	a.openclis = opencli.NewPool(a.log.With("component", "opencli"))
	// (the version check waits for the browser's start, unless asked for)
	a.openclis.Delay = 2 * time.Second
	a.openclis.Announce = func(c opencli.Command, v string, err error) {
		if err == nil {
			fmt.Fprintf(stderr, "webpilot: OpenCLI %s (%s, from %s): the opencli tools are on\n", v, c, c.Source)
		}
		// (a failure is logged as a warning)
	}

	wd, _ := os.Getwd()
	profile := cfg.UserDataDir
	if profile == "" && !cfg.Isolated {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("find the user config dir for the browser profile (or pass --user-data-dir / --isolated): %w", err)
		}
		profile = filepath.Join(dir, "webpilot", "profile")
		cfg.UserDataDir = profile
		cfg.Sources["user_data_dir"] = "default"
	}
	basePolicy := policyOptions(cfg)
	if basePolicy.HTTPAuth, err = httpAuth(cfg, sec); err != nil {
		for _, c := range a.closers {
			_ = c()
		}
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	be, farm, kind, err := chooseBackend(cfg, a.log)
	if err != nil {
		return nil, err
	}
	if bb, ok := be.(*bridge.Backend); ok {
		a.bridgeSrv = bb.Server()
	}
	if be == nil && farm == nil {
		opts := launchOptions(cfg)
		opts.UserDataDir, opts.Logger = profile, a.log.With("component", "launch")
		be = launch.New(opts)
	}
	a.backend, a.farm, a.kind = be, farm, kind
	var sessionFarm browser.Farm
	if farm != nil {
		// Each session connects on its first call; prewarm has nothing
		// to start (the manager has no backend of its own): a connection
		// made ahead would take a farm browser no session may ever use.
		sessionFarm = farm
	}
	a.manager = browser.NewManager(browser.Options{
		Backend:        a.backend,
		BrowserProfile: cfg.BrowserProfile,
		Farm:           sessionFarm,
		Logger:         a.log.With("component", "browser"),
		// The same as the own client's (clientParts), which warns about
		// roots that cannot be used.
		UploadRoots: uploadRoots(cfg, wd, slog.New(slog.DiscardHandler)),
		// Recording the user in a headless browser shows them nothing:
		// refused, except for the test rig, whose user is simulated.
		RecordHeadless: os.Getenv(envRecordHeadless) == "1",
	}.WithPolicy(basePolicy))
	gate, err := recipes.NewGate(recipes.GateOptions{Runs: cfg.SiteRuns, Queue: cfg.SiteQueue, Wait: cfg.SiteWait})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	a.gate = gate
	own, err := a.clientParts(cfg, wd, sec)
	if err != nil {
		return nil, err
	}
	own.Deps.Manager, own.Deps.Gate, own.Deps.DefaultSession, own.Deps.Logger = a.manager, gate, cfg.Session, a.log
	var settings func(string) (*mcpserver.Client, error)
	if cfg.Daemon {
		// Each client of the per-user daemon brings its own settings.
		settings = a.daemonClient
	}
	a.server = mcpserver.New(mcpserver.Options{
		Name: "webpilot", Version: version, Logger: a.log.With("component", "mcp"), CallCeiling: own.Ceiling,
		ClientSettings: settings,
		OnInitialized: func() {
			if !cfg.Prewarm {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			starter, ok := a.manager.Backend().(interface{ Start(context.Context) error })
			if !ok {
				return // the bridge's browser is the user's, already running
			}
			if err := starter.Start(ctx); err != nil {
				a.log.Warn("prewarm: the browser did not start", "err", err)
			}
		},
		Tools: own.Tools,
		Deps:  own.Deps,
	})
	return a, nil
}

// clientParts makes what a client's settings (cfg) decide: its tools, its
// browser policy, its call ceiling, and its recipes, secrets (sec), trace
// and status. wd is the client's working directory (its uploads and
// project recipes). newApp makes the process's own with it, the daemon
// each client's.
func (a *app) clientParts(cfg *Config, wd string, sec *secrets.Set) (*mcpserver.Client, error) {
	caps, capsNote := effectiveCaps(cfg)
	var present []tools.Group
	if cfg.OpenCLI != nil {
		present = append(present, tools.GroupOpenCLI)
	}
	sel, err := tools.Select(cfg.Profile, caps, present...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if len(sel.Absent) > 0 {
		note := "the opencli tools are off: --caps asks for them, but " + cfg.OpenCLIMissing
		if capsNote != "" {
			note = capsNote + "; " + note
		}
		capsNote = note
	}
	if capsNote != "" {
		a.log.Info(capsNote)
	}
	store, err := recipes.NewStore(cfg.Recipes, wd)
	if err != nil {
		return nil, fmt.Errorf("recipes: %w", err)
	}
	po := policyOptions(cfg)
	if po.HTTPAuth, err = httpAuth(cfg, sec); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	pol := a.manager.Policy(po)
	var oc *tools.OpenCLI
	if cfg.OpenCLI != nil {
		oc = &tools.OpenCLI{Service: a.openclis.Service(*cfg.OpenCLI),
			Folder: func(owner string) (string, func(int64) (func(), error), error) {
				return pol.OutputFolder(owner, "opencli")
			}}
	}
	rec, err := traceRecorder(cfg.Trace, pol, sec.Mask)
	if err != nil {
		return nil, err
	}
	a.masks.Add(sec)
	gate := a.gate
	status := func() map[string]any {
		st := map[string]any{"version": version, "config": cfg.View(), "backend_choice": a.backendKind(), "cdp_commands_sent": cdp.CommandsSent(),
			"site_gate": map[string]any{"runs_per_site": gate.Options().Runs, "queue_per_site": gate.Options().Queue, "wait": gate.Options().Wait.String(), "busy_sites": gate.Status()}}
		if capsNote != "" {
			st["caps_note"] = capsNote
		}
		if oc != nil {
			st["opencli"] = tools.OpenCLIStatus(oc.Service)
		} else {
			st["opencli"] = map[string]any{"found": false, "why": cfg.OpenCLIMissing}
		}
		if a.cfg.Daemon {
			st["daemon"] = map[string]any{"pid": os.Getpid(), "version": version, "started": a.started.UTC().Format(time.RFC3339),
				"note": "this client's settings hold for its own calls and sessions; the browser settings are the daemon's (webpilot daemon status)"}
		}
		return st
	}
	return &mcpserver.Client{
		Tools:       sel,
		Policy:      pol,
		UploadRoots: uploadRoots(cfg, wd, a.log),
		Ceiling:     cfg.Timeout,
		Prewarm:     cfg.Prewarm,
		Deps: &tools.Deps{
			Recipes: store,
			RecipesFor: func(wd string) *recipes.Store {
				if st, err := recipes.NewStore(cfg.Recipes, wd); err == nil {
					return st
				}
				return store
			},
			HealWrite: cfg.HealWrite,
			Secrets:   sec,
			Trace:     rec,
			TraceMask: sec.Mask,
			Status:    status,
			OpenCLI:   oc,
		},
	}, nil
}

// findOpenCLI resolves cfg's OpenCLI once, in this process's environment
// (cfg.OpenCLI, or cfg.OpenCLIMissing when none is found). A configured
// program that cannot be run is a usage error.
func findOpenCLI(cfg *Config) error {
	if cfg.OpenCLI != nil || cfg.OpenCLIMissing != "" {
		return nil
	}
	c, err := opencli.Find(opencli.FindOptions{Bin: cfg.OpenCLIBin, BinSource: sourceName("opencli-bin", cfg.Sources["opencli_bin"]), PrefixArgs: cfg.OpenCLIPrefixArgs})
	var nf *opencli.NotFoundError
	switch {
	case errors.As(err, &nf):
		cfg.OpenCLIMissing = nf.Error()
		return nil
	case err != nil:
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	cfg.OpenCLI = &c
	return nil
}

// httpAuth resolves cfg's --http-auth rules with the declared secrets: each
// names a secret whose value is user:password, which may be used on the
// rule's origin.
func httpAuth(cfg *Config, sec *secrets.Set) ([]browser.HTTPAuth, error) {
	var out []browser.HTTPAuth
	for _, r := range cfg.HTTPAuth {
		name, origin, _ := strings.Cut(r, "@")
		s, ok := sec.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("--http-auth %s: no secret %q is declared (--secrets FILE or WEBPILOT_SECRET_%s)", r, name, name)
		}
		user, pass, ok := strings.Cut(s.Value, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("--http-auth %s: the secret %s is not user:password", r, name)
		}
		if err := s.Check(origin + "/"); err != nil {
			return nil, fmt.Errorf("--http-auth %s: the secret %s may not be used on %s", r, name, origin)
		}
		// (the password alone, or the login in a Basic header, is masked
		// like the secret)
		sec.MaskAlso(name, pass)
		out = append(out, browser.HTTPAuth{Origin: origin, Secret: name, User: user, Password: pass})
	}
	return out, nil
}

// policyOptions are the browser policy cfg asks for (browser.Policy).
func policyOptions(cfg *Config) browser.PolicyOptions {
	return browser.PolicyOptions{
		ActionTimeout:  cfg.ActionTimeout,
		NavTimeout:     cfg.NavTimeout,
		AllowedOrigins: cfg.AllowedOrigins,
		BlockedOrigins: cfg.BlockedOrigins,
		OutputDir:      cfg.OutputDir,
		OutputMaxBytes: int64(cfg.OutputMaxMB) << 20,
		DialogPolicy:   cfg.DialogPolicy,
		Approve:        cfg.Approve,
		NoRedact:       cfg.NoRedact,
		CDPAllow:       cfg.CDPAllow,
	}
}

// effectiveCaps are the caps the tools are selected with: cfg's, and, when
// an origin policy is set (--allowed-origins, --blocked-origins), -eval,
// -cdp and (when OpenCLI is found) -opencli for those of them not switched
// on by name: the policy governs the documents the tab opens, while code
// run in a page, raw CDP or an OpenCLI adapter can send requests anywhere,
// so they would be a way around it. note says so (""
// when nothing was added).
func effectiveCaps(cfg *Config) (caps, note string) {
	caps = cfg.Caps
	if len(cfg.AllowedOrigins) == 0 && len(cfg.BlockedOrigins) == 0 {
		return caps, ""
	}
	parsed, err := tools.ParseCaps(caps)
	if err != nil {
		return caps, "" // Select reports it
	}
	named := func(g tools.Group) bool {
		for i := len(parsed) - 1; i >= 0; i-- {
			if parsed[i].Group == g {
				return parsed[i].On
			}
		}
		return false
	}
	var off, names []string
	for _, g := range []struct {
		group tools.Group
		tool  string
	}{{tools.GroupEval, "browser_eval"}, {tools.GroupCDP, "browser_cdp"}, {tools.GroupOpenCLI, "the opencli tools"}} {
		if g.group == tools.GroupOpenCLI && cfg.OpenCLI == nil {
			continue // not there to switch off
		}
		if !named(g.group) {
			off = append(off, "-"+string(g.group))
			names = append(names, g.tool)
		}
	}
	if len(off) == 0 {
		return caps, ""
	}
	if caps != "" {
		caps += ","
	}
	verb, them := " is", "it"
	if len(names) > 1 {
		verb, them = " are", "them"
	}
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + list
	}
	what := "code run in a page (or raw CDP)"
	if off[len(off)-1] == "-"+string(tools.GroupOpenCLI) {
		what = "code run in a page, raw CDP or an OpenCLI adapter"
	}
	return caps + strings.Join(off, ","), list + verb + " off: an origin policy is set, and " + what + " can send requests to any origin; --caps " +
		strings.ReplaceAll(strings.Join(off, ","), "-", "+") + " switches " + them + " on anyway"
}

// close shuts the browser down and closes the log.
func (a *app) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := a.manager.Close(ctx)
	for _, c := range a.closers {
		err = errors.Join(err, c())
	}
	return err
}

// launchOptions are the launch backend's options that cfg sets: the
// browser, profile choice, window and network. The server and doctor start
// the browser with the same ones.
func launchOptions(cfg *Config) launch.Options {
	return launch.Options{
		BrowserPath: cfg.Browser,
		UserDataDir: cfg.UserDataDir,
		Isolated:    cfg.Isolated,
		Headless:    headless(cfg.Headless, os.Getenv),
		Env:         os.Getenv,

		ProxyServer:       cfg.ProxyServer,
		ProxyBypass:       cfg.ProxyBypass,
		IgnoreHTTPSErrors: cfg.IgnoreHTTPSErrors,
	}
}

// headless decides auto: headless when there is no display to show a window.
func headless(mode string, getenv func(string) string) bool {
	switch mode {
	case "true":
		return true
	case "false":
		return false
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" {
		return getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == ""
	}
	return false
}

// chooseBackend picks the backend per --backend: the bridge once paired
// (auto), or when asked; an endpoint, or with --endpoint-per-session a farm
// of them (then the backend is nil); neither means launch. A paired bridge that is not
// connected fails calls with BRIDGE_DISCONNECTED rather than silently
// falling back to a logged-out browser.
func chooseBackend(cfg *Config, log *slog.Logger) (backend.Backend, *endpoint.Farm, string, error) {
	if cfg.Backend == "launch" {
		return nil, nil, "launch", nil
	}
	if cfg.Backend == "endpoint" || (cfg.Backend == "auto" && cfg.CDPEndpoint != "") {
		if cfg.CDPEndpoint == "" {
			return nil, nil, "", fmt.Errorf("%w: --backend endpoint needs --cdp-endpoint ws://… or http://host:port", errUsage)
		}
		h := http.Header{}
		for _, line := range cfg.CDPHeaders {
			name, value, _ := strings.Cut(line, ":")
			h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
		opts := endpoint.Options{URL: cfg.CDPEndpoint, Header: h, Logger: log.With("component", "endpoint"), Wait: cfg.EndpointWait}
		if cfg.EndpointPerSession {
			return nil, endpoint.NewFarm(opts), "endpoint (a connection per session)", nil
		}
		return endpoint.New(opts), nil, "endpoint", nil
	}
	if err := backendProblem(cfg); err != nil {
		return nil, nil, "", fmt.Errorf("%w: %w", errUsage, err)
	}
	if own := ownBrowserSetting(cfg); own != "" {
		// A profile of its own is a browser webpilot launches: never
		// the user's Chrome in its place.
		return nil, nil, "launch (auto: " + own + " asks for a browser of its own)", nil
	}
	secret, err := readSecret()
	if err != nil {
		return nil, nil, "", err
	}
	if cfg.Backend == "auto" && secret == nil {
		return nil, nil, "launch (auto: no extension paired)", nil
	}
	srv, err := bridge.Listen(bridge.Options{Addr: fmt.Sprintf("127.0.0.1:%d", cfg.BridgePort), ExtensionIDs: extension.IDs(),
		Secret: secret, ServerVersion: version, Logger: log.With("component", "bridge")})
	if err != nil {
		return nil, nil, "", fmt.Errorf("bridge: %w; another webpilot may hold the port (use --bridge-port, or --backend launch)", err)
	}
	kind := "bridge"
	if cfg.Backend == "auto" {
		kind = "bridge (auto: an extension is paired)"
	}
	return bridge.New(srv, bridge.BackendOptions{CloseServer: true, Logger: log.With("component", "bridge")}), nil, kind, nil
}

// backendProblem is the error of settings that ask for two browsers at
// once: a profile of its own (a launched browser) and the user's Chrome.
func backendProblem(cfg *Config) error {
	if own := ownBrowserSetting(cfg); own != "" && cfg.Backend == "bridge" {
		return fmt.Errorf("%s asks for a browser webpilot launches with a profile of its own, and --backend bridge drives the user's own Chrome: leave one of them out", own)
	}
	return nil
}

// ownBrowserSetting names the setting that asks for a launched browser with
// a profile of its own (isolated, or a user_data_dir that was given), as
// its source says it ("--isolated", "WEBPILOT_USER_DATA_DIR"), or "".
func ownBrowserSetting(cfg *Config) string {
	for _, k := range []string{"isolated", "user_data_dir"} {
		src := cfg.Sources[k]
		if src == "" || src == "default" || (k == "isolated" && !cfg.Isolated) {
			continue
		}
		return sourceName(strings.ReplaceAll(k, "_", "-"), src)
	}
	return ""
}

// uploadRoots are the directories uploads may come from besides the
// client's roots: the working directory and the output directory. One that
// may not be a root (/, the home directory or above it, a symbolic link;
// see browser.UploadRootProblem) is named in the log now; each upload
// checks the roots again and leaves it out.
func uploadRoots(cfg *Config, wd string, log *slog.Logger) []string {
	out := cfg.OutputDir
	if out == "" {
		out = browser.DefaultOutputDir
	}
	roots := []string{out}
	if wd != "" {
		roots = append(roots, wd)
	}
	for i, r := range roots {
		if _, why := browser.UploadRootProblem(r); why != "" && why != browser.RootMissing {
			which := "output directory"
			if i == 1 {
				which = "working directory"
			}
			log.Warn("uploads will not come from the "+which, "dir", r, "why", why)
		}
	}
	return roots
}

// traceRecorder is the session trace recorder of --trace dir (nil when
// dir is ""). A dir that is the output directory or inside it writes into
// a trace folder of the output directory, within its budget; elsewhere
// each file is bounded on its own (trace.DefaultMaxSteps,
// trace.DefaultMaxBytes). mask hides the secrets in everything written.
func traceRecorder(dir string, m *browser.Policy, mask func(string) string) (*trace.Recorder, error) {
	if dir == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	out, err := filepath.Abs(m.OutputDir())
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	if rel, err := filepath.Rel(out, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		folder, reserve, err := m.TraceFolder("") // (the --trace folder: the user's, for any client)
		if err != nil {
			return nil, fmt.Errorf("--trace: %w", err)
		}
		return trace.New(trace.Options{Dir: folder, Reserve: reserve, Mask: mask}), nil
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return trace.New(trace.Options{Dir: abs, Mask: mask}), nil
}

// backendKind is the backend chosen and why.
func (a *app) backendKind() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.kind
}

// httpBounds is o with the bounds of a farm when each browser session holds
// a farm browser of its own: a client's browser goes back to the farm
// within seconds of the client leaving (FarmDepartedGrace), and after
// FarmSessionTimeout without a call from a client that left without
// closing its MCP session.
func (a *app) httpBounds(o mcpserver.HTTPOptions) mcpserver.HTTPOptions {
	if a.farm != nil {
		o.DepartedGrace = mcpserver.FarmDepartedGrace
		o.SessionTimeout = mcpserver.FarmSessionTimeout
		o.SessionIdle = mcpserver.FarmSessionTimeout
	}
	return o
}
