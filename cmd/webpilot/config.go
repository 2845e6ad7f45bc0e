package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/bridge"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/opencli"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// Config is webpilot's configuration. Each value comes from, in order of
// precedence, a flag, a WEBPILOT_* environment variable, the .webpilot.json
// file of the working directory, or the default; Sources records which.
type Config struct {
	Backend        string // auto, launch, bridge, endpoint
	BridgePort     int
	BrowserProfile string // the bridge: which connected Chrome profile (name, id or id prefix)
	OutputDir      string
	OutputMaxMB    int
	Recipes        string   // the user's recipe folder ("": <user config dir>/webpilot/recipes)
	CDPEndpoint    string   // ws:// or http:// of a remote browser
	CDPHeaders     []string // "Name: value", sent to the endpoint
	Browser        string
	Headless       string // auto, true, false
	Isolated       bool
	UserDataDir    string
	Prewarm        bool
	Standalone     bool
	Session        string
	Timeout        time.Duration // per-call ceiling
	ActionTimeout  time.Duration
	NavTimeout     time.Duration
	AllowedOrigins []string
	CDPAllow       []string // browser_cdp's allow-list (nil: browser.DefaultCDPAllow)
	HTTPAuth       []string // NAME@origin: that origin's login challenges answered with the secret NAME
	BlockedOrigins []string
	DialogPolicy   string // ask, accept, dismiss
	Approve        string // ask, always (browser.ApproveAsk, ApproveAlways)
	NoRedact       bool   // network output shows credentials as they are
	LogFile        string
	Debug          bool
	Profile        string        // tool profile: core, full
	Caps           string        // capability groups added or removed: +group,-group
	Listen         string        // webpilot serve: host:port of the HTTP transport
	AuthToken      string        // webpilot serve: the bearer token every request needs
	Daemon         bool          // webpilot serve: run as the per-user daemon
	IdleExit       time.Duration // webpilot serve: exit after this long without clients (0: never)
	HealWrite      bool          // recipe_run writes healed locators back into the recipe file
	Secrets        string        // the secrets file: NAME=value lines
	Trace          string        // a folder: every tool call of every session is recorded there, an HTML file per session
	SiteRuns       int           // the site gate: recipe runs and flows at once per site
	SiteQueue      int           // the site gate: runs waiting per site
	SiteWait       time.Duration // the site gate: how long a run waits for its turn

	// ProxyServer, ProxyBypass and IgnoreHTTPSErrors are the launched
	// browser's network settings.
	ProxyServer       string
	ProxyBypass       string
	IgnoreHTTPSErrors bool

	// EndpointPerSession: each browser session opens its own connection to
	// the endpoint, a farm that gives each connection a fresh browser.
	EndpointPerSession bool
	// EndpointWait bounds how long a call waits for a farm that holds its
	// connection in its queue before FARM_FULL (the connection stays queued).
	EndpointWait time.Duration

	// OpenCLIBin and OpenCLIPrefixArgs name the OpenCLI program (and the
	// JSON array of arguments before the site) instead of looking for it.
	OpenCLIBin        string
	OpenCLIPrefixArgs string
	// OpenCLI is the OpenCLI the client runs, once resolved (findOpenCLI,
	// or the daemon from the client's settings); nil: none found, and
	// OpenCLIMissing says where it was looked for.
	OpenCLI        *opencli.Command
	OpenCLIMissing string

	// Sources maps each key to where its value came from: flag, env,
	// file, default.
	Sources map[string]string
	// Raw maps each key not at its default to the text it was given as.
	Raw map[string]string
}

// configKey describes one setting: its flag and file name (snake_case with
// dashes for flags), its default, and how to store it.
type configKey struct {
	name  string // flag name; the file key is name with - → _
	def   string
	usage string
	set   func(c *Config, v string) error
	get   func(c *Config) any
	bool  bool
	// repeat makes the flag repeatable; its values are joined by newlines.
	repeat bool
	// cmd, when set, is the only subcommand that takes the key ("serve");
	// the others neither register its flag nor read its environment.
	cmd string
	// given refuses an empty value given on purpose (a flag, a variable
	// set to "", a file key): an origin list that names nothing.
	given bool
}

