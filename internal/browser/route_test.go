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

// Routes answer the session's requests: a fulfilled one never reaches the
// server, an aborted one fails in the page, a continued one carries the
// headers set; the first route that matches decides, a tab that joins
// later is routed too, and removing the last route lets every request go.
func TestRoutes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/app.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>Routes</title><p id="out">-</p><script>
window.load = (path) => { document.getElementById("out").textContent = "wait";
  fetch(path, {cache: "no-store"}).then((r) => r.text()).then((t) => { document.getElementById("out").textContent = t; },
    (e) => { document.getElementById("out").textContent = "failed"; }); };</script>`)
		case "/api/data":
			fmt.Fprint(w, "real")
		case "/api/echo":
			fmt.Fprint(w, "header "+r.Header.Get("X-Test"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	e := newEnv(t, browser.Options{})
	open := func() {
		t.Helper()
		if err := e.do(func(ctx context.Context, h *browser.Held) error {
			_, err := h.Navigate(ctx, srv.URL+"/app.html", 0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	load := func(path string) string {
		t.Helper()
		e.eval(fmt.Sprintf(`load(%q)`, path))
		return waitValue(t, e, `(document.getElementById("out").textContent === "wait" ? "" : document.getElementById("out").textContent)`)
	}
	add := func(r browser.Route) (*browser.Route, error) {
		var got *browser.Route
		err := e.do(func(ctx context.Context, h *browser.Held) error {
			var err error
			got, err = h.Routes().Add(ctx, r, nil)
			return err
		})
		return got, err
	}
	must := func(r browser.Route) *browser.Route {
		t.Helper()
		got, err := add(r)
		if err != nil {
			t.Fatalf("add %+v: %v", r, err)
		}
		return got
	}
	open()
	if got := load("/api/data"); got != "real" {
		t.Fatalf("no routes: %q", got)
	}
	first := must(browser.Route{Pattern: "*/api/data", Fulfill: &browser.RouteFulfill{Body: "mocked", Headers: map[string]string{"Access-Control-Allow-Origin": "*"}}})
	must(browser.Route{Pattern: "/\\/api\\/gone/", Abort: "failed"})
	must(browser.Route{Pattern: "/api/echo", Headers: map[string]string{"X-Test": "yes"}})
	if first.ID != "r1" {
		t.Errorf("the first route's id: %q", first.ID)
	}
	if got := load("/api/data"); got != "mocked" {
		t.Errorf("fulfilled: %q", got)
	}
	if got := load("/api/gone"); got != "failed" {
		t.Errorf("aborted: %q", got)
	}
	if got := load("/api/echo"); got != "header yes" {
		t.Errorf("continued with a header: %q", got)
	}
	var routes []browser.Route
	_ = e.do(func(ctx context.Context, h *browser.Held) error { routes = h.Routes().List(); return nil })
	if len(routes) != 3 || routes[0].Hits != 1 || routes[1].Hits != 1 {
		t.Errorf("routes: %+v", routes)
	}
	// A tab that joins the session is routed too.
	if err := e.do(func(ctx context.Context, h *browser.Held) error { _, err := h.Tabs().New(ctx); return err }); err != nil {
		t.Fatal(err)
	}
	open()
	if got := load("/api/data"); got != "mocked" {
		t.Errorf("a new tab: %q", got)
	}
	remove := func(id string) error {
		return e.do(func(ctx context.Context, h *browser.Held) error { _, err := h.Routes().Remove(ctx, id); return err })
	}
	if err := remove("r1"); err != nil {
		t.Fatal(err)
	}
	if got := load("/api/data"); got != "real" {
		t.Errorf("after removing r1: %q", got)
	}
	if err := remove("all"); err != nil {
		t.Fatal(err)
	}
	if got := load("/api/echo"); got != "header " {
		t.Errorf("with no route left: %q", got)
	}
	// A header value the browser refuses does not leave the request, and
	// the page, paused (issue 47, 9): it goes on unchanged.
	must(browser.Route{Pattern: "/api/echo", Headers: map[string]string{"X-Test": "a\u0000b"}})
	if got := load("/api/echo"); got != "header " {
		t.Errorf("a refused header value: %q", got)
	}
	if err := remove("all"); err != nil {
		t.Fatal(err)
	}
	if be := wantCode(t, remove("r9"), browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, "no route") {
		t.Errorf("remove r9: %v", be)
	}
	for _, c := range []struct {
		r    browser.Route
		want string
	}{
		{browser.Route{Abort: "failed"}, "needs a pattern"},
		{browser.Route{Pattern: "/x", Abort: "failed", Fulfill: &browser.RouteFulfill{}}, "one of fulfill, abort or continue"},
		{browser.Route{Pattern: "/x", Abort: "exploded"}, "unknown abort reason"},
		{browser.Route{Pattern: "/x", Fulfill: &browser.RouteFulfill{Status: 700}}, "not an HTTP status"},
		{browser.Route{Pattern: "/x", Fulfill: &browser.RouteFulfill{File: "/etc/passwd"}}, ""},
		{browser.Route{Pattern: "/x", Headers: map[string]string{"Host": "evil.example"}}, "cannot set the header Host"},
		{browser.Route{Pattern: "/x", Headers: map[string]string{"content-length": "1"}}, "cannot set the header"},
		{browser.Route{Pattern: "/x", Headers: map[string]string{"Sec-Fetch-Site": "none"}}, "cannot set the header"},
	} {
		_, err := add(c.r)
		if be := wantCode(t, err, browser.CodeInvalidArgument); be != nil && !strings.Contains(be.Message, c.want) {
			t.Errorf("%+v: %q, want it to say %q", c.r, be.Message, c.want)
		}
	}
}
