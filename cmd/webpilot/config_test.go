package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/opencli"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// load runs loadConfig with a fresh flag set, env as the whole environment
// and file (when not empty) as .webpilot.json.
func load(t *testing.T, args []string, env map[string]string, file string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	if file != "" {
		if err := os.WriteFile(filepath.Join(dir, ".webpilot.json"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := flag.NewFlagSet("webpilot test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return loadConfig(fs, args, func(k string) string { return env[k] }, dir)
}

func mustLoad(t *testing.T, args []string, env map[string]string, file string) *Config {
	t.Helper()
	c, err := load(t, args, env, file)
	if err != nil {
		t.Fatalf("loadConfig(%v, %v, %s): %v", args, env, file, err)
	}
	return c
}

func TestConfigDefaults(t *testing.T) {
	c := mustLoad(t, nil, nil, "")
	if c.Headless != "auto" || c.Isolated || !c.Prewarm || c.Debug || c.Session != "default" ||
		c.Timeout != 90*time.Second || c.ActionTimeout != 10*time.Second || c.NavTimeout != 30*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	n := 0
	for _, k := range configKeys() {
		if k.cmd != "" {
			continue // another subcommand's (serve)
		}
		n++
		key := strings.ReplaceAll(k.name, "-", "_")
		if c.Sources[key] != "default" {
			t.Errorf("source of %s = %q, want default", key, c.Sources[key])
		}
	}
	if v := c.View(); len(v) != n {
		t.Errorf("View lists %d keys, want %d", len(v), n)
	}
}

// A flag beats the environment, which beats .webpilot.json, which beats the
// default; Sources records which one won for each key.
func TestConfigPrecedence(t *testing.T) {
	file := `{
		"nav_timeout": "5s", "action_timeout": 3000, "headless": "true", "session": "from-file",
		"isolated": true, "allowed_origins": ["a.example", "b.example"], "timeout": "20s", "debug": false
	}`
	env := map[string]string{
		"WEBPILOT_NAV_TIMEOUT": "7s",
		"WEBPILOT_SESSION":     "from-env",
		"WEBPILOT_TIMEOUT":     "40s",
		"WEBPILOT_DEBUG":       "", // empty counts as unset
	}
	args := []string{"--nav-timeout=9s", "--isolated=false", "-prewarm", "--timeout", "60s"}
	env["WEBPILOT_PREWARM"] = "false"
	c := mustLoad(t, args, env, file)
	for _, w := range []struct {
		key, src  string
		got, want any
	}{
		{"nav_timeout", "flag", c.NavTimeout, 9 * time.Second},       // flag > env > file
		{"timeout", "flag", c.Timeout, 60 * time.Second},             // flag > env > file
		{"isolated", "flag", c.Isolated, false},                      // flag false beats file true
		{"prewarm", "flag", c.Prewarm, true},                         // a bare bool flag beats env
		{"session", "env", c.Session, "from-env"},                    // env > file
		{"headless", "file", c.Headless, "true"},                     // file > default
		{"action_timeout", "file", c.ActionTimeout, 3 * time.Second}, // a number is milliseconds
		{"allowed_origins", "file", c.AllowedOrigins, []string{"a.example", "b.example"}},
		{"debug", "file", c.Debug, false},
		{"blocked_origins", "default", c.BlockedOrigins, []string(nil)},
		{"browser", "default", c.Browser, ""},
	} {
		if !reflect.DeepEqual(w.got, w.want) {
			t.Errorf("%s = %#v, want %#v", w.key, w.got, w.want)
		}
		if c.Sources[w.key] != w.src {
			t.Errorf("source of %s = %q, want %q", w.key, c.Sources[w.key], w.src)
		}
	}
	// browser_status shows each value with its source.
	if view := fmt.Sprint(c.View()["nav_timeout"]); !strings.Contains(view, "9s") || !strings.Contains(view, "flag") {
		t.Errorf("View nav_timeout = %s, want the value 9s and the source flag", view)
	}
}

// The tool profile and caps come from flag, environment or file like every
// key, and choose the tools the server lists.
// An origin policy switches browser_eval and browser_cdp off unless they
// are switched on by name: page code and raw CDP can send requests to any
// origin.
func TestOriginPolicyTurnsEvalOff(t *testing.T) {
	for _, c := range []struct {
		name          string
		args          []string
		evalOn, cdpOn bool
		note          string // what the note names ("": no note)
	}{
		{"no policy", []string{"--profile=full"}, true, true, ""},
		{"allowed origins", []string{"--profile=full", "--allowed-origins=example.com"}, false, false, "browser_eval and browser_cdp are off"},
		{"blocked origins, other caps", []string{"--profile=full", "--blocked-origins=evil.test", "--caps=-tabs"}, false, false, "--caps +eval,+cdp"},
		{"policy and +eval", []string{"--profile=full", "--allowed-origins=example.com", "--caps=+eval"}, true, false, "browser_cdp is off"},
		{"policy, +eval and +cdp", []string{"--profile=full", "--allowed-origins=example.com", "--caps=+eval,+cdp"}, true, true, ""},
		{"policy, +eval then -eval", []string{"--allowed-origins=example.com", "--caps=+eval,-eval"}, false, false, "browser_eval and browser_cdp are off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustLoad(t, c.args, nil, "")
			caps, note := effectiveCaps(cfg)
			sel, err := tools.Select(cfg.Profile, caps)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(sel.Names(), "browser_eval"); got != c.evalOn {
				t.Errorf("browser_eval active = %v with caps %q", got, caps)
			}
			if got := slices.Contains(sel.Names(), "browser_cdp"); got != c.cdpOn {
				t.Errorf("browser_cdp active = %v with caps %q", got, caps)
			}
			if (note == "") != (c.note == "") || !strings.Contains(note, c.note) {
				t.Errorf("note %q, want one saying %q", note, c.note)
			}
		})
	}
	// With OpenCLI found, its adapters go off too: they reach any site.
	for _, c := range []struct {
		args []string
		on   bool
		note string
	}{
		{[]string{"--allowed-origins=example.com"}, false, "browser_eval, browser_cdp and the opencli tools are off: an origin policy is set, and code run in a page, raw CDP or an OpenCLI adapter can send requests to any origin; --caps +eval,+cdp,+opencli"},
		{[]string{"--allowed-origins=example.com", "--caps=+opencli"}, true, "browser_eval and browser_cdp are off"},
		{nil, true, ""},
	} {
		cfg := mustLoad(t, c.args, nil, "")
		cfg.OpenCLI = &opencli.Command{Path: "/usr/bin/opencli", Source: "test"}
		caps, note := effectiveCaps(cfg)
		sel, err := tools.Select(cfg.Profile, caps, tools.GroupOpenCLI)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(sel.Names(), "opencli_run"); got != c.on || (note == "") != (c.note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%v with OpenCLI: opencli_run active %v, note %q; want %v, %q", c.args, got, note, c.on, c.note)
		}
	}
}

func TestConfigTools(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []string
		env      map[string]string
		file     string
		profile  string
		caps     string
		src      string // source of caps
		excluded []string
	}{
		// The core profile leaves browser_network and browser_download
		// and browser_console (groups network, downloads, console) and browser_handoff (handoff) out.
		{"defaults", nil, nil, "", "core", "", "default", []string{"browser_network", "browser_console", "browser_download", "browser_handoff", "recipe_list", "recipe_run", "recipe_record", "recipe_save", "browser_pdf", "browser_cdp", "browser_mouse", "browser_emulate", "browser_screencast", "browser_storage", "browser_route"}},
		{"flags", []string{"--profile=full", "--caps=-screenshot,-dialogs"}, nil, "", "full", "-screenshot,-dialogs", "flag", []string{"browser_screenshot", "browser_dialog"}},
		{"env", nil, map[string]string{"WEBPILOT_PROFILE": "Full", "WEBPILOT_CAPS": "-tabs"}, "", "full", "-tabs", "env", []string{"browser_tabs"}},
		{"file", nil, nil, `{"profile": "core", "caps": "-forms"}`, "core", "-forms", "file", []string{"browser_fill_form", "browser_network", "browser_console", "browser_download", "browser_handoff", "recipe_list", "recipe_run", "recipe_record", "recipe_save", "browser_pdf", "browser_cdp", "browser_mouse", "browser_emulate", "browser_screencast", "browser_storage", "browser_route"}},
		{"flag over env", []string{"--caps=+tabs"}, map[string]string{"WEBPILOT_CAPS": "-tabs"}, "", "core", "+tabs", "flag", []string{"browser_network", "browser_console", "browser_download", "browser_handoff", "recipe_list", "recipe_run", "recipe_record", "recipe_save", "browser_pdf", "browser_cdp", "browser_mouse", "browser_emulate", "browser_screencast", "browser_storage", "browser_route"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustLoad(t, c.args, c.env, c.file)
			if cfg.Profile != c.profile || cfg.Caps != c.caps || cfg.Sources["caps"] != c.src {
				t.Errorf("profile %q, caps %q from %s; want %q, %q from %s", cfg.Profile, cfg.Caps, cfg.Sources["caps"], c.profile, c.caps, c.src)
			}
			// (as with OpenCLI found: its tools join every profile)
			sel, err := tools.Select(cfg.Profile, cfg.Caps, tools.GroupOpenCLI)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(sel.Tools), len(tools.Table())-len(c.excluded); got != want {
				t.Errorf("%d tools active (%v), want %d", got, sel.Names(), want)
			}
			for _, n := range c.excluded {
				if slices.Contains(sel.Names(), n) {
					t.Errorf("%s is active with caps %q", n, cfg.Caps)
				}
			}
		})
	}
}

func TestConfigHeaded(t *testing.T) {
	c := mustLoad(t, []string{"--headed"}, map[string]string{"WEBPILOT_HEADLESS": "true"}, "")
	if c.Headless != "false" || c.Sources["headless"] != "flag" {
		t.Errorf("--headed: headless %q from %s", c.Headless, c.Sources["headless"])
	}
	if _, err := load(t, []string{"--headed", "--headless=true"}, nil, ""); err == nil {
		t.Error("--headed with --headless: no error")
	}
	c = mustLoad(t, nil, map[string]string{"WEBPILOT_HEADLESS": "FALSE"}, "")
	if c.Headless != "false" || c.Sources["headless"] != "env" {
		t.Errorf("WEBPILOT_HEADLESS=FALSE: headless %q from %s", c.Headless, c.Sources["headless"])
	}
}

// Invalid values are refused with the key (as the user wrote it) and the
// reason.
func TestConfigInvalid(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		file string
		want []string // all in the error
	}{
		{"duration flag", []string{"--nav-timeout=abc"}, nil, "", []string{"--nav-timeout", "abc"}},
		{"zero duration", []string{"--timeout=0"}, nil, "", []string{"--timeout", "positive"}},
		{"negative duration in env", nil, map[string]string{"WEBPILOT_ACTION_TIMEOUT": "-1s"}, "", []string{"WEBPILOT_ACTION_TIMEOUT"}},
		{"headless env", nil, map[string]string{"WEBPILOT_HEADLESS": "maybe"}, "", []string{"WEBPILOT_HEADLESS", "maybe"}},
		{"origin with a path", []string{"--blocked-origins=example.com,https://x.test/admin"}, nil, "", []string{"--blocked-origins", "https://x.test/admin", "no path"}},
		{"origin with a bad port", nil, map[string]string{"WEBPILOT_ALLOWED_ORIGINS": "127.0.0.1:99999"}, "", []string{"WEBPILOT_ALLOWED_ORIGINS", "1-65535"}},
		{"origin in the file", nil, nil, `{"allowed_origins": ["ftp://a.example"]}`, []string{"allowed_origins", "ftp://a.example"}},
		{"origin list of commas", []string{"--allowed-origins", ","}, nil, "", []string{"--allowed-origins", "names no origin"}},
		{"empty origin list", []string{"--allowed-origins="}, nil, "", []string{"--allowed-origins", "names no origin"}},
		{"origin list of spaces in env", nil, map[string]string{"WEBPILOT_ALLOWED_ORIGINS": " , "}, "", []string{"WEBPILOT_ALLOWED_ORIGINS", "names no origin"}},
		{"empty blocked list in the file", nil, nil, `{"blocked_origins": [","]}`, []string{"blocked_origins", "names no origin"}},
		{"empty allowed list in the file", nil, nil, `{"allowed_origins": []}`, []string{"allowed_origins", "names no origin"}},
		{"session name in env", nil, map[string]string{"WEBPILOT_SESSION": "my agent/1"}, "", []string{"WEBPILOT_SESSION", "not a valid session name"}},
		{"bool env", nil, map[string]string{"WEBPILOT_ISOLATED": "yes please"}, "", []string{"WEBPILOT_ISOLATED"}},
		{"bool flag", []string{"--prewarm=sometimes"}, nil, "", []string{"--prewarm", "sometimes"}},
		{"empty session flag", []string{"--session="}, nil, "", []string{"--session", "empty"}},
		{"unknown key in file", nil, nil, `{"colour": "blue"}`, []string{".webpilot.json", "colour"}},
		{"flag name in file", nil, nil, `{"nav-timeout": "5s"}`, []string{"nav-timeout"}},
		{"bad value in file", nil, nil, `{"nav_timeout": "soon"}`, []string{"nav_timeout", "soon"}},
		{"bad list in file", nil, nil, `{"allowed_origins": ["a", 1]}`, []string{"allowed_origins"}},
		{"object in file", nil, nil, `{"browser": {"path": "x"}}`, []string{"browser"}},
		{"file not JSON", nil, nil, `nav_timeout = 5s`, []string{".webpilot.json"}},
		{"browser in file", nil, nil, `{"browser": "./pwn.sh"}`, []string{".webpilot.json", "browser", "flag or environment"}},
		{"profile in file", nil, nil, `{"user_data_dir": "/home/me/.config/google-chrome"}`, []string{"user_data_dir"}},
		{"log file in file", nil, nil, `{"log_file": "/home/me/.bashrc"}`, []string{"log_file"}},
		{"no redact in file", nil, nil, `{"no_redact": true}`, []string{".webpilot.json", "no_redact", "flag or environment"}},
		{"recipes in file", nil, nil, `{"recipes": "./my-recipes"}`, []string{".webpilot.json", "recipes", "flag or environment"}},
		{"unknown profile", []string{"--profile=tiny"}, nil, "", []string{"--profile", "tiny", "core or full"}},
		{"unknown group in caps", nil, map[string]string{"WEBPILOT_CAPS": "+screenshot,+telepathy"}, "", []string{"WEBPILOT_CAPS", "telepathy", "core, forms, wait, read, eval, flow, tabs, screenshot, dialogs, network"}},
		{"unknown group in the file", nil, nil, `{"caps": "-teleport"}`, []string{"caps", "teleport"}},
		{"unknown flag", []string{"--colour=blue"}, nil, "", []string{"colour"}},
		{"positional argument", []string{"extra"}, nil, "", []string{"extra"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, c.args, c.env, c.file)
			if err == nil {
				t.Fatalf("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestRunVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"version"}, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("version: %v", err)
	}
	if got, want := out.String(), "webpilot "+version+"\n"; got != want {
		t.Errorf("version printed %q, want %q", got, want)
	}
	if errb.Len() != 0 {
		t.Errorf("version wrote to stderr: %q", errb.String())
	}
}

// Command lines that cannot be understood exit with status 2 and say why;
// help exits 0.
func TestRunUsage(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		mention string
	}{
		{"unknown command", []string{"serve-coffee"}, 2, "serve-coffee"},
		{"no command", nil, 2, "no command"},
		{"bad flag value", []string{"mcp", "--nav-timeout=abc"}, 2, "--nav-timeout"},
		{"unknown flag", []string{"mcp", "--colour"}, 2, "colour"},
		{"bad demo flag", []string{"demo", "--headless=maybe"}, 2, "--headless"},
		{"bad session name", []string{"mcp", "--session", "my session"}, 2, "--session"},
		{"session name too long", []string{"mcp", "--session=" + strings.Repeat("s", 65)}, 2, "64"},
		{"mcp help", []string{"mcp", "-h"}, 0, ""},
		{"help", []string{"help"}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), c.args, strings.NewReader(""), &out, &errb)
			if c.code == 2 && !errors.Is(err, errUsage) {
				t.Errorf("run(%q) = %v, want an errUsage", c.args, err)
			}
			var exitErr bytes.Buffer
			if got := exitCode(err, &exitErr); got != c.code {
				t.Errorf("exit code %d, want %d (err %v)", got, c.code, err)
			}
			if c.mention != "" && !strings.Contains(exitErr.String(), c.mention) {
				t.Errorf("exit message %q does not mention %q", exitErr.String(), c.mention)
			}
			if c.code == 0 && !strings.Contains(out.String()+errb.String(), "Usage") && !strings.Contains(out.String()+errb.String(), "-nav-timeout") {
				t.Errorf("help printed no usage:\n%s%s", out.String(), errb.String())
			}
		})
	}
	if got := exitCode(errors.New("boom"), io.Discard); got != 1 {
		t.Errorf("exit code of a failure = %d, want 1", got)
	}
	if got := exitCode(nil, io.Discard); got != 0 {
		t.Errorf("exit code of success = %d, want 0", got)
	}
}

