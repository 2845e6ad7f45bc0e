package browser_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Cookies and web storage round-trip; a storage state saved (plain or
// sealed with a secret) logs the app in again after its site data was
// cleared, local storage of another origin included; through the
// extension, the wholesale actions need force.
func TestStorage(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, browser.Options{OutputDir: out})
	bridge := os.Getenv("WEBPILOT_TEST_BACKEND") == "bridge"
	e.navigate("/storage/app.html")
	var store func(o browser.StorageOptions) (*browser.StorageResult, error)
	t.Cleanup(func() {
		// (cookies are per host, not per port: the browser is shared)
		e.navigate("/storage/app.html")
		_, _ = store(browser.StorageOptions{Action: "clear", Force: bridge})
	})
	store = func(o browser.StorageOptions) (*browser.StorageResult, error) {
		var res *browser.StorageResult
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			res, err = h.Storage().Run(ctx, o)
			return err
		})
		return res, err
	}
	must := func(o browser.StorageOptions) *browser.StorageResult {
		t.Helper()
		o.Force = bridge
		res, err := store(o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		return res
	}
	page := func() string {
		return e.eval(`document.getElementById("who").textContent + " · " + document.getElementById("theme").textContent`)
	}
	if got := page(); got != "Signed out · Theme: none" {
		t.Fatalf("a fresh page: %q", got)
	}
	must(browser.StorageOptions{Action: "cookies", Op: "set", Name: "sid", Value: "abc123", SameSite: "lax"})
	must(browser.StorageOptions{Action: "cookies", Op: "set", Name: "csrf", Value: "t0k", HTTPOnly: true})
	must(browser.StorageOptions{Action: "local", Op: "set", Name: "theme", Value: "dark"})
	must(browser.StorageOptions{Action: "session", Op: "set", Name: "tab", Value: "one"})
	e.navigate("/storage/app.html")
	if got := page(); got != "Signed in as ada · Theme: dark" {
		t.Fatalf("after setting the cookie and the theme: %q", got)
	}
	// (cookies are per host: other tests' cookies of 127.0.0.1 may be
	// there too in the shared browser)
	mine := func(cs []browser.Cookie) []browser.Cookie {
		return slices.DeleteFunc(slices.Clone(cs), func(c browser.Cookie) bool { return c.Name != "sid" && c.Name != "csrf" })
	}
	res := must(browser.StorageOptions{Action: "cookies"})
	if len(mine(res.Cookies)) != 2 || !res.Redacted {
		t.Errorf("cookies list = %+v", res)
	}
	if res := must(browser.StorageOptions{Action: "cookies", Op: "get", Name: "csrf"}); res.Total != 1 || !res.Cookies[0].HTTPOnly || res.Cookies[0].Value != "t0k" {
		t.Errorf("cookies get csrf = %+v", res)
	}
	must(browser.StorageOptions{Action: "cookies", Op: "delete", Name: "csrf"})
	if got := mine(must(browser.StorageOptions{Action: "cookies"}).Cookies); len(got) != 1 || got[0].Name != "sid" || got[0].SameSite != "Lax" {
		t.Errorf("after deleting csrf: %+v", got)
	}
	if res := must(browser.StorageOptions{Action: "local", Op: "get", Name: "theme"}); len(res.Items) != 1 || res.Items[0].Value != "dark" || !strings.HasPrefix(res.Origin, "http://127.0.0.1:") {
		t.Errorf("local get theme = %+v", res)
	}
	if res := must(browser.StorageOptions{Action: "session"}); res.Total != 1 || res.Items[0].Name != "tab" {
		t.Errorf("session list = %+v", res)
	}

	// Through the extension the wholesale actions ask for force.
	if bridge {
		_, err := store(browser.StorageOptions{Action: "state_save"})
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Hint, "force") {
			t.Errorf("state_save on the bridge without force: %+v", be)
		}
	}
	plain := must(browser.StorageOptions{Action: "state_save"})
	key := []byte("correct horse battery staple")
	sealed := must(browser.StorageOptions{Action: "state_save", Key: key, KeyName: "STATE_KEY"})
	b, _ := os.ReadFile(plain.Path)
	var st struct {
		Cookies []browser.Cookie `json:"cookies"`
		Origins []struct {
			Origin string `json:"origin"`
		} `json:"origins"`
	}
	if err := json.Unmarshal(b, &st); err != nil || len(st.Origins) != 1 || !strings.Contains(string(b), "abc123") || filepath.Dir(plain.Path) != out {
		t.Errorf("the plain state %s: %v\n%s", plain.Path, err, b)
	}
	if b, _ := os.ReadFile(sealed.Path); strings.Contains(string(b), "abc123") || strings.Contains(string(b), "dark") || !strings.Contains(string(b), "STATE_KEY") {
		t.Errorf("the sealed state shows what it holds:\n%s", b)
	}

	// Clear, then load the sealed state: signed in again.
	if res := must(browser.StorageOptions{Action: "clear"}); res.Total < 1 {
		t.Errorf("clear = %+v", res)
	}
	e.navigate("/storage/app.html")
	if got := page(); got != "Signed out · Theme: none" {
		t.Fatalf("after clear: %q", got)
	}
	if bridge {
		_, err := store(browser.StorageOptions{Action: "state_load", File: filepath.Base(plain.Path)})
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && (!strings.Contains(be.Message, "overwrite your Chrome's own cookies") || !strings.Contains(be.Hint, "force")) {
			t.Errorf("state_load on the bridge without force: %+v", be)
		}
	}
	_, err := store(browser.StorageOptions{Action: "state_load", File: filepath.Base(sealed.Path), Force: bridge})
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, `sealed with the secret "STATE_KEY"`) {
		t.Errorf("a sealed state without its secret: %+v", be)
	}
	_, err = store(browser.StorageOptions{Action: "state_load", File: filepath.Base(sealed.Path), Key: []byte("wrong"), KeyName: "OTHER", Force: bridge})
	if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "does not open") {
		t.Errorf("a sealed state with another secret: %+v", be)
	}
	res = must(browser.StorageOptions{Action: "state_load", File: filepath.Base(sealed.Path), Key: key, KeyName: "STATE_KEY"})
	if res.Total != len(st.Cookies) || res.Origins != 1 || !res.Encrypted {
		t.Errorf("state_load = %+v", res)
	}
	e.navigate("/storage/app.html")
	if got := page(); got != "Signed in as ada · Theme: dark" {
		t.Errorf("after loading the state: %q", got)
	}

	// Another origin's local storage is filled without visiting the site.
	other := strings.Replace(e.base, "127.0.0.1", "localhost", 1)
	state := `{"cookies": [], "origins": [{"origin": "` + other + `", "localStorage": [{"name": "theme", "value": "sepia"}]}]}`
	file := filepath.Join(out, "other-origin.json")
	if err := os.WriteFile(file, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	must(browser.StorageOptions{Action: "state_load", File: file})
	if err := e.do(func(ctx context.Context, h *browser.Held) error {
		_, err := h.Navigate(ctx, other+"/storage/app.html", 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := e.eval(`location.origin + " " + document.getElementById("theme").textContent`); got != other+" Theme: sepia" {
		t.Errorf("the other origin's page: %q", got)
	}
	// A file outside the output directory and the upload roots is refused.
	_, err = store(browser.StorageOptions{Action: "state_load", File: "/etc/passwd", Force: bridge})
	wantCode(t, err, browser.CodeInvalidArgument)
}
