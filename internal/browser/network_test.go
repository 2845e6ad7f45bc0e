package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// netFixtures serves testdata/pages and the API network/index.html calls.
func netFixtures(t *testing.T) string {
	return backendtest.NetworkServer(t, "../../testdata/pages")
}

// netEnv is a session on the network fixture with its requests done.
func netEnv(t *testing.T, opts browser.Options) *env {
	t.Helper()
	e := newEnv(t, opts)
	e.base = netFixtures(t)
	e.navigate("/network/")
	e.waitTitle("Network done")
	e.waitIdle()
	return e
}

// waitTitle waits until the page's title is want.
func (e *env) waitTitle(want string) {
	e.t.Helper()
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Wait(ctx, browser.WaitOptions{Conditions: []browser.WaitCondition{{Title: want}}})
		return err
	})
	if err != nil {
		e.t.Fatalf("wait for title %q: %v", want, err)
	}
}

// waitIdle waits until no request of the page has been in flight for a
// while: the page's responses have all been read.
func (e *env) waitIdle() {
	e.t.Helper()
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Wait(ctx, browser.WaitOptions{Conditions: []browser.WaitCondition{{NetworkIdle: true}}})
		return err
	})
	if err != nil {
		e.t.Fatalf("wait for the network to be idle: %v", err)
	}
}

func (e *env) netList(q browser.NetworkQuery) (*browser.NetList, error) {
	var l *browser.NetList
	err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		var err error
		l, err = h.Network().List(q)
		return err
	})
	return l, err
}

func (e *env) mustList(q browser.NetworkQuery) *browser.NetList {
	e.t.Helper()
	l, err := e.netList(q)
	if err != nil {
		e.t.Fatalf("list %+v: %v", q, err)
	}
	return l
}

func (e *env) netGet(g browser.NetworkGet) (*browser.NetDetail, error) {
	var d *browser.NetDetail
	err := e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error {
		var err error
		d, err = h.Network().Request(ctx, g)
		return err
	})
	return d, err
}

func (e *env) mustGet(g browser.NetworkGet) *browser.NetDetail {
	e.t.Helper()
	d, err := e.netGet(g)
	if err != nil {
		e.t.Fatalf("get %+v: %v", g, err)
	}
	return d
}