func configKeys() []configKey {
	dur := func(dst func(c *Config) *time.Duration) func(c *Config, v string) error {
		return func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil {
				if n, nerr := strconv.Atoi(v); nerr == nil {
					d, err = time.Duration(n)*time.Millisecond, nil
				}
			}
			if err != nil {
				return fmt.Errorf("%q is not a duration (use 10s, 500ms or milliseconds)", v)
			}
			if d <= 0 {
				return fmt.Errorf("must be positive, got %s", v)
			}
			*dst(c) = d
			return nil
		}
	}
	boolean := func(dst func(c *Config) *bool) func(c *Config, v string) error {
		return func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%q is not true or false", v)
			}
			*dst(c) = b
			return nil
		}
	}
	list := func(dst func(c *Config) *[]string) func(c *Config, v string) error {
		return func(c *Config, v string) error {
			var out []string
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
			*dst(c) = out
			return nil
		}
	}
	// origins is list for --allowed-origins and --blocked-origins: a rule
	// that does not parse is refused at start, never silently ignored.
	origins := func(dst func(c *Config) *[]string) func(c *Config, v string) error {
		set := list(dst)
		return func(c *Config, v string) error {
			if err := set(c, v); err != nil {
				return err
			}
			if len(*dst(c)) == 0 {
				// Given, but naming nothing: never read as "no policy".
				return fmt.Errorf("%q names no origin: give at least one, or leave the setting out", v)
			}
			_, err := browser.ParseOriginRules(*dst(c))
			return err
		}
	}
	str := func(dst func(c *Config) *string) func(c *Config, v string) error {
		return func(c *Config, v string) error { *dst(c) = v; return nil }
	}
	return []configKey{
		{name: "backend", def: "auto", usage: "auto (--cdp-endpoint if given, else your Chrome through the extension once paired, else a launched Chromium), launch, bridge or endpoint", set: func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "auto", "launch", "bridge", "endpoint":
				c.Backend = strings.ToLower(v)
				return nil
			}
			return fmt.Errorf("%q is not auto, launch, bridge or endpoint", v)
		}, get: func(c *Config) any { return c.Backend }},
		{name: "dialog-policy", def: "ask", usage: "what happens to a page's alert, confirm, prompt or leave-page dialog: ask (it waits for browser_dialog), accept or dismiss", set: func(c *Config, v string) error {
			v = strings.ToLower(strings.TrimSpace(v))
			if !slices.Contains(browser.DialogPolicies, v) {
				return fmt.Errorf("%q is not ask, accept or dismiss", v)
			}
			c.DialogPolicy = v
			return nil
		}, get: func(c *Config) any { return c.DialogPolicy }},
		{name: "approve", def: "ask", usage: "in your own Chrome (the extension), whether a client asks you before it first uses a site or binds one of your tabs: ask (allow once, always for the site, or deny, in the extension) or always (never ask); a launched or remote browser never asks", set: func(c *Config, v string) error {
			v = strings.ToLower(strings.TrimSpace(v))
			if v != browser.ApproveAsk && v != browser.ApproveAlways {
				return fmt.Errorf("%q is not ask or always", v)
			}
			c.Approve = v
			return nil
		}, get: func(c *Config) any { return c.Approve }},
		{name: "no-redact", def: "false", bool: true, usage: "show credentials in browser_network's output as they are: Authorization, Cookie and Set-Cookie header values and token-like query parameters (token, api_key, sig, …) are redacted by default", set: boolean(func(c *Config) *bool { return &c.NoRedact }), get: func(c *Config) any { return c.NoRedact }},
		{name: "bridge-port", def: "47218", usage: "loopback port the browser extension connects to", set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("%q is not a port number", v)
			}
			c.BridgePort = n
			return nil
		}, get: func(c *Config) any { return c.BridgePort }},
		{name: "browser-profile", usage: "with the bridge: the Chrome (or Edge) profile to use when several have the extension connected: its name (the extension's popup shows it), id or id prefix; default: the only one connected", set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if v != bridge.CleanProfileName(v) {
				return fmt.Errorf("%q is not a profile name (letters, digits, -_. and spaces, at most %d)", v, bridge.MaxProfileNameLen)
			}
			c.BrowserProfile = v
			return nil
		}, get: func(c *Config) any { return c.BrowserProfile }},
		{name: "cdp-endpoint", usage: "a remote browser's CDP endpoint: ws://… or http://host:port (browser farms)", set: func(c *Config, v string) error {
			if !strings.HasPrefix(v, "ws://") && !strings.HasPrefix(v, "wss://") && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
				return fmt.Errorf("%q is not a ws://, wss://, http:// or https:// URL", v)
			}
			c.CDPEndpoint = v
			return nil
		}, get: func(c *Config) any { return redactURL(c.CDPEndpoint) }},
		{name: "cdp-header", repeat: true, usage: "a header for the CDP endpoint, \"Name: value\" (repeat the flag for more; one per line in env or file)", set: func(c *Config, v string) error {
			c.CDPHeaders = nil
			for _, h := range strings.Split(v, "\n") {
				if h = strings.TrimSpace(h); h == "" {
					continue
				}
				name, _, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(name) == "" {
					return fmt.Errorf("%q is not \"Name: value\"", h)
				}
				c.CDPHeaders = append(c.CDPHeaders, h)
			}
			return nil
		}, get: func(c *Config) any { return fmt.Sprintf("%d header(s)", len(c.CDPHeaders)) }},
		{name: "endpoint-per-session", def: "false", bool: true, usage: "with --cdp-endpoint: each browser session opens its own connection to the endpoint, for a browser farm that gives every connection a fresh browser (browserless, Selenium Grid), so N agents drive N remote browsers", set: boolean(func(c *Config) *bool { return &c.EndpointPerSession }), get: func(c *Config) any { return c.EndpointPerSession }},
		{name: "browser", usage: "browser executable (default: discover Chromium/Chrome)", set: str(func(c *Config) *string { return &c.Browser }), get: func(c *Config) any { return c.Browser }},
		{name: "headless", def: "auto", bool: true, usage: "auto (headless when there is no display), true or false; --headless alone means true", set: func(c *Config, v string) error {
			switch strings.ToLower(v) {
			case "auto", "true", "false":
				c.Headless = strings.ToLower(v)
				return nil
			}
			return fmt.Errorf("%q is not auto, true or false", v)
		}, get: func(c *Config) any { return c.Headless }},
		{name: "proxy-server", usage: "a launched browser sends its traffic through this proxy: http://host:port, https://…, socks5://host:port (credentials come from --http-auth, never the URL)", set: func(c *Config, v string) error {
			u, err := url.Parse(v)
			if err != nil || u.Host == "" || u.Port() == "" || !slices.Contains([]string{"http", "https", "socks4", "socks5"}, u.Scheme) {
				return fmt.Errorf("%q is not a proxy: use scheme://host:port with http, https, socks4 or socks5", v)
			}
			if u.User != nil {
				return fmt.Errorf("%q holds credentials: a proxy's password never goes on the command line", v)
			}
			c.ProxyServer = v
			return nil
		}, get: func(c *Config) any { return c.ProxyServer }},
		{name: "proxy-bypass", usage: "comma-separated hosts the proxy is not used for (*.example.com, 10.0.0.0/8; \"<-loopback>\" sends loopback through the proxy too)", set: str(func(c *Config) *string { return &c.ProxyBypass }), get: func(c *Config) any { return c.ProxyBypass }},
		{name: "ignore-https-errors", def: "false", bool: true, usage: "a launched browser loads pages whose certificate does not check (test servers with their own certificates; never for the web)", set: boolean(func(c *Config) *bool { return &c.IgnoreHTTPSErrors }), get: func(c *Config) any { return c.IgnoreHTTPSErrors }},
		{name: "isolated", def: "false", bool: true, usage: "use a temporary profile, removed on exit", set: boolean(func(c *Config) *bool { return &c.Isolated }), get: func(c *Config) any { return c.Isolated }},
		{name: "user-data-dir", usage: "browser profile directory (default: in the user config dir)", set: str(func(c *Config) *string { return &c.UserDataDir }), get: func(c *Config) any { return c.UserDataDir }},
		{name: "prewarm", def: "true", bool: true, usage: "start the browser (launch) or connect (endpoint) as soon as the client initializes, not on the first tool call; --no-prewarm turns it off (never for the bridge: that browser is the user's)", set: boolean(func(c *Config) *bool { return &c.Prewarm }), get: func(c *Config) any { return c.Prewarm }},
		{name: "standalone", def: "false", bool: true, usage: "run everything in this process instead of reaching the per-user daemon (one browser for every MCP host of the user) through it", set: boolean(func(c *Config) *bool { return &c.Standalone }), get: func(c *Config) any { return c.Standalone }},
		{name: "session", def: "default", usage: "default agent session name", set: func(c *Config, v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("must not be empty")
			}
			// The default session obeys the rule for the names agents pass.
			if be, ok := browser.AsError(tools.CheckSessionName(v)); ok {
				return errors.New(be.Message)
			}
			c.Session = v
			return nil
		}, get: func(c *Config) any { return c.Session }},
		{name: "timeout", def: "90s", usage: "ceiling for one tool call", set: dur(func(c *Config) *time.Duration { return &c.Timeout }), get: func(c *Config) any { return c.Timeout.String() }},
		{name: "action-timeout", def: "10s", usage: "how long an action waits for its element", set: dur(func(c *Config) *time.Duration { return &c.ActionTimeout }), get: func(c *Config) any { return c.ActionTimeout.String() }},
		{name: "nav-timeout", def: "30s", usage: "how long a navigation waits for the load", set: dur(func(c *Config) *time.Duration { return &c.NavTimeout }), get: func(c *Config) any { return c.NavTimeout.String() }},
		{name: "allowed-origins", usage: "comma-separated origins or hosts that may be opened (default: all): example.com, *.example.com, example.com:8080, https://example.com; \"file://\" allows local files, \"data:\" data: pages", set: origins(func(c *Config) *[]string { return &c.AllowedOrigins }), get: func(c *Config) any { return c.AllowedOrigins }, given: true},
		{name: "http-auth", usage: "comma-separated NAME@origin: a login challenge (HTTP authentication) of origin, a site's or a proxy's, is answered with the declared secret NAME, whose value is user:password", set: func(c *Config, v string) error {
			if err := list(func(c *Config) *[]string { return &c.HTTPAuth })(c, v); err != nil {
				return err
			}
			if len(c.HTTPAuth) == 0 {
				return fmt.Errorf("%q names no NAME@origin", v)
			}
			for i, e := range c.HTTPAuth {
				name, origin, ok := strings.Cut(e, "@")
				if !ok || name == "" {
					return fmt.Errorf("%q is not NAME@origin (the secret's name, then the origin whose challenges it answers)", e)
				}
				o, err := browser.NormalizeOrigin(origin)
				if err != nil {
					return err
				}
				c.HTTPAuth[i] = name + "@" + o
			}
			return nil
		}, get: func(c *Config) any { return c.HTTPAuth }, given: true},
		{name: "cdp-allow", usage: "comma-separated CDP domains (DOM) and methods (Page.getLayoutMetrics) browser_cdp may send, replacing the default list (" + strings.Join(browser.DefaultCDPAllow, ",") + ")", set: func(c *Config, v string) error {
			if err := list(func(c *Config) *[]string { return &c.CDPAllow })(c, v); err != nil {
				return err
			}
			if len(c.CDPAllow) == 0 {
				return fmt.Errorf("%q names no CDP domain: give at least one, or leave the setting out", v)
			}
			return browser.CheckCDPAllow(c.CDPAllow)
		}, get: func(c *Config) any { return c.CDPAllow }, given: true},
		{name: "blocked-origins", usage: "comma-separated origins or hosts that may not be opened (same forms as --allowed-origins)", set: origins(func(c *Config) *[]string { return &c.BlockedOrigins }), get: func(c *Config) any { return c.BlockedOrigins }, given: true},
		{name: "output-dir", usage: "where large artifacts (full-page screenshots) are saved (default: webpilot-output in the temp dir)", set: str(func(c *Config) *string { return &c.OutputDir }), get: func(c *Config) any { return c.OutputDir }},
		{name: "recipes", usage: "the folder of your recipes (default: webpilot/recipes in the user config dir); a project's ./.webpilot/recipes is used too once trusted (webpilot recipe trust)", set: str(func(c *Config) *string { return &c.Recipes }), get: func(c *Config) any { return c.Recipes }},
		{name: "trace", usage: "record every tool call of every session (arguments, outcome, page, small screenshots) into an HTML file per session in this folder; see webpilot trace show", set: str(func(c *Config) *string { return &c.Trace }), get: func(c *Config) any { return c.Trace }},
		{name: "opencli-bin", usage: "OpenCLI's program, a path or a name on PATH (default: opencli on PATH, then the npm global @jackwener/opencli package)", set: str(func(c *Config) *string { return &c.OpenCLIBin }), get: func(c *Config) any { return c.OpenCLIBin }},
		{name: "opencli-prefix-args", usage: "a JSON array of arguments put before OpenCLI's site and command, with --opencli-bin (node with [\"/path/to/main.js\"])", set: func(c *Config, v string) error {
			var args []string
			if err := json.Unmarshal([]byte(v), &args); err != nil {
				return fmt.Errorf("%q is not a JSON array of strings", v)
			}
			c.OpenCLIPrefixArgs = v
			return nil
		}, get: func(c *Config) any { return c.OpenCLIPrefixArgs }},
		{name: "output-max-mb", def: "100", usage: "budget in MB for what webpilot writes to the output dir (its oldest files go first)", set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("%q is not a positive number of MB", v)
			}
			c.OutputMaxMB = n
			return nil
		}, get: func(c *Config) any { return c.OutputMaxMB }},
		{name: "secrets", usage: "a file of secrets the agent may type by name (secret: NAME) without seeing them: NAME=value lines, NAME@https://site=value to allow one site only; also WEBPILOT_SECRET_<NAME>=value", set: str(func(c *Config) *string { return &c.Secrets }), get: func(c *Config) any { return c.Secrets }},
		{name: "heal-write", def: "false", bool: true, usage: "when recipe_run finds an element through another of its recorded candidates (healed, reidentified), write that locator back into the recipe file (atomically; the previous version kept as .bak)", set: boolean(func(c *Config) *bool { return &c.HealWrite }), get: func(c *Config) any { return c.HealWrite }},
		{name: "site-runs", def: "1", usage: "recipe runs and flows at once on one site (registrable domain), 1 to 16", set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > recipes.MaxGateRuns {
				return fmt.Errorf("%q is not a number from 1 to %d", v, recipes.MaxGateRuns)
			}
			c.SiteRuns = n
			return nil
		}, get: func(c *Config) any { return c.SiteRuns }},
		{name: "site-queue", def: "8", usage: "recipe runs and flows that may wait for a busy site, 1 to 100; more get SITE_BUSY (queue_full)", set: func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > recipes.MaxGateQueue {
				return fmt.Errorf("%q is not a number from 1 to %d", v, recipes.MaxGateQueue)
			}
			c.SiteQueue = n
			return nil
		}, get: func(c *Config) any { return c.SiteQueue }},
		{name: "endpoint-wait", def: endpoint.DefaultWait.String(), usage: "with --cdp-endpoint: how long a call waits for a browser from a farm at capacity before FARM_FULL (its place in the farm's queue is kept for the next call), 1s to 10m, never past the call's own timeout", set: func(c *Config, v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil || d < time.Second || d > 10*time.Minute {
				return fmt.Errorf("%q is not a duration from 1s to 10m0s", v)
			}
			c.EndpointWait = d
			return nil
		}, get: func(c *Config) any { return c.EndpointWait.String() }},
		{name: "site-wait", def: "30s", usage: "how long a recipe run or flow waits for a busy site before SITE_BUSY (queue_timeout), 100ms to 10m", set: func(c *Config, v string) error {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil || d < recipes.MinGateWait || d > recipes.MaxGateWait {
				return fmt.Errorf("%q is not a duration from %v to %v", v, recipes.MinGateWait, recipes.MaxGateWait)
			}
			c.SiteWait = d
			return nil
		}, get: func(c *Config) any { return c.SiteWait.String() }},
		{name: "profile", def: tools.DefaultProfile, usage: "tool profile: core (the everyday tools) or full (every tool)", set: func(c *Config, v string) error {
			v = strings.ToLower(strings.TrimSpace(v))
			if _, err := tools.ProfileGroups(v); err != nil {
				return err
			}
			c.Profile = v
			return nil
		}, get: func(c *Config) any { return c.Profile }},
		{name: "caps", usage: "capability groups to add to or remove from the profile, e.g. +screenshot,-dialogs (groups: " + groupNames() + ")", set: func(c *Config, v string) error {
			caps, err := tools.ParseCaps(v)
			if err != nil {
				return err
			}
			c.Caps = caps.String()
			return nil
		}, get: func(c *Config) any { return c.Caps }},
		{name: "listen", cmd: "serve", def: DefaultListen, usage: "host:port the HTTP transport listens on; an address that is not loopback needs --auth-token", set: func(c *Config, v string) error {
			if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
				return fmt.Errorf("%q is not host:port (e.g. 127.0.0.1:31999)", v)
			}
			c.Listen = v
			return nil
		}, get: func(c *Config) any { return c.Listen }},
		{name: "auth-token", cmd: "serve", usage: fmt.Sprintf("bearer token every HTTP request must carry (Authorization: Bearer …), at least %d characters; required to listen off loopback (prefer WEBPILOT_AUTH_TOKEN: flags show in the process list)", minTokenLen), set: func(c *Config, v string) error {
			if len(v) < minTokenLen {
				return fmt.Errorf("too short: at least %d characters", minTokenLen)
			}
			c.AuthToken = v
			return nil
		}, get: func(c *Config) any {
			if c.AuthToken == "" {
				return ""
			}
			return "(set)"
		}},
		{name: "daemon", cmd: "serve", def: "false", bool: true, usage: "run as the per-user daemon that `webpilot mcp` starts and reaches: a free loopback port and a fresh token, written to the state file in the user config dir; exits after --idle-exit without clients", set: boolean(func(c *Config) *bool { return &c.Daemon }), get: func(c *Config) any { return c.Daemon }},
		{name: "idle-exit", cmd: "serve", usage: "exit after this long without an MCP client, e.g. 10m; 0 never (default: 10m with --daemon, never otherwise)", set: func(c *Config, v string) error {
			if v == "0" {
				c.IdleExit = 0
				return nil
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a duration (e.g. 10m) or 0", v)
			}
			c.IdleExit = d
			return nil
		}, get: func(c *Config) any { return c.IdleExit.String() }},
		{name: "log-file", usage: "also write the log to this file (rotated at 10 MiB, 3 older files kept as FILE.1 … FILE.3)", set: str(func(c *Config) *string { return &c.LogFile }), get: func(c *Config) any { return c.LogFile }},
		{name: "debug", def: "false", bool: true, usage: "log at debug level", set: boolean(func(c *Config) *bool { return &c.Debug }), get: func(c *Config) any { return c.Debug }},
	}
}