// Prewarm is on by default; --no-prewarm, --prewarm=false and
// WEBPILOT_PREWARM=false turn it off, and --no-prewarm beats the environment.
func TestConfigNoPrewarm(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want bool
		src  string
	}{
		{nil, nil, true, "default"},
		{[]string{"--no-prewarm"}, nil, false, "flag"},
		{[]string{"--prewarm=false"}, nil, false, "flag"},
		{[]string{"--prewarm"}, nil, true, "flag"},
		{nil, map[string]string{"WEBPILOT_PREWARM": "false"}, false, "env"},
		{[]string{"--no-prewarm"}, map[string]string{"WEBPILOT_PREWARM": "true"}, false, "flag"},
		{[]string{"--no-prewarm", "--prewarm=false"}, nil, false, "flag"},
	} {
		got := mustLoad(t, c.args, c.env, "")
		if got.Prewarm != c.want || got.Sources["prewarm"] != c.src {
			t.Errorf("%v %v: prewarm = %v (%s), want %v (%s)", c.args, c.env, got.Prewarm, got.Sources["prewarm"], c.want, c.src)
		}
	}
	if _, err := load(t, []string{"--no-prewarm", "--prewarm"}, nil, ""); err == nil {
		t.Error("--no-prewarm --prewarm: no error")
	}
}