// listUntil lists the network buffer until a finished request with part
// in its URL is in it.
func (e *env) listUntil(part string) *browser.NetList {
	e.t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		l := e.mustList(browser.NetworkQuery{})
		for _, r := range l.Requests {
			if strings.Contains(r.URL, part) && !r.Pending {
				return l
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no finished request with %q in its URL: %+v", part, l.Requests)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func request(t *testing.T, l *browser.NetList, part string) browser.NetRequest {
	t.Helper()
	var hits []browser.NetRequest
	for _, r := range l.Requests {
		if strings.Contains(r.URL, part) {
			hits = append(hits, r)
		}
	}
	if len(hits) != 1 {
		t.Fatalf("%d requests with %q in their URL, want 1: %+v", len(hits), part, l.Requests)
	}
	return hits[0]
}

// The page's document, script requests and image are recorded with their
// types, methods and statuses, in order, in the tab that made them.
func TestNetworkCapture(t *testing.T) {
	e := netEnv(t, browser.Options{})
	l := e.mustList(browser.NetworkQuery{})
	for _, want := range []struct {
		part, method, typ string
		status            int
	}{
		{"/network/", "GET", "document", 200},
		{"/api/items?", "GET", "fetch", 200},
		{"/api/echo", "POST", "xhr", 200},
		{"/api/missing", "GET", "fetch", 404},
		{"/api/big", "GET", "fetch", 200},
		{"/api/pixel.png", "GET", "image", 200},
	} {
		r := request(t, l, want.part)
		if r.Method != want.method || r.Type != want.typ || r.Status != want.status || r.Pending || r.Failed != "" {
			t.Errorf("%s: %+v; want %s %s %d, finished", want.part, r, want.method, want.typ, want.status)
		}
		if r.Tab != "t1" {
			t.Errorf("%s: tab %q, want t1", want.part, r.Tab)
		}
	}
	doc := request(t, l, "/network/")
	if l.Requests[0].ID != doc.ID {
		t.Errorf("the document is not the oldest request: %+v", l.Requests)
	}
	big := request(t, l, "/api/big")
	if big.Decoded != 25_000 {
		t.Errorf("/api/big: decoded size %d, want 25000", big.Decoded)
	}
	if big.Encoded <= 0 || big.Start.IsZero() || big.Start.After(time.Now()) {
		t.Errorf("/api/big: encoded %d, start %v", big.Encoded, big.Start)
	}
	items := request(t, l, "/api/items?")
	if want := "script " + e.base + "/network/:19"; items.Initiator != want {
		t.Errorf("/api/items initiator %q, want %q", items.Initiator, want)
	}
	if l.Buffered != len(l.Requests) || l.Matched != len(l.Requests) || l.Dropped != 0 || l.Tabs != 1 {
		t.Errorf("list counts: %+v", l)
	}

	// A redirect is two entries, the first pointing to the second.
	e.eval(`fetch('/api/hop').then(r => r.text()).then(() => document.title = 'hopped')`)
	e.waitTitle("hopped")
	// The page may run ahead of the network events webpilot records:
	// wait until the second leg is in, finished.
	finished := func(l *browser.NetList) bool {
		n := 0
		for _, r := range l.Requests {
			if !r.Pending {
				n++
			}
		}
		return n == 2
	}
	for l = e.mustList(browser.NetworkQuery{Filter: "hop"}); !finished(l) && e.ctx.Err() == nil; l = e.mustList(browser.NetworkQuery{Filter: "hop"}) {
		time.Sleep(20 * time.Millisecond)
	}
	hop, next := request(t, l, "/api/hop"), request(t, l, "from=hop")
	if hop.Status != 302 || hop.Redirect != next.ID || next.Status != 200 {
		t.Errorf("redirect: %+v then %+v", hop, next)
	}
}

// Filters select by URL part or regex, type, status and method; bad ones
// are INVALID_ARGUMENT.
func TestNetworkFilters(t *testing.T) {
	e := netEnv(t, browser.Options{})
	urls := func(q browser.NetworkQuery) []string {
		t.Helper()
		var out []string
		for _, r := range e.mustList(q).Requests {
			out = append(out, r.URL[len(e.base):])
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		q    browser.NetworkQuery
		want []string
	}{
		{browser.NetworkQuery{Type: "xhr"}, []string{"/api/echo"}},
		{browser.NetworkQuery{Type: "XHR, image", Filter: "/api/"}, []string{"/api/echo", "/api/pixel.png"}},
		{browser.NetworkQuery{Status: "4xx"}, []string{"/api/missing"}},
		{browser.NetworkQuery{Status: "404,failed"}, []string{"/api/missing"}},
		{browser.NetworkQuery{Method: "post"}, []string{"/api/echo"}},
		{browser.NetworkQuery{Filter: "/API/BIG"}, []string{"/api/big"}},
		{browser.NetworkQuery{Filter: `/(echo|missing)$/`}, []string{"/api/echo", "/api/missing"}},
		{browser.NetworkQuery{Type: "fetch", Status: "2xx", Filter: "big"}, []string{"/api/big"}},
		{browser.NetworkQuery{Status: "pending"}, nil},
		{browser.NetworkQuery{Tab: "t1", Type: "document"}, []string{"/network/"}},
	} {
		got := urls(tc.q)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%+v: %v, want %v", tc.q, got, tc.want)
		}
	}
	if l := e.mustList(browser.NetworkQuery{Limit: 2}); len(l.Requests) != 2 || l.Matched != l.Buffered || l.Matched < 6 ||
		l.Requests[1].ID != fmt.Sprintf("n%d", l.Matched) {
		t.Errorf("limit 2: %+v, want the newest two of all", l)
	}
	for _, q := range []browser.NetworkQuery{{Filter: "/(/"}, {Type: "ajax"}, {Status: "4x"}, {Status: "999"}} {
		_, err := e.netList(q)
		wantCode(t, err, browser.CodeInvalidArgument)
	}
	_, err := e.netList(browser.NetworkQuery{Tab: "t9"})
	wantCode(t, err, browser.CodeTabNotFound)
}

// get shows a body inline up to 10,000 chars and pages through the rest;
// save writes the body's exact bytes; binary bodies are not dumped.
func TestNetworkBodies(t *testing.T) {
	opts := browser.Options{OutputDir: t.TempDir()}
	e := netEnv(t, opts)
	l := e.mustList(browser.NetworkQuery{})

	echo := e.mustGet(browser.NetworkGet{ID: request(t, l, "/api/echo").ID})
	if echo.Body != `{"method": "POST", "got": {"name":"Ada","n":1}}` || echo.BodyBinary || echo.NoBody != "" {
		t.Errorf("echo body: %+v", echo)
	}
	if echo.RequestBody != `{"name":"Ada","n":1}` || echo.RequestBodyLen != 20 {
		t.Errorf("echo request body %q (%d)", echo.RequestBody, echo.RequestBodyLen)
	}
	if !hasHeader(echo.RequestHeaders, "Content-Type", "application/json") || !hasHeader(echo.ResponseHeaders, "Content-Type", "application/json") {
		t.Errorf("echo headers: request %v, response %v", echo.RequestHeaders, echo.ResponseHeaders)
	}

	want := backendtest.BigBody()
	bigID := request(t, l, "/api/big").ID
	big := e.mustGet(browser.NetworkGet{ID: bigID})
	if big.BodyChars != 25_000 || len(big.Body) > browser.NetworkBodyChars || big.Next == 0 || !strings.HasPrefix(want, big.Body) {
		t.Errorf("big body: %d chars shown of %d, next %d", len(big.Body), big.BodyChars, big.Next)
	}
	var joined strings.Builder
	joined.WriteString(big.Body + "\n")
	for off := big.Next; off > 0; {
		page := e.mustGet(browser.NetworkGet{ID: bigID, Offset: off})
		joined.WriteString(page.Body + "\n")
		off = page.Next
	}
	if strings.TrimSuffix(joined.String(), "\n") != strings.TrimSuffix(want, "\n") {
		t.Errorf("the pages of the big body do not join up to it (%d chars)", joined.Len())
	}

	saved := e.mustGet(browser.NetworkGet{ID: bigID, Save: true})
	if got, err := os.ReadFile(saved.Saved); err != nil || string(got) != want {
		t.Errorf("saved big body at %q: %d bytes, %v; want the body", saved.Saved, len(got), err)
	}
	if !strings.HasPrefix(saved.Saved, opts.OutputDir) || !strings.HasSuffix(saved.Saved, ".txt") {
		t.Errorf("saved to %q, want a .txt in %s", saved.Saved, opts.OutputDir)
	}

	pixel := e.mustGet(browser.NetworkGet{ID: request(t, l, "/api/pixel.png").ID})
	if !pixel.BodyBinary || pixel.Body != "" || pixel.BodyBytes != len(backendtest.PixelPNG()) {
		t.Errorf("pixel: binary %v, body %q, %d bytes", pixel.BodyBinary, pixel.Body, pixel.BodyBytes)
	}
	pixel = e.mustGet(browser.NetworkGet{ID: request(t, l, "/api/pixel.png").ID, Save: true})
	if got, err := os.ReadFile(pixel.Saved); err != nil || !bytes.Equal(got, backendtest.PixelPNG()) || !strings.HasSuffix(pixel.Saved, ".png") {
		t.Errorf("saved pixel at %q: %v, %v", pixel.Saved, len(got), err)
	}

	// An id that is not (or no longer) in the buffer.
	_, err := e.netGet(browser.NetworkGet{ID: "n9999"})
	be := wantCode(t, err, browser.CodeInvalidArgument)
	if len(be.Suggestions) == 0 || !strings.HasPrefix(be.Suggestions[0], l.Requests[len(l.Requests)-1].ID+" ") {
		t.Errorf("unknown id: suggestions %v, want the newest ids first", be.Suggestions)
	}

	// After the page goes, its bodies go too, and get says so.
	e.navigate("/basic.html")
	gone := e.mustGet(browser.NetworkGet{ID: request(t, l, "/api/echo").ID})
	if gone.NoBody == "" || gone.Body != "" {
		t.Errorf("body of a request of a page left: %+v", gone)
	}

	// clear empties the buffer; its ids are not given out again.
	if n := e.clear(); n < 7 {
		t.Errorf("clear: %d requests, want at least 7", n)
	}
	// (The browser may ask for the page's icon after its load, so after
	// the clear: that request is new.)
	if l := e.mustList(browser.NetworkQuery{}); len(l.Requests) > 1 || len(l.Requests) == 1 && !strings.HasSuffix(l.Requests[0].URL, "/favicon.ico") {
		t.Errorf("after clear: %+v", l)
	}
	_, err = e.netGet(browser.NetworkGet{ID: bigID})
	be = wantCode(t, err, browser.CodeInvalidArgument)
	if !strings.Contains(be.Message, "no longer") {
		t.Errorf("a cleared id: %s", be.Message)
	}
	e.navigate("/basic.html")
	if l := e.mustList(browser.NetworkQuery{}); len(l.Requests) == 0 || l.Requests[0].ID == "n1" {
		t.Errorf("after clear and a navigation: %+v", l.Requests)
	}
}

func (e *env) clear() int {
	var n int
	_ = e.s.Do(e.ctx, func(ctx context.Context, h *browser.Held) error { n = h.Network().Clear(); return nil })
	return n
}

func hasHeader(hs []browser.Header, name, value string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) && strings.Contains(h.Value, value) {
			return true
		}
	}
	return false
}

