package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// `webpilot recipe run` through the per-user daemon checks what the recipe
// needs before its first step: a required parameter left out and a secret
// not declared are named together, the site gets no request, and the exit
// status is 1; with the parameter given and the secret in --secrets, the
// same recipe runs to its end without showing the secret.
func TestRecipeRunNeedsCLI(t *testing.T) {
	home := daemonHome(t)
	ctx := backendtest.Context(t, 120*time.Second)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Profile</title><form><input id="name" aria-label="Name"> <input id="token" aria-label="Token"></form>`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	recipe := fmt.Sprintf(`{"name": "needs-cli", "site": %q, "params": {"name": {"type": "string"}},
  "steps": [
    {"do": "navigate", "url": %q},
    {"do": "action", "action": "fill", "selector": "#name", "value": "$name"},
    {"do": "action", "action": "fill", "selector": "#token", "secret": "CLI_TOKEN"}
  ]}`, strings.TrimPrefix(srv.URL, "http://"), srv.URL+"/profile")
	if err := os.WriteFile(filepath.Join(dir, "needs-cli.json"), []byte(recipe), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--isolated", "--headless=true", "--recipes", dir}

	code, out, errs := cliAt(t, ctx, home, "", append(append([]string{"recipe", "run"}, flags...), "needs-cli")...)
	t.Logf("refused run: exit %d\n%s%s", code, out, errs)
	if code != 1 || !strings.Contains(out, "INVALID_ARGUMENT: recipe needs-cli cannot run: missing parameter name; missing secret CLI_TOKEN (not declared). Nothing was run.") ||
		!strings.Contains(out, "webpilot recipe run needs-cli name=…") || !strings.Contains(out, "WEBPILOT_SECRET_CLI_TOKEN=…") || strings.Contains(out, "Trace:") {
		t.Errorf("webpilot recipe run without its needs: exit %d\n%s%s", code, out, errs)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the site got %d request(s) from a run refused before its first step", n)
	}

	secretsFile := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(secretsFile, []byte("CLI_TOKEN=cli-token-value-7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliAt(t, ctx, home, "", append(append([]string{"recipe", "run"}, flags...), "--secrets", secretsFile, "needs-cli", "name=Ada")...)
	if code != 0 || !strings.Contains(out, "done: 3 step(s)") || strings.Contains(out+errs, "cli-token-value-7") || hits.Load() == 0 {
		t.Errorf("webpilot recipe run with its needs: exit %d\n%s%s", code, out, errs)
	}
}