// Network output is redacted unless --no-redact or WEBPILOT_NO_REDACT says
// otherwise.
func TestConfigNoRedact(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want bool
		src  string
	}{
		{nil, nil, false, "default"},
		{[]string{"--no-redact"}, nil, true, "flag"},
		{[]string{"--no-redact=false"}, map[string]string{"WEBPILOT_NO_REDACT": "true"}, false, "flag"},
		{nil, map[string]string{"WEBPILOT_NO_REDACT": "true"}, true, "env"},
		{nil, map[string]string{"WEBPILOT_NO_REDACT": "1"}, true, "env"},
	} {
		got := mustLoad(t, c.args, c.env, "")
		if got.NoRedact != c.want || got.Sources["no_redact"] != c.src {
			t.Errorf("%v %v: no_redact = %v (%s), want %v (%s)", c.args, c.env, got.NoRedact, got.Sources["no_redact"], c.want, c.src)
		}
	}
}

func TestConfigBrowserProfileIsPerClient(t *testing.T) {
	c := mustLoad(t, []string{"--browser-profile", "Edge Work"}, nil, "")
	if c.BrowserProfile != "Edge Work" {
		t.Errorf("--browser-profile = %q", c.BrowserProfile)
	}
	if e := mustLoad(t, nil, map[string]string{"WEBPILOT_BROWSER_PROFILE": "chrome-1a2b"}, ""); e.BrowserProfile != "chrome-1a2b" {
		t.Errorf("WEBPILOT_BROWSER_PROFILE = %q", e.BrowserProfile)
	}
	// A proxy sends it per client: two proxies with different profiles
	// share one daemon.
	plain := mustLoad(t, nil, nil, "")
	if _, ok := browserSettings(c)["browser_profile"]; ok || fingerprint(browserSettings(c)) != fingerprint(browserSettings(plain)) {
		t.Errorf("browser_profile is a browser setting of the daemon (%v): it must not retire it", browserSettings(c))
	}
	for _, bad := range []string{"a/b", "x<y", strings.Repeat("n", 65)} {
		if _, err := load(t, []string{"--browser-profile", bad}, nil, ""); err == nil {
			t.Errorf("--browser-profile %q was taken", bad)
		}
	}
}