// groupNames lists the capability groups for --caps's usage.
func groupNames() string {
	var names []string
	for _, g := range tools.Groups() {
		names = append(names, string(g))
	}
	return strings.Join(names, ", ")
}

// fileForbidden are the keys .webpilot.json may not set: MCP clients start
// webpilot in whatever directory the user works in, so the file there is not
// trusted with the executable to run, the profile to open, a file to append
// to, the remote browser the agent's work (and its credentials) goes to, or
// showing the user's credentials to the agent (no_redact), nor with the
// folder of recipes the user trusts (recipes: a project's own recipes need
// webpilot recipe trust), nor with what would send the browser's traffic
// or the user's logins elsewhere or let a forged certificate pass
// (proxy_server, http_auth, ignore_https_errors), nor with widening raw
// CDP (cdp_allow), nor with the OpenCLI program (opencli_bin,
// opencli_prefix_args: it is run at start for its version).
var fileForbidden = map[string]bool{"browser": true, "user_data_dir": true, "log_file": true, "output_dir": true, "cdp_endpoint": true, "cdp_header": true,
	"endpoint_per_session": true, "recipes": true, "secrets": true, "listen": true, "auth_token": true, "no_redact": true,
	"proxy_server": true, "http_auth": true, "ignore_https_errors": true, "cdp_allow": true,
	"opencli_bin": true, "opencli_prefix_args": true}

