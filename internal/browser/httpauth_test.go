package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A login challenge (HTTP Basic) of an origin with --http-auth is answered
// with the rule's credentials; wrong ones are answered once, and a page
// without a rule gets the server's 401; each says so in a note.
func TestHTTPAuth(t *testing.T) {
	// (one server per case: the browser keeps a login it gave an origin)
	intranet := func() (*httptest.Server, string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, pass, ok := r.BasicAuth()
			if !ok || user != "ada" || pass != "s3cret-pw" {
				w.Header().Set("WWW-Authenticate", `Basic realm="intranet"`)
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprint(w, "<title>Unauthorized</title><h1>Who are you?</h1>")
				return
			}
			fmt.Fprintf(w, "<title>Intranet</title><h1>Welcome %s</h1>", user)
		}))
		t.Cleanup(srv.Close)
		origin, err := browser.NormalizeOrigin(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		return srv, origin
	}
	open := func(e *env, srv *httptest.Server) (string, []string, error) {
		t.Helper()
		var title string
		var notes []string
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			res, err := h.Navigate(ctx, srv.URL+"/", 0)
			title = res.Title
			notes = h.Tab().TakeNotes()
			return err
		})
		return title, notes, err
	}
	srv, origin := intranet()
	good := newEnv(t, browser.Options{HTTPAuth: []browser.HTTPAuth{{Origin: origin, Secret: "INTRANET", User: "ada", Password: "s3cret-pw"}}})
	if title, notes, err := open(good, srv); err != nil || title != "Intranet" || len(notes) != 0 {
		t.Errorf("with the login: %q %q %v", title, notes, err)
	}
	if got := good.eval(`document.querySelector("h1").textContent`); got != "Welcome ada" {
		t.Errorf("the page says %q", got)
	}
	srv, origin = intranet()
	wrong := newEnv(t, browser.Options{HTTPAuth: []browser.HTTPAuth{{Origin: origin, Secret: "OLD", User: "ada", Password: "stale"}}})
	_, notes, err := open(wrong, srv)
	if be := wantCode(t, err, browser.CodeNavigationFailed); be != nil && (!strings.Contains(be.Message, "401") || !strings.Contains(strings.Join(notes, "\n"), "refused the login of the secret OLD")) {
		t.Errorf("with a wrong login: %v, notes %q", be, notes)
	}
	srv, _ = intranet()
	none := newEnv(t, browser.Options{})
	_, notes, err = open(none, srv)
	if be := wantCode(t, err, browser.CodeNavigationFailed); be != nil && !strings.Contains(be.Hint, "--http-auth") {
		t.Errorf("without a login: %v (%s), notes %q", be, be.Hint, notes)
	}
}
