package mcpserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/secrets"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// A recipe's run checks everything it needs before its first step:
// recipe_run with a required parameter left out, a value of the wrong
// type, a secret of the recipe's and one given as a parameter that are not
// declared is one INVALID_ARGUMENT naming all of them (diagnosis
// missing_params and missing_secrets), and the site gets no request. The
// same recipe with everything given and declared runs through, and
// recipe_list shows what it needs (never a value).
func TestRecipeRunChecksNeedsFirst(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Sign in</title><form><input id="email" aria-label="Email"> <input id="pw" type="password" aria-label="Password">
<input id="otp" aria-label="One-time code"> <input id="tok" aria-label="Token"> <textarea id="note" aria-label="Note"></textarea></form>`)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	store := &recipes.Store{UserDir: filepath.Join(dir, "recipes"), TrustFile: filepath.Join(dir, "trust.json")}
	if err := os.MkdirAll(store.UserDir, 0o755); err != nil {
		t.Fatal(err)
	}
	recipe := fmt.Sprintf(`{"name": "shop-login", "site": %q,
  "params": {"email": {"type": "string"}, "note": {"type": "string", "default": "hi"}, "token": {"type": "string", "default": "none"}},
  "steps": [
    {"do": "navigate", "url": %q},
    {"do": "action", "action": "fill", "selector": "#email", "value": "$email"},
    {"do": "action", "action": "fill", "selector": "#pw", "secret": "SHOP_PASSWORD"},
    {"do": "fill_form", "fields": [{"selector": "#otp", "secret": "OTP"}, {"selector": "#tok", "value": "$token"}]},
    {"do": "action", "action": "fill", "selector": "#note", "value": "$note"}
  ]}`, host, srv.URL+"/login")
	if err := os.WriteFile(filepath.Join(store.UserDir, "shop-login.json"), []byte(recipe), 0o644); err != nil {
		t.Fatal(err)
	}
	some, err := secrets.Load("", []string{"WEBPILOT_SECRET_OTP=otp-value-1"})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := recipeClient(t, tools.Deps{Recipes: store, Secrets: some})
	ctx := backendtest.Context(t, 60*time.Second)

	list := mustCall(t, ctx, cs, "recipe_list", map[string]any{})
	for _, want := range []string{"email:string (required)", "note:string=hi", "secrets OTP, SHOP_PASSWORD (not declared)"} {
		if !strings.Contains(list, want) {
			t.Errorf("recipe_list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, "otp-value-1") {
		t.Errorf("recipe_list shows a secret's value:\n%s", list)
	}

	body := mustFail(t, ctx, cs, "recipe_run", map[string]any{"name": "shop-login", "session": "needs-check",
		"params": map[string]any{"note": 5, "token": map[string]any{"secret": "API_TOKEN"}}}, "INVALID_ARGUMENT")
	t.Logf("refused: %+v", body)
	want := "recipe shop-login cannot run: missing parameter email; missing secrets API_TOKEN, SHOP_PASSWORD (not declared); params.note: 5 is not a string. Nothing was run."
	if body.Error.Message != want {
		t.Errorf("message\n%s\nwant\n%s", body.Error.Message, want)
	}
	for _, w := range []string{`"params": {"email": …}`, "webpilot recipe run shop-login email=…", "WEBPILOT_SECRET_NAME", "--secrets"} {
		if !strings.Contains(body.Error.Hint, w) {
			t.Errorf("hint lacks %q: %s", w, body.Error.Hint)
		}
	}
	if s := strings.Join(body.Error.Suggestions, "\n"); !strings.Contains(s, "secret SHOP_PASSWORD: WEBPILOT_SECRET_SHOP_PASSWORD=…") || !strings.Contains(s, "parameter email") {
		t.Errorf("suggestions %q", body.Error.Suggestions)
	}
	names := func(k string) []string {
		var out []string
		list, _ := body.Diagnosis[k].([]any)
		for _, x := range list {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	if !slices.Equal(names("missing_params"), []string{"email"}) || !slices.Equal(names("missing_secrets"), []string{"API_TOKEN", "SHOP_PASSWORD"}) {
		t.Errorf("diagnosis %v", body.Diagnosis)
	}
	// Every parameter right, one secret of the recipe's not declared: it
	// used to navigate and type the email before step 3 failed.
	body = mustFail(t, ctx, cs, "recipe_run", map[string]any{"name": "shop-login", "session": "needs-check", "params": map[string]any{"email": "ada@example.com"}}, "INVALID_ARGUMENT")
	if body.Error.Message != "recipe shop-login cannot run: missing secret SHOP_PASSWORD (not declared). Nothing was run." {
		t.Errorf("only a secret missing: %q", body.Error.Message)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the site got %d request(s) from a run refused before its first step", n)
	}
	if out := mustCall(t, ctx, cs, "browser_status", map[string]any{}); strings.Contains(out, "needs-check") {
		t.Errorf("the refused run made its session:\n%s", out)
	}

	// Everything given and declared: it runs to its end.
	all, err := secrets.Load("", []string{"WEBPILOT_SECRET_OTP=otp-value-1", "WEBPILOT_SECRET_SHOP_PASSWORD=pw-value-22", "WEBPILOT_SECRET_API_TOKEN=tok-value-333"})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := recipeClient(t, tools.Deps{Recipes: store, Secrets: all})
	if list := mustCall(t, ctx, full, "recipe_list", map[string]any{}); !strings.Contains(list, "secrets OTP, SHOP_PASSWORD") || strings.Contains(list, "not declared") {
		t.Errorf("recipe_list with the secrets declared:\n%s", list)
	}
	out := mustCall(t, ctx, full, "recipe_run", map[string]any{"name": "shop-login", "params": map[string]any{"email": "ada@example.com", "token": map[string]any{"secret": "API_TOKEN"}}})
	if !strings.Contains(out, "done: 5 step(s)") || hits.Load() == 0 {
		t.Errorf("the run with everything it needs:\n%s", out)
	}
	for _, v := range []string{"otp-value-1", "pw-value-22", "tok-value-333"} {
		if strings.Contains(out, v) {
			t.Errorf("the run shows a secret's value %q:\n%s", v, out)
		}
	}
}