// Credentials in headers and query parameters are redacted by default and
// shown with NoRedact.
func TestNetworkRedaction(t *testing.T) {
	secrets := []string{"tok-SECRET-123", "bearer-SECRET-456", "cookie-SECRET-789"}
	for _, noRedact := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoRedact=%v", noRedact), func(t *testing.T) {
			e := netEnv(t, browser.Options{NoRedact: noRedact})
			// The cookie /api/items set goes with the next request.
			e.eval(`fetch('/api/echo?again=1', {method: 'POST', body: 'x'}).then(() => document.title = 'again')`)
			e.waitTitle("again")
			// Through the extension, the request's events may come after the
			// reply that saw the title change: wait for them.
			l := e.listUntil("again=1")
			items := e.mustGet(browser.NetworkGet{ID: request(t, l, "/api/items?").ID})
			again := e.mustGet(browser.NetworkGet{ID: request(t, l, "again=1").ID})
			shown := fmt.Sprint(l.Requests, items, again)
			for _, s := range secrets[:2] {
				if strings.Contains(shown, s) == !noRedact {
					t.Errorf("%s shown: %v, want %v", s, !noRedact, noRedact)
				}
			}
			if items.URL != e.base+"/api/items?token=tok-SECRET-123&page=2" && noRedact ||
				items.URL != e.base+"/api/items?token=<redacted>&page=2" && !noRedact {
				t.Errorf("items URL %s", items.URL)
			}
			auth := "Bearer bearer-SECRET-456"
			if !noRedact {
				auth = "Bearer <redacted>"
			}
			if !hasHeader(items.RequestHeaders, "Authorization", auth) {
				t.Errorf("items request headers %v, want Authorization: %s", items.RequestHeaders, auth)
			}
			// Every backend reports the headers as sent and received
			// (the ExtraInfo events).
			if !items.RawResponse || !again.RawRequest {
				t.Errorf("raw headers: response %v, request %v; want both", items.RawResponse, again.RawRequest)
			}
			{
				cookie := "sid=cookie-SECRET-789; Path=/; HttpOnly"
				if !noRedact {
					cookie = "sid=<redacted>; Path=/; HttpOnly"
				}
				if !hasHeader(items.ResponseHeaders, "Set-Cookie", cookie) {
					t.Errorf("items response headers %v, want Set-Cookie: %s", items.ResponseHeaders, cookie)
				}
			}
			{
				cookie := "sid=cookie-SECRET-789"
				if !noRedact {
					cookie = "sid=<redacted>"
				}
				if !hasHeader(again.RequestHeaders, "Cookie", cookie) {
					t.Errorf("second request headers %v, want Cookie: %s", again.RequestHeaders, cookie)
				}
			}
			if !noRedact && strings.Contains(shown, secrets[2]) {
				t.Errorf("the cookie's value is shown: %s", shown)
			}
		})
	}
}

