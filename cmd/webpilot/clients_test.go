package main

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Every setting says what it governs: a new key must be placed on purpose
// (browser, client, process), or a client's value would be dropped.
func TestSettingKinds(t *testing.T) {
	for _, k := range configKeys() {
		key := strings.ReplaceAll(k.name, "-", "_")
		if settingKinds[key] == "" {
			t.Errorf("setting %s has no kind in settingKinds", key)
		}
	}
	if len(settingKinds) != len(configKeys()) {
		t.Errorf("settingKinds has %d keys, configKeys %d: a kind for a key that does not exist", len(settingKinds), len(configKeys()))
	}
}

// A proxy's settings header round-trips: its own settings with their
// sources, its browser settings apart, its secrets from the environment,
// and nothing of the process (session, log file).
func TestClientSettingsHeader(t *testing.T) {
	cfg := mustLoad(t, []string{"--allowed-origins", "example.com", "--profile", "full", "--headed", "--session", "work", "--log-file", "/tmp/x.log"},
		map[string]string{"WEBPILOT_NAV_TIMEOUT": "5s"}, "")
	raw, err := encodeClientSettings(cfg, []string{"WEBPILOT_SECRET_PIN=12345678", "HOME=/x"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := decodeClientSettings(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.Settings["allowed_origins"]; got.V != "example.com" || got.Src != "flag" {
		t.Errorf("allowed_origins %+v", got)
	}
	if got := cs.Settings["nav_timeout"]; got.V != "5s" || got.Src != "env" {
		t.Errorf("nav_timeout %+v", got)
	}
	if got := cs.Browser["headless"]; got.V != "false" {
		t.Errorf("headless %+v, want a browser setting", got)
	}
	for _, k := range []string{"session", "log_file", "headless"} {
		if _, ok := cs.Settings[k]; ok {
			t.Errorf("%s travels as a client setting", k)
		}
	}
	if len(cs.EnvSecrets) != 1 || cs.EnvSecrets[0] != "WEBPILOT_SECRET_PIN=12345678" {
		t.Errorf("env secrets %q", cs.EnvSecrets)
	}

	// The daemon makes the client's config from it: its values, sourced.
	daemonCfg := mustLoad(t, []string{"--headless=true"}, nil, "")
	ccfg, err := clientConfig(daemonCfg, cs)
	if err != nil {
		t.Fatal(err)
	}
	if ccfg.Profile != "full" || ccfg.Sources["profile"] != "flag (client)" || ccfg.Headless != "true" || ccfg.Sources["headless"] != "flag (daemon)" {
		t.Errorf("client config: profile %s (%s), headless %s (%s)", ccfg.Profile, ccfg.Sources["profile"], ccfg.Headless, ccfg.Sources["headless"])
	}
	if diff := browserConflict(daemonCfg, cs); !strings.Contains(diff, "headless: false here (--headless), true in the daemon") {
		t.Errorf("conflict %q", diff)
	}
	same := mustLoad(t, []string{"--headed"}, nil, "")
	if diff := browserConflict(same, cs); diff != "" {
		t.Errorf("equal browser settings conflict: %q", diff)
	}

	// Refused: not the format, a key of another kind, a bad value; a
	// refusal never shows a secret's value.
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for name, bad := range map[string]string{
		"not base64":       "%%%",
		"not JSON":         enc("{"),
		"other version":    enc(`{"v": 9}`),
		"browser as own":   enc(`{"v": 1, "settings": {"headless": {"v": "false"}}}`),
		"unknown":          enc(`{"v": 1, "settings": {"teleport": {"v": "1"}}}`),
		"relative workdir": enc(`{"v": 1, "workdir": "here"}`),
		"not a secret":     enc(`{"v": 1, "env_secrets": ["PATH=/bin"]}`),
	} {
		if _, err := decodeClientSettings(bad); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
	cs2, err := decodeClientSettings(enc(`{"v": 1, "settings": {"nav_timeout": {"v": "soon"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clientConfig(daemonCfg, cs2); err == nil || !strings.Contains(err.Error(), "nav_timeout") {
		t.Errorf("a bad value: %v", err)
	}
}

// On the same CDP endpoint, the settings of a launched browser choose
// nothing: a client without --isolated or --headless shares the daemon's
// farm; another endpoint, or a launched browser, still differs.
func TestBrowserConflictEndpoint(t *testing.T) {
	settings := func(args ...string) clientSettings {
		t.Helper()
		raw, err := encodeClientSettings(mustLoad(t, args, nil, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := decodeClientSettings(raw)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	daemonCfg := mustLoad(t, []string{"--cdp-endpoint", "ws://farm.example/?token=abcdefgh", "--endpoint-per-session", "--isolated", "--headless=true"}, nil, "")
	if diff := browserConflict(daemonCfg, settings("--cdp-endpoint", "ws://farm.example/?token=abcdefgh", "--endpoint-per-session", "--headed")); diff != "" {
		t.Errorf("same endpoint, other launch settings: conflict %q", diff)
	}
	diff := browserConflict(daemonCfg, settings("--cdp-endpoint", "ws://other.example/?token=abcdefgh", "--endpoint-per-session", "--isolated", "--headless=true"))
	if !strings.Contains(diff, "cdp_endpoint") || strings.Contains(diff, "abcdefgh") {
		t.Errorf("another endpoint: conflict %q, want cdp_endpoint named and its token hidden", diff)
	}
	if diff := browserConflict(daemonCfg, settings("--isolated", "--headless=true")); !strings.Contains(diff, "cdp_endpoint") {
		t.Errorf("a launched browser against a farm daemon: conflict %q", diff)
	}
	launchCfg := mustLoad(t, []string{"--isolated"}, nil, "")
	if diff := browserConflict(launchCfg, settings()); !strings.Contains(diff, "isolated") {
		t.Errorf("launch: conflict %q, want isolated named", diff)
	}
}