// --trace (WEBPILOT_TRACE) is a folder: the daemon gets it with the
// client's settings, absolute, as the proxy's working directory resolves
// it.
func TestTraceSetting(t *testing.T) {
	c := mustLoad(t, nil, map[string]string{"WEBPILOT_TRACE": "traces/here"}, "")
	if c.Trace != "traces/here" || c.Sources["trace"] != "env" {
		t.Fatalf("trace %q from %s", c.Trace, c.Sources["trace"])
	}
	want, err := filepath.Abs("traces/here")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := encodeClientSettings(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := decodeClientSettings(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.Settings["trace"]; got.V != want || got.Src != "env" {
		t.Errorf("the client's trace %+v, want %q from env", got, want)
	}
	if c := mustLoad(t, []string{"--trace", "/tmp/t"}, nil, ""); c.Trace != "/tmp/t" || c.Sources["trace"] != "flag" {
		t.Errorf("--trace: %q from %s", c.Trace, c.Sources["trace"])
	}
}

// --cdp-allow comes from flag, environment or file like every key;
// naming a domain that is never sent, or nothing, stops the start.
func TestConfigCDPAllow(t *testing.T) {
	if c := mustLoad(t, nil, nil, ""); c.CDPAllow != nil || policyOptions(c).CDPAllow != nil {
		t.Errorf("default CDPAllow = %v, want nil (the default list)", c.CDPAllow)
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		file string
	}{
		{[]string{"--cdp-allow=DOM, Page.getLayoutMetrics"}, nil, ""},
		{nil, map[string]string{"WEBPILOT_CDP_ALLOW": "DOM,Page.getLayoutMetrics"}, ""},
	} {
		cfg := mustLoad(t, c.args, c.env, c.file)
		if got := policyOptions(cfg).CDPAllow; !slices.Equal(got, []string{"DOM", "Page.getLayoutMetrics"}) {
			t.Errorf("%v %v %s: CDPAllow = %v", c.args, c.env, c.file, got)
		}
	}
	for arg, want := range map[string]string{
		"--cdp-allow=DOM,Target":               "Target is never sent",
		"--cdp-allow=Fetch.enable":             "Fetch.enable is never sent",
		"--cdp-allow=,":                        "names no CDP domain",
		"--cdp-allow=DOM.get.Document":         "is not a CDP domain",
		"--cdp-allow=Page.setDownloadBehavior": "never sent",
	} {
		if _, err := load(t, []string{arg}, nil, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", arg, err, want)
		}
	}
}

// The launched browser's network settings: a proxy as scheme://host:port
// (never with credentials), its bypass list, and ignore-https-errors; each
// is a browser setting (a client that asks for other values needs another
// browser).
func TestConfigLaunchNetwork(t *testing.T) {
	c := mustLoad(t, []string{"--proxy-server=socks5://127.0.0.1:1080", "--proxy-bypass=*.internal,<-loopback>", "--ignore-https-errors"}, nil, "")
	if c.ProxyServer != "socks5://127.0.0.1:1080" || c.ProxyBypass != "*.internal,<-loopback>" || !c.IgnoreHTTPSErrors || c.Sources["proxy_server"] != "flag" {
		t.Errorf("config = %q %q %v (%s)", c.ProxyServer, c.ProxyBypass, c.IgnoreHTTPSErrors, c.Sources["proxy_server"])
	}
	if c := mustLoad(t, nil, nil, `{"proxy_bypass": "*.internal"}`); c.ProxyBypass != "*.internal" || c.Sources["proxy_bypass"] != "file" {
		t.Errorf("proxy_bypass from the file: %q (%s)", c.ProxyBypass, c.Sources["proxy_bypass"])
	}
	// A file in the working directory may not send the traffic, the logins
	// or raw CDP anywhere new.
	for _, file := range []string{`{"proxy_server": "http://evil.example:3128"}`, `{"ignore_https_errors": true}`, `{"http_auth": "PW@https://evil.example"}`, `{"cdp_allow": "DOM"}`} {
		if _, err := load(t, nil, nil, file); err == nil || !strings.Contains(err.Error(), "may only be set by flag or environment") {
			t.Errorf("%s: %v", file, err)
		}
	}
	for arg, want := range map[string]string{
		"--proxy-server=proxy.corp:3128":               "not a proxy",
		"--proxy-server=ftp://proxy.corp:21":           "not a proxy",
		"--proxy-server=http://ada:pw@proxy.corp:3128": "holds credentials",
	} {
		if _, err := load(t, []string{arg}, nil, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
	for _, k := range []string{"proxy_server", "proxy_bypass", "ignore_https_errors"} {
		if settingKinds[k] != kindBrowser {
			t.Errorf("%s is a %q setting, want a browser one", k, settingKinds[k])
		}
	}
}

// --http-auth NAME@origin: the origin is normalized at start, the secret
// resolved to user:password when the client starts, and its password is
// masked on its own and in a Basic header too.
func TestConfigHTTPAuth(t *testing.T) {
	c := mustLoad(t, []string{"--http-auth=INTRA@HTTPS://Intranet.example:443/,PROXY@http://proxy.corp:3128"}, nil, "")
	if strings.Join(c.HTTPAuth, ",") != "INTRA@https://intranet.example,PROXY@http://proxy.corp:3128" || settingKinds["http_auth"] != kindClient {
		t.Errorf("http-auth = %q (%s)", c.HTTPAuth, settingKinds["http_auth"])
	}
	for arg, want := range map[string]string{
		"--http-auth=intranet.example":                    "not NAME@origin",
		"--http-auth=INTRA@ftp://x":                       "not an origin",
		"--http-auth=INTRA@https://intranet.example/path": "not an origin",
	} {
		if _, err := load(t, []string{arg}, nil, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
	sec, err := secrets.Load("", []string{"WEBPILOT_SECRET_INTRA=ada:s3cret-pw", "WEBPILOT_SECRET_PLAIN=nocolon"})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := httpAuth(mustLoad(t, []string{"--http-auth=INTRA@https://intranet.example"}, nil, ""), sec)
	if err != nil || len(rules) != 1 || rules[0].User != "ada" || rules[0].Password != "s3cret-pw" || rules[0].Origin != "https://intranet.example" {
		t.Fatalf("httpAuth = %+v, %v", rules, err)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("ada:s3cret-pw"))
	if got := sec.Mask("pw s3cret-pw; Authorization: Basic " + basic); strings.Contains(got, "s3cret") || strings.Contains(got, basic) {
		t.Errorf("masked: %q", got)
	}
	for arg, want := range map[string]string{
		"--http-auth=NOPE@https://intranet.example":  "no secret \"NOPE\"",
		"--http-auth=PLAIN@https://intranet.example": "not user:password",
	} {
		if _, err := httpAuth(mustLoad(t, []string{arg}, nil, ""), sec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}

// doctor prints the network settings that are set with their values and
// sources (secret names only).
func TestDoctorNetworkSettings(t *testing.T) {
	if got := networkSettings(mustLoad(t, nil, nil, "")); got != "" {
		t.Errorf("defaults: %q", got)
	}
	c := mustLoad(t, []string{"--proxy-server=http://proxy.corp:3128", "--http-auth=INTRA@https://intranet.example"}, map[string]string{"WEBPILOT_IGNORE_HTTPS_ERRORS": "true"}, "")
	if got, want := networkSettings(c), "proxy_server http://proxy.corp:3128 (flag); ignore_https_errors true (env); http_auth INTRA@https://intranet.example (flag)"; got != want {
		t.Errorf("networkSettings = %q, want %q", got, want)
	}
}