// DefaultListen is where webpilot serve listens by default.
const DefaultListen = "127.0.0.1:31999"

// minTokenLen is the shortest --auth-token taken.
const minTokenLen = 16

// takes reports whether the subcommand of fs (named "webpilot NAME") takes
// the key.
func (k configKey) takes(fs *flag.FlagSet) bool {
	return k.cmd == "" || fs.Name() == "webpilot "+k.cmd
}

// envName is the environment variable of a key: WEBPILOT_NAV_TIMEOUT.
func envName(key string) string {
	return "WEBPILOT_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// loadConfig fills a Config from args (already split off the subcommand),
// the environment and the config file in dir ("" for none). Unknown or invalid values are
// errors naming the key and the reason.
func loadConfig(fs *flag.FlagSet, args []string, getenv func(string) string, dir string) (*Config, error) {
	keys := slices.DeleteFunc(configKeys(), func(k configKey) bool { return !k.takes(fs) })
	flagVals := make(map[string]*string)
	for _, k := range keys {
		if k.bool {
			v := new(string)
			fs.Func(k.name, k.usage, func(s string) error { *v = s; return nil })
			fs.Lookup(k.name).DefValue = k.def
			flagVals[k.name] = v
			// -flag with no value means true: register as a bool flag.
			fs.Lookup(k.name).Value = &boolString{v}
			continue
		}
		if k.repeat {
			v := new(string)
			fs.Func(k.name, k.usage, func(s string) error {
				if *v != "" {
					*v += "\n"
				}
				*v += s
				return nil
			})
			flagVals[k.name] = v
			continue
		}
		flagVals[k.name] = fs.String(k.name, k.def, k.usage)
	}
	// Shorthands from DESIGN.md.
	headed := fs.Bool("headed", false, "show the browser window (same as --headless=false)")
	noPrewarm := fs.Bool("no-prewarm", false, "start the browser on the first tool that needs it (same as --prewarm=false)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *headed {
		if set["headless"] && strings.ToLower(*flagVals["headless"]) != "false" {
			return nil, errors.New("--headed and --headless contradict each other")
		}
		*flagVals["headless"] = "false"
		set["headless"] = true
	}
	if *noPrewarm {
		if set["prewarm"] {
			if b, err := strconv.ParseBool(*flagVals["prewarm"]); err != nil || b {
				return nil, errors.New("--no-prewarm and --prewarm contradict each other")
			}
		}
		*flagVals["prewarm"] = "false"
		set["prewarm"] = true
	}

	var file map[string]string
	if dir != "" { // "": no config file (a daemon's recorded settings)
		var err error
		if file, err = readConfigFile(filepath.Join(dir, ".webpilot.json")); err != nil {
			return nil, err
		}
	}
	known := make(map[string]bool)
	for _, k := range configKeys() {
		known[strings.ReplaceAll(k.name, "-", "_")] = true
	}
	for k := range file {
		if k == "opencli" {
			return nil, fmt.Errorf(".webpilot.json: opencli may only be set by flag or environment (--opencli-bin, WEBPILOT_OPENCLI_BIN): a file in the working directory (a cloned repository, say) must not choose the program webpilot runs")
		}
		if !known[k] {
			return nil, fmt.Errorf(".webpilot.json: unknown key %q", k)
		}
		if fileForbidden[k] {
			return nil, fmt.Errorf(".webpilot.json: %s may only be set by flag or environment: a file in the working directory (a cloned repository, say) must not choose the program webpilot runs, where it writes, or where the browser's traffic and the user's logins go", k)
		}
	}

	c := &Config{Sources: make(map[string]string), Raw: make(map[string]string)}
	for _, k := range keys {
		fileKey := strings.ReplaceAll(k.name, "-", "_")
		var v, src string
		switch {
		case set[k.name]:
			v, src = *flagVals[k.name], "flag"
		case getenv(envName(k.name)) != "":
			v, src = getenv(envName(k.name)), "env"
		case file[fileKey] != "":
			v, src = file[fileKey], "file"
		default:
			v, src = k.def, "default"
		}
		if fv, inFile := file[fileKey]; k.given && inFile && fv == "" && src == "default" {
			return nil, fmt.Errorf("%s: an empty list names no origin: give at least one, or leave the key out", sourceName(k.name, "file"))
		}
		if v == "" && k.def == "" {
			if k.given && set[k.name] {
				return nil, fmt.Errorf("%s: an empty value names no origin: give at least one, or leave the flag out", sourceName(k.name, src))
			}
			c.Sources[fileKey] = src
			continue
		}
		if err := k.set(c, v); err != nil {
			return nil, fmt.Errorf("%s: %w", sourceName(k.name, src), err)
		}
		c.Sources[fileKey] = src
		if src != "default" {
			c.Raw[fileKey] = v
		}
	}
	if c.EndpointPerSession {
		where := sourceName("endpoint-per-session", c.Sources["endpoint_per_session"])
		if c.CDPEndpoint == "" {
			return nil, fmt.Errorf("%s needs --cdp-endpoint (a browser farm's ws:// or http:// address): it gives each browser session its own connection to that endpoint", where)
		}
		if c.Backend != "auto" && c.Backend != "endpoint" {
			return nil, fmt.Errorf("%s applies to the endpoint backend only, not --backend %s", where, c.Backend)
		}
	}
	return c, nil
}

// sourceName names where a key's value came from, as the user wrote it:
// --nav-timeout, WEBPILOT_NAV_TIMEOUT, .webpilot.json nav_timeout.
func sourceName(key, src string) string {
	fileKey := strings.ReplaceAll(key, "-", "_")
	return map[string]string{"flag": "--" + key, "env": envName(key), "file": ".webpilot.json " + fileKey, "default": "default " + key}[src]
}

// readConfigFile reads .webpilot.json: an object of snake_case keys whose
// values are strings, booleans, numbers or string arrays.
func readConfigFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case string:
			out[k] = x
		case bool:
			out[k] = strconv.FormatBool(x)
		case float64:
			out[k] = strconv.FormatFloat(x, 'f', -1, 64)
		case []any:
			parts := make([]string, 0, len(x))
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s: %s: list items must be strings", path, k)
				}
				parts = append(parts, s)
			}
			out[k] = strings.Join(parts, ",")
		default:
			return nil, fmt.Errorf("%s: %s: unsupported value %v", path, k, v)
		}
	}
	return out, nil
}

// View lists every setting as "value (source)", for browser_status.
func (c *Config) View() map[string]any {
	out := make(map[string]any)
	for _, k := range configKeys() {
		key := strings.ReplaceAll(k.name, "-", "_")
		if _, ok := c.Sources[key]; !ok {
			continue // a key of another subcommand
		}
		out[key] = fmt.Sprintf("%v (%s)", k.get(c), c.Sources[key])
	}
	return out
}

// keysSorted is for stable help output.
func keysSorted(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// boolString is a flag.Value that behaves as a bool flag (-x means true)
// but keeps the text so the config can parse it with the other sources.
type boolString struct{ v *string }

func (b *boolString) String() string {
	if b == nil || b.v == nil {
		return ""
	}
	return *b.v
}
func (b *boolString) Set(s string) error { *b.v = s; return nil }
func (b *boolString) IsBoolFlag() bool   { return true }

// redactURL hides a URL's password and query values (tokens) for display.
func redactURL(u string) string {
	if u == "" {
		return ""
	}
	return redact.Endpoint(u)
}