// The requests of an out-of-process (cross-site) frame are recorded in its
// tab's list, and their bodies are read from the frame's own session.
func TestNetworkCrossSiteFrame(t *testing.T) {
	e := newEnv(t, browser.Options{})
	other := otherSite(t)
	e.navigate("/eval/frames.html?other=" + url.QueryEscape(other))
	var cross browser.FrameInfo
	for _, f := range e.frames() {
		if f.Name == "cross" {
			cross = f
		}
	}
	if !cross.OutOfProcess {
		t.Fatalf("no out-of-process frame: %+v", cross)
	}
	res := e.mustRun(browser.EvalOptions{Expression: "await (await fetch('/network/data.json')).text()", Frame: cross.Frame})
	if !strings.Contains(res.Value, "cross-site frame") {
		t.Fatalf("fetch in the frame: %s", res.Value)
	}
	// The fetch has returned; its end reaches the buffer a moment later.
	var r browser.NetRequest
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if l := e.mustList(browser.NetworkQuery{Filter: "data.json"}); len(l.Requests) > 0 {
			if r = request(t, l, other+"/network/data.json"); !r.Pending {
				break
			}
		}
	}
	if r.ID == "" {
		t.Fatalf("the frame's fetch of data.json is not recorded: %+v", e.mustList(browser.NetworkQuery{}).Requests)
	}
	if r.Type != "fetch" || r.Status != 200 || r.Tab != "t1" {
		t.Errorf("the frame's fetch: %+v", r)
	}
	if d := e.mustGet(browser.NetworkGet{ID: r.ID}); d.Body != `{"from": "a cross-site frame"}` {
		t.Errorf("the frame's response body: %q (%s)", d.Body, d.NoBody)
	}
	// The frame's document came through the page's session.
	request(t, e.mustList(browser.NetworkQuery{Type: "document", Filter: "who=cross"}), other+"/eval/child.html?who=cross")
}
