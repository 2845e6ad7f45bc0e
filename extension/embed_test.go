package extension

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

type manifest struct {
	ManifestVersion int    `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Key             string `json:"key"`
	Background      struct {
		ServiceWorker string `json:"service_worker"`
		Type          string `json:"type"`
	} `json:"background"`
	Icons  map[string]string `json:"icons"`
	Action struct {
		DefaultPopup string `json:"default_popup"`
		DefaultIcon  string `json:"default_icon"`
	} `json:"action"`
	Permissions     []string `json:"permissions"`
	HostPermissions []string `json:"host_permissions"`
}

func readManifest(t *testing.T) manifest {
	t.Helper()
	b, err := fs.ReadFile(Files, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	return m
}

// idFromKey is how Chrome names an extension: the first 128 bits of the SHA-256 of the
// public key (DER), in hex, with the digits 0-f written as the letters a-p.
func idFromKey(t *testing.T, key string) string {
	t.Helper()
	der, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		t.Fatalf("manifest key is not base64: %v", err)
	}
	sum := sha256.Sum256(der)
	var b strings.Builder
	for _, c := range hex.EncodeToString(sum[:16]) {
		switch {
		case c >= '0' && c <= '9':
			b.WriteRune('a' + (c - '0'))
		default:
			b.WriteRune('a' + 10 + (c - 'a'))
		}
	}
	return b.String()
}

func TestManifest(t *testing.T) {
	m := readManifest(t)
	if m.ManifestVersion != 3 || m.Name != "webpilot" {
		t.Errorf("manifest_version %d, name %q; want 3, webpilot", m.ManifestVersion, m.Name)
	}
	if m.Version != Version {
		t.Errorf("manifest version %q, Version %q", m.Version, Version)
	}
	if got := idFromKey(t, m.Key); got != ID {
		t.Errorf("the manifest key gives id %s, ID is %s", got, ID)
	}
	if m.Background.ServiceWorker != "background.js" || m.Background.Type != "module" {
		t.Errorf("background = %+v, want background.js as a module", m.Background)
	}
	for _, p := range []string{"debugger", "tabs", "tabGroups", "downloads", "storage", "alarms", "idle", "notifications"} {
		found := false
		for _, q := range m.Permissions {
			found = found || q == p
		}
		if !found {
			t.Errorf("permission %q missing from %v", p, m.Permissions)
		}
	}
	// Every file the manifest names is embedded.
	files := []string{m.Background.ServiceWorker, m.Action.DefaultPopup, m.Action.DefaultIcon, "protocol.js", "popup.js", "PROTOCOL.md"}
	for _, f := range m.Icons {
		files = append(files, f)
	}
	for _, f := range files {
		if _, err := fs.Stat(Files, f); err != nil {
			t.Errorf("%s is not embedded: %v", f, err)
		}
	}
}

// The JavaScript says the same versions and id as the Go constants.
func TestProtocolJSConstants(t *testing.T) {
	b, err := fs.ReadFile(Files, "protocol.js")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for name, want := range map[string]string{
		"PROTOCOL_VERSION":  strconv.Itoa(ProtocolVersion),
		"EXTENSION_VERSION": `"` + Version + `"`,
	} {
		re := regexp.MustCompile(`export const ` + name + ` = ([^;]+);`)
		got := re.FindStringSubmatch(src)
		if got == nil {
			t.Errorf("protocol.js does not export %s", name)
			continue
		}
		if got[1] != want {
			t.Errorf("protocol.js %s = %s, want %s", name, got[1], want)
		}
	}
	doc, err := fs.ReadFile(Files, "PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	if head := "# webpilot bridge protocol, version " + strconv.Itoa(ProtocolVersion) + "\n"; !strings.HasPrefix(string(doc), head) {
		t.Errorf("PROTOCOL.md does not start with %q", head)
	}
	// Chrome refuses to load an extension with a file name starting with "_".
	fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), "_") {
			t.Errorf("%s: Chrome reserves names starting with _", p)
		}
		return nil
	})
}

// TestStoreRules: what the Chrome Web Store's and Edge Add-ons' reviews ask
// of a Manifest V3 extension: no host permissions, content scripts or
// pages a web page can reach; only permissions Chrome knows, each used by
// the code and justified in docs/store/permissions.md; no remote code; a
// privacy policy and a listing whose summary fits.
func TestStoreRules(t *testing.T) {
	b, err := fs.ReadFile(Files, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"host_permissions", "optional_host_permissions", "content_scripts", "web_accessible_resources", "externally_connectable", "content_security_policy", "update_url"} {
		if _, ok := raw[k]; ok {
			t.Errorf("the manifest has %q", k)
		}
	}
	code := ""
	for _, f := range []string{"background.js", "popup.js", "protocol.js", "popup.html"} {
		b, err := fs.ReadFile(Files, f)
		if err != nil {
			t.Fatal(err)
		}
		code += string(b)
	}
	known := map[string]bool{"debugger": true, "tabs": true, "tabGroups": true, "downloads": true, "storage": true, "alarms": true, "idle": true, "notifications": true}
	why, err := os.ReadFile(filepath.Join("..", "docs", "store", "permissions.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readManifest(t)
	for _, p := range m.Permissions {
		if !known[p] {
			t.Errorf("permission %q is not one this test knows Chrome has (and the review accepts): check it, then add it here", p)
		}
		if !strings.Contains(code, "chrome."+p+".") && !strings.Contains(code, "chrome."+p+"?.") {
			t.Errorf("permission %q: the code never uses chrome.%s", p, p)
		}
		if !strings.Contains(string(why), "| `"+p+"` |") {
			t.Errorf("permission %q has no row in docs/store/permissions.md", p)
		}
	}
	// No remote code: nothing is loaded or evaluated from elsewhere; the
	// one address is the loopback bridge.
	for _, re := range []string{`\beval\s*\(`, `new\s+Function\s*\(`, `\bimport\s*\(`, `<script[^>]+src=["']https?:`, `importScripts\s*\(`, `https?://(?!127\.0\.0\.1)[a-z]`} {
		if strings.Contains(re, "(?!") {
			// Go's regexp has no lookahead: any http(s) address but loopback.
			for _, u := range regexp.MustCompile(`(?:https?|wss?)://[^\s"'`+"`"+`)]+`).FindAllString(code, -1) {
				if !strings.HasPrefix(strings.SplitN(u, "://", 2)[1], "127.0.0.1") && !strings.Contains(u, "${") {
					t.Errorf("the extension's code names a remote address: %s", u)
				}
			}
			continue
		}
		if loc := regexp.MustCompile(re).FindStringIndex(code); loc != nil {
			t.Errorf("the extension's code has %q: %s", re, code[loc[0]:min(len(code), loc[1]+40)])
		}
	}
	for _, f := range []string{"privacy.md", "listing.md"} {
		if _, err := os.Stat(filepath.Join("..", "docs", "store", f)); err != nil {
			t.Errorf("docs/store/%s: %v", f, err)
		}
	}
	listing, _ := os.ReadFile(filepath.Join("..", "docs", "store", "listing.md"))
	if m := regexp.MustCompile(`\*\*Summary \(≤ 132 characters\):\*\* (.+)`).FindSubmatch(listing); m == nil || len([]rune(string(m[1]))) > 132 {
		t.Errorf("the listing's summary is missing or longer than 132 characters: %q", m)
	}
}
