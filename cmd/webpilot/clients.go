package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/opencli"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
)

// What a setting governs decides where it applies when several MCP clients
// share the per-user daemon.
const (
	// kindBrowser settings decide which browser a client needs (and the
	// daemon-wide site gate): clients that differ in one of them cannot
	// share a daemon; the daemon runs with the first one's.
	kindBrowser = "browser"
	// kindClient settings travel with each client's requests and hold for
	// that client's calls and sessions only.
	kindClient = "client"
	// kindProcess settings belong to the process they are given to (the
	// proxy, or the daemon's transport); the session and browser profile
	// travel as headers of their own (mcpserver.SessionHeader,
	// mcpserver.BrowserProfileHeader).
	kindProcess = "process"
)

// settingKinds maps each key (file form) to what it governs. A key of
// configKeys missing here is a programming error (TestSettingKinds).
var settingKinds = map[string]string{
	"backend": kindBrowser, "bridge_port": kindBrowser, "browser": kindBrowser, "headless": kindBrowser,
	"isolated": kindBrowser, "user_data_dir": kindBrowser, "cdp_endpoint": kindBrowser, "cdp_header": kindBrowser,
	"endpoint_per_session": kindBrowser, "endpoint_wait": kindBrowser, "site_runs": kindBrowser, "site_queue": kindBrowser, "site_wait": kindBrowser,
	"proxy_server": kindBrowser, "proxy_bypass": kindBrowser, "ignore_https_errors": kindBrowser,
	// The proxy resolves OpenCLI in its own environment and sends the
	// result (clientSettings.OpenCLI).
	"opencli_bin": kindProcess, "opencli_prefix_args": kindProcess,

	"allowed_origins": kindClient, "blocked_origins": kindClient, "profile": kindClient, "caps": kindClient,
	"timeout": kindClient, "action_timeout": kindClient, "nav_timeout": kindClient, "output_dir": kindClient,
	"output_max_mb": kindClient, "secrets": kindClient, "recipes": kindClient, "dialog_policy": kindClient, "approve": kindClient, "cdp_allow": kindClient, "http_auth": kindClient,
	"no_redact": kindClient, "heal_write": kindClient, "trace": kindClient, "prewarm": kindClient,

	"session": kindProcess, "browser_profile": kindProcess, "standalone": kindProcess, "log_file": kindProcess,
	"debug": kindProcess, "daemon": kindProcess, "idle_exit": kindProcess, "listen": kindProcess, "auth_token": kindProcess,
}

// pathKeys are settings that name files: a proxy makes them absolute
// before handing them to the daemon, which runs in another directory.
var pathKeys = map[string]bool{"user_data_dir": true, "output_dir": true, "browser": true, "secrets": true, "trace": true, "recipes": true}

// absSetting is v with a relative path made absolute for a path key.
func absSetting(k, v string) string {
	if pathKeys[k] && v != "" && strings.ContainsRune(v, filepath.Separator) && !filepath.IsAbs(v) {
		if abs, err := filepath.Abs(v); err == nil {
			return abs
		}
	}
	return v
}

// browserSettings are cfg's browser settings not at their default (key →
// text): what a daemon must run with to serve cfg's client.
func browserSettings(cfg *Config) map[string]string {
	out := make(map[string]string)
	for k, v := range cfg.Raw {
		if settingKinds[k] == kindBrowser {
			out[k] = absSetting(k, v)
		}
	}
	return out
}

// clientSettingsVersion is the format of the settings header.
const clientSettingsVersion = 1

// setting is one value of the settings header and where the client got it.
type setting struct {
	V   string `json:"v"`
	Src string `json:"src"`
}

// clientSettings is what the stdio proxy tells the daemon about its
// client, in mcpserver.SettingsHeader (base64url JSON).
type clientSettings struct {
	V int `json:"v"`
	// Settings are the client's own settings not at their default.
	Settings map[string]setting `json:"settings"`
	// Browser are its browser settings not at their default, to tell a
	// client that needs another browser.
	Browser map[string]setting `json:"browser"`
	// EnvSecrets are the client's WEBPILOT_SECRET_<NAME>=value entries.
	EnvSecrets []string `json:"env_secrets,omitempty"`
	// Workdir is the client's working directory: its uploads and project
	// recipes.
	Workdir string `json:"workdir"`
	// Headless is what the client's headless setting means where it runs
	// (auto: no display), so that auto and true agree on a machine
	// without one.
	Headless bool `json:"headless_effective"`
	// OpenCLI is the OpenCLI the client found in its own environment (its
	// PATH, its WEBPILOT_OPENCLI_BIN); nil: none, and OpenCLIMissing says
	// where it looked.
	OpenCLI        *opencli.Command `json:"opencli,omitempty"`
	OpenCLIMissing string           `json:"opencli_missing,omitempty"`
}

