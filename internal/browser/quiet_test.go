package browser_test

import (
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// Requests that outlive their page (keepalive fetches, beacons, pings) never
// hold an action: a click that sends one returns without hitting the quiet
// wait's bound, also when it changes nothing else (the second click). A
// keepalive fetch's end can come before its start: it used to be left
// pending until the bound.
func TestQuietIgnoresKeepalive(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/quiet/keepalive.html")
	for _, id := range []string{"#keep", "#beacon", "#ping"} {
		for i := range 3 {
			res, err := e.act(browser.Action{Kind: "click", Target: browser.Target{Frame: "#f", Selector: id}})
			if err != nil {
				t.Fatalf("%s click %d: %v", id, i+1, err)
			}
			if res.Busy != "" || strings.Contains(res.Note, "still busy") {
				t.Errorf("%s click %d hit the quiet wait's bound: busy %q, note %q", id, i+1, res.Busy, res.Note)
			}
		}
	}
}

// When the wait after an action hits a bound, the result says so and names
// what was still going on.
func TestQuietReportsBound(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/hang")
	res, err := e.act(browser.Action{Kind: "click", Target: sel("#b")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Busy, "1 request pending") || !strings.Contains(res.Busy, "/hangs") || !strings.Contains(res.Note, res.Busy) {
		t.Errorf("a request still running: busy %q, note %q", res.Busy, res.Note)
	}
	e.navigate("/ticker")
	res, err = e.act(browser.Action{Kind: "click", Target: sel("#b")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Busy, "kept changing") {
		t.Errorf("a page that keeps changing: busy %q, note %q", res.Busy, res.Note)
	}
}