// encodeClientSettings is the settings header of cfg's client (environ is
// its environment, for its secrets).
func encodeClientSettings(cfg *Config, environ []string) (string, error) {
	cs := clientSettings{V: clientSettingsVersion, Settings: map[string]setting{}, Browser: map[string]setting{}}
	for k, v := range cfg.Raw {
		switch settingKinds[k] {
		case kindClient:
			cs.Settings[k] = setting{absSetting(k, v), cfg.Sources[k]}
		case kindBrowser:
			cs.Browser[k] = setting{absSetting(k, v), cfg.Sources[k]}
		}
	}
	for _, kv := range environ {
		if strings.HasPrefix(kv, secrets.EnvPrefix) {
			cs.EnvSecrets = append(cs.EnvSecrets, kv)
		}
	}
	slices.Sort(cs.EnvSecrets)
	cs.Workdir, _ = os.Getwd()
	cs.Headless = headless(cfg.Headless, os.Getenv)
	if err := findOpenCLI(cfg); err != nil {
		return "", err
	}
	cs.OpenCLI, cs.OpenCLIMissing = cfg.OpenCLI, cfg.OpenCLIMissing
	b, err := json.Marshal(cs)
	if err != nil {
		return "", fmt.Errorf("encode this client's settings: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeClientSettings reads a settings header; its errors never hold a
// value (a secret may be among them).
func decodeClientSettings(raw string) (clientSettings, error) {
	var cs clientSettings
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return cs, fmt.Errorf("not base64url")
	}
	if err := json.Unmarshal(b, &cs); err != nil {
		return cs, fmt.Errorf("not the settings JSON")
	}
	if cs.V != clientSettingsVersion {
		return cs, fmt.Errorf("settings format %d, this daemon (version %s) reads %d: restart the MCP client so that its webpilot and the daemon match", cs.V, version, clientSettingsVersion)
	}
	for k := range cs.Settings {
		if settingKinds[k] != kindClient {
			return cs, fmt.Errorf("%q is not a client setting this daemon (version %s) knows", k, version)
		}
	}
	for k := range cs.Browser {
		if settingKinds[k] != kindBrowser {
			return cs, fmt.Errorf("%q is not a browser setting this daemon (version %s) knows", k, version)
		}
	}
	for _, kv := range cs.EnvSecrets {
		if !strings.HasPrefix(kv, secrets.EnvPrefix) {
			return cs, fmt.Errorf("env_secrets: an entry is not %s<NAME>=value", secrets.EnvPrefix)
		}
	}
	if cs.Workdir != "" && !filepath.IsAbs(cs.Workdir) {
		return cs, fmt.Errorf("workdir is not an absolute path")
	}
	if cs.OpenCLI != nil && !filepath.IsAbs(cs.OpenCLI.Path) {
		return cs, fmt.Errorf("opencli: the program's path is not absolute")
	}
	return cs, nil
}

// clientConfig is the Config a client's settings make: the defaults, with
// the client's own settings, and the browser settings of base (the
// daemon's: the browser the client gets). Sources say "flag (client)" and
// the like.
func clientConfig(base *Config, cs clientSettings) (*Config, error) {
	c := &Config{Sources: make(map[string]string), Raw: make(map[string]string)}
	for _, k := range configKeys() {
		key := strings.ReplaceAll(k.name, "-", "_")
		if k.cmd != "" {
			continue
		}
		v, src := k.def, "default"
		switch settingKinds[key] {
		case kindClient:
			if s, ok := cs.Settings[key]; ok {
				v, src = s.V, s.Src+" (client)"
			}
		case kindBrowser, kindProcess:
			if bs, ok := base.Raw[key]; ok {
				v, src = bs, base.Sources[key]+" (daemon)"
			}
		}
		if v == "" && k.def == "" {
			c.Sources[key] = src
			continue
		}
		if err := k.set(c, v); err != nil {
			if key == "secrets" {
				return nil, fmt.Errorf("%s: invalid", key)
			}
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		c.Sources[key] = src
		if src != "default" {
			c.Raw[key] = v
		}
	}
	// The daemon's resolved browser facts (the profile folder it chose).
	c.UserDataDir, c.Sources["user_data_dir"] = base.UserDataDir, base.Sources["user_data_dir"]+" (daemon)"
	return c, nil
}

// browserConflict describes how a client's browser settings differ from
// the daemon's (base), or is "" when they do not.
func browserConflict(base *Config, cs clientSettings) string {
	show := func(k, v string) string {
		switch k {
		case "cdp_header":
			return fmt.Sprintf("%d header(s)", len(strings.Split(v, "\n")))
		case "cdp_endpoint":
			return redactURL(v)
		}
		return v
	}
	def := make(map[string]string)
	for _, k := range configKeys() {
		def[strings.ReplaceAll(k.name, "-", "_")] = k.def
	}
	var diffs []string
	keys := make([]string, 0, len(settingKinds))
	for k, kind := range settingKinds {
		if kind == kindBrowser {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	// Both on the same CDP endpoint: no browser is launched, so the
	// launch's settings choose nothing.
	bothEndpoint := usesEndpoint(base.Raw["backend"], base.CDPEndpoint) &&
		usesEndpoint(cs.Browser["backend"].V, cs.Browser["cdp_endpoint"].V)
	for _, k := range keys {
		if k == "headless" && cs.Headless == headless(base.Headless, os.Getenv) {
			continue // the same window mode, however each wrote it
		}
		if bothEndpoint && launchOnly[k] {
			continue
		}
		mine, mineOK := cs.Browser[k]
		theirs, theirsOK := base.Raw[k]
		if !mineOK {
			mine = setting{def[k], "default"}
		}
		if !theirsOK {
			theirs = def[k]
		}
		if mine.V == absSetting(k, theirs) || mine.V == theirs {
			continue
		}
		theirsShown := show(k, theirs)
		if !theirsOK {
			theirsShown += " (default)"
		}
		diffs = append(diffs, fmt.Sprintf("%s: %s here (%s), %s in the daemon", k, show(k, mine.V), sourceName(strings.ReplaceAll(k, "_", "-"), mine.Src), theirsShown))
	}
	return strings.Join(diffs, "; ")
}

// launchOnly are the browser settings of a browser webpilot launches
// (or of the bridge): with a CDP endpoint they choose nothing.
var launchOnly = map[string]bool{"browser": true, "headless": true, "isolated": true, "user_data_dir": true,
	"proxy_server": true, "proxy_bypass": true, "ignore_https_errors": true, "bridge_port": true}

// usesEndpoint says a backend setting ("" for the default, auto) and an
// endpoint make the endpoint backend.
func usesEndpoint(backend, endpoint string) bool {
	return endpoint != "" && (backend == "" || backend == "auto" || backend == "endpoint")
}

// conflictError is what a client that needs another browser gets on every
// call but browser_status.
func conflictError(diff string, pid int, started time.Time) *browser.Error {
	return &browser.Error{Code: browser.CodeNoBrowser,
		Message:     fmt.Sprintf("this client asked for another browser than the one the running webpilot daemon (pid %d, up since %s) drives for the other MCP clients: %s; nothing was done", pid, started.Local().Format("15:04:05"), diff),
		Hint:        "give this client the same browser settings as the others; or close the other MCP clients that use webpilot (`webpilot daemon status` lists them) and restart this one, so that the daemon starts again with its settings; or run this client with --standalone (with its own --user-data-dir or --isolated: one browser profile takes one browser)",
		Suggestions: []string{"webpilot daemon status", "webpilot mcp --standalone"}}
}

// daemonClient makes the mcpserver.Client of a settings header: the
// client's tools, policy, limits, secrets, recipes and trace; a client
// that needs another browser gets a Conflict.
func (a *app) daemonClient(raw string) (*mcpserver.Client, error) {
	cs, err := decodeClientSettings(raw)
	if err != nil {
		return nil, err
	}
	ccfg, err := clientConfig(a.cfg, cs)
	if err != nil {
		return nil, err
	}
	// The client's OpenCLI, found where the client runs.
	ccfg.OpenCLI, ccfg.OpenCLIMissing = cs.OpenCLI, cs.OpenCLIMissing
	if ccfg.OpenCLI == nil && ccfg.OpenCLIMissing == "" {
		ccfg.OpenCLIMissing = "this client did not say (an older webpilot)"
	}
	sec, err := secrets.Load(ccfg.Secrets, cs.EnvSecrets)
	if err != nil {
		// Load's errors name files, lines and names, never values.
		return nil, err
	}
	c, err := a.clientParts(ccfg, cs.Workdir, sec)
	if err != nil {
		return nil, err
	}
	if diff := browserConflict(a.cfg, cs); diff != "" {
		c.Conflict = conflictError(diff, os.Getpid(), a.started)
	}
	a.log.Info("client settings", "profile", ccfg.Profile, "caps", ccfg.Caps, "allowed_origins", strings.Join(ccfg.AllowedOrigins, ","),
		"blocked_origins", strings.Join(ccfg.BlockedOrigins, ","), "secrets", strings.Join(sec.Names(), ","), "conflict", c.Conflict != nil)
	return c, nil
}
