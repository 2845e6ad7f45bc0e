package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// httpServer is a webpilot served over HTTP on a loopback port for a test.
type httpServer struct {
	srv  *mcpserver.Server
	base string // http://127.0.0.1:PORT
	stop context.CancelFunc
	done chan error // RunHTTP's result
}

// serveHTTP serves deps over HTTP on 127.0.0.1 until the test ends (or
// stop is called).
func serveHTTP(t *testing.T, deps *tools.Deps, o mcpserver.HTTPOptions) *httpServer {
	t.Helper()
	return serveHTTPWith(t, mcpserver.Options{Deps: deps}, o)
}

// serveHTTPWith is serveHTTP with the server's options.
func serveHTTPWith(t *testing.T, opts mcpserver.Options, o mcpserver.HTTPOptions) *httpServer {
	t.Helper()
	opts.Name, opts.Version = "webpilot", "test"
	srv := mcpserver.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &httpServer{srv: srv, base: "http://" + ln.Addr().String(), stop: cancel, done: make(chan error, 1)}
	go func() { h.done <- srv.RunHTTP(ctx, ln, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-h.done; err != nil {
			t.Errorf("RunHTTP: %v", err)
		}
	})
	return h
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient connects a go-sdk client over Streamable HTTP (with the token
// when not "").
func httpClient(t *testing.T, ctx context.Context, base, token string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp"}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearer{token}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}

// health reads /health.
func health(t *testing.T, base string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/health", nil)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /health: %v", err)
	}
	defer res.Body.Close()
	var body map[string]any
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatalf("/health: %v", err)
		}
	}
	return res.StatusCode, body
}

// sessions is /health's session count.
func sessions(t *testing.T, base string) int {
	t.Helper()
	code, body := health(t, base, nil)
	if code != http.StatusOK {
		t.Fatalf("/health: %d", code)
	}
	return int(body["sessions"].(float64))
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends a raw POST to /mcp and returns the status.
func post(t *testing.T, base string, header map[string]string, body io.Reader) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /mcp: %v", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
	res.Body.Close()
	return res.StatusCode
}

// Over HTTP with the go-sdk client: initialize, tools/list, a navigation to
// a fixture page and a snapshot of it.
func TestHTTPEndToEnd(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	h := serveHTTP(t, &tools.Deps{Manager: sharedManager(t)}, mcpserver.HTTPOptions{})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	if cs.ID() == "" {
		t.Error("the HTTP session has no id: not stateful")
	}
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(tl.Tools) == 0 || !hasTool(tl.Tools, "browser_navigate") {
		t.Fatalf("tools/list lacks browser_navigate: %d tools", len(tl.Tools))
	}
	nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	if !strings.Contains(nav, "Basic page") {
		t.Errorf("navigate's snapshot lacks the page title:\n%s", nav)
	}
	snap := mustCall(t, ctx, cs, "browser_snapshot", nil)
	if !strings.Contains(snap, `button`) || !strings.Contains(snap, "Clicked 0 times") {
		t.Errorf("snapshot lacks the page's button:\n%s", snap)
	}
}

func hasTool(ts []*mcp.Tool, name string) bool {
	for _, tl := range ts {
		if tl.Name == name {
			return true
		}
	}
	return false
}

// Two HTTP clients at once each get a browser session of their own: each
// one's navigation shows only in its own snapshot, and two sessions named
// after the clients exist; a client that names a session shares it.
func TestHTTPClientsOwnSessions(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{})
	pages := []struct{ path, title, other string }{
		{"/basic.html", "Basic page", "Sign up"},
		{"/form.html", "Sign up", "Basic page"},
	}
	clients := make([]*mcp.ClientSession, len(pages))
	for i := range clients {
		cs, err := httpClient(t, ctx, h.base, "")
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		clients[i] = cs
	}
	var wg sync.WaitGroup
	errs := make([]string, len(pages))
	for i, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := clients[i].CallTool(ctx, callParams("browser_navigate", map[string]any{"url": base + p.path, "snapshot": "none"}))
			if err != nil || res.IsError {
				errs[i] = fmt.Sprintf("client %d navigate: %v %s", i, err, textOf(res))
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	for i, p := range pages {
		snap := mustCall(t, ctx, clients[i], "browser_snapshot", nil)
		if !strings.Contains(snap, p.title) || strings.Contains(snap, p.other) {
			t.Errorf("client %d's snapshot should show %q and not %q:\n%s", i, p.title, p.other, snap)
		}
	}
	want := map[string]bool{mcpserver.ClientSessionName(clients[0].ID()): true, mcpserver.ClientSessionName(clients[1].ID()): true}
	if len(want) != 2 {
		t.Fatalf("the two clients' default sessions have the same name: %v", want)
	}
	for _, name := range m.SessionNames() {
		delete(want, name)
	}
	if len(want) != 0 {
		t.Errorf("sessions %v missing from the manager's %v", want, m.SessionNames())
	}
	// A name is the client's own: two clients naming "team" have a session
	// each, and the other's default session, named, is out of reach: its
	// page, its requests, its tabs, closing it.
	mustCall(t, ctx, clients[0], "browser_navigate", map[string]any{"url": base + "/basic.html?team=0", "session": "team", "snapshot": "none"})
	if snap := mustCall(t, ctx, clients[1], "browser_snapshot", map[string]any{"session": "team"}); strings.Contains(snap, "Basic page") {
		t.Errorf("client 1 reached client 0's session team:\n%s", snap)
	}
	victim := mcpserver.ClientSessionName(clients[0].ID())
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_status", nil}, // first: naming it below makes a session of that name of client 1's own
		{"browser_snapshot", map[string]any{"session": victim}},
		{"browser_tabs", map[string]any{"action": "list", "session": victim}},
		{"browser_read", map[string]any{"what": "url", "session": victim}},
		{"browser_close", map[string]any{"session": victim}},
	} {
		out, _ := call(t, ctx, clients[1], c.tool, c.args)
		if strings.Contains(out, pages[0].title) || strings.Contains(out, pages[0].path) || c.tool == "browser_status" && strings.Contains(out, victim) {
			t.Errorf("client 1's %s %v reached client 0's session:\n%s", c.tool, c.args, out)
		}
	}
	// Named by the session header (the proxy's and the CLI's --session),
	// by argument, in any case: refused, and said why (issue 47, 7).
	for _, name := range []string{victim, strings.ToUpper(victim)} {
		req, _ := http.NewRequest(http.MethodPost, h.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcpserver.SessionHeader, name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "only their client reaches") {
			t.Errorf("a client naming %s by the session header: %d %s", name, resp.StatusCode, body)
		}
	}
	if body := mustFail(t, ctx, clients[1], "browser_snapshot", map[string]any{"session": victim}, "INVALID_ARGUMENT"); !strings.Contains(body.Error.Message, "only their client reaches") {
		t.Errorf("naming another client's session: %+v", body)
	}
	if snap := mustCall(t, ctx, clients[0], "browser_snapshot", nil); !strings.Contains(snap, pages[0].title) {
		t.Errorf("client 0's own page after client 1 named its session:\n%s", snap)
	}
	if st := mustCall(t, ctx, clients[0], "browser_status", map[string]any{"verbose": true}); !strings.Contains(st, `"team"`) || strings.Contains(st, mcpserver.ClientSessionName(clients[1].ID())) {
		t.Errorf("client 0's status should list its own sessions only:\n%s", st)
	}
}

// /health names the version, the backend's kind, the browser's state, the
// MCP sessions open and the uptime.
func TestHTTPHealth(t *testing.T) {
	ctx := backendtest.Context(t, 30*time.Second)
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)}, mcpserver.HTTPOptions{})
	code, body := health(t, h.base, nil)
	if code != http.StatusOK {
		t.Fatalf("/health: %d", code)
	}
	for k, want := range map[string]any{"version": "test", "backend": "launch", "browser": "down", "sessions": 0.0} {
		if body[k] != want {
			t.Errorf("/health %s = %v, want %v (%v)", k, body[k], want, body)
		}
	}
	if up, ok := body["uptime_s"].(float64); !ok || up < 0 {
		t.Errorf("/health uptime_s = %v", body["uptime_s"])
	}
	if _, err := httpClient(t, ctx, h.base, ""); err != nil {
		t.Fatal(err)
	}
	// The client may first try a protocol the stateful server refuses; the
	// session that try opened closes once its request is over.
	n := sessions(t, h.base)
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); n != 1 && time.Now().Before(deadline); n = sessions(t, h.base) {
		time.Sleep(10 * time.Millisecond)
	}
	if n != 1 {
		t.Errorf("/health sessions = %d after one client connected, want 1", n)
	}
}

// The checks that keep a web page in the user's browser from driving it:
// a foreign Host (DNS rebinding), a foreign Origin, a cross-site fetch, and
// the "simple" POST a page can send without a preflight. None of them
// creates a session or reaches the server's request handling (where
// --prewarm would start the browser); the server's own Host and Origin are
// taken.
func TestHTTPRefusesCrossSite(t *testing.T) {
	var reached atomic.Int32
	h := serveHTTPWith(t, mcpserver.Options{Deps: &tools.Deps{Manager: idleManager(t)}, OnInitialized: func() { reached.Add(1) }}, mcpserver.HTTPOptions{})
	port := h.base[strings.LastIndex(h.base, ":")+1:]
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"evil host", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"evil host with port", map[string]string{"Host": "evil.example:" + port}, http.StatusForbidden},
		{"evil origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"null origin", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"other local origin", map[string]string{"Origin": "http://localhost:1"}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"simple POST from a page", map[string]string{"Content-Type": "text/plain; charset=application/json", "Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"simple POST without origin", map[string]string{"Content-Type": "text/plain; charset=application/json"}, http.StatusUnsupportedMediaType},
		{"form POST", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
	}
	for _, c := range cases {
		if got := post(t, h.base, c.header, strings.NewReader(initBody)); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	if code, _ := health(t, h.base, map[string]string{"Host": "evil.example"}); code != http.StatusForbidden {
		t.Errorf("/health with Host evil.example: %d, want 403", code)
	}
	if n := sessions(t, h.base); n != 0 {
		t.Fatalf("refused requests created %d MCP sessions", n)
	}
	if reached.Load() != 0 {
		t.Fatal("a refused request reached the MCP server (OnInitialized ran)")
	}
	for _, header := range []map[string]string{
		{"Host": "localhost:" + port, "Origin": "http://localhost:" + port},
		{"Host": "127.0.0.1:" + port, "Origin": "http://127.0.0.1:" + port, "Sec-Fetch-Site": "same-origin"},
		{"Host": "[::1]:" + port},
	} {
		if got := post(t, h.base, header, strings.NewReader(initBody)); got != http.StatusOK {
			t.Errorf("%v: status %d, want 200", header, got)
		}
	}
	if n := sessions(t, h.base); n != 3 {
		t.Errorf("%d sessions after three accepted initializes, want 3", n)
	}
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); reached.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // OnInitialized runs in its own goroutine
	}
	if reached.Load() != 1 {
		t.Errorf("OnInitialized ran %d times after accepted initializes, want once", reached.Load())
	}
}

// With a token every request needs it: none or a wrong one is 401, /health
// included; the right one works for the go-sdk client.
func TestHTTPToken(t *testing.T) {
	ctx := backendtest.Context(t, 30*time.Second)
	const token = "s3cret-token-0123456789"
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)}, mcpserver.HTTPOptions{Token: token})
	for name, header := range map[string]map[string]string{
		"none":   nil,
		"wrong":  {"Authorization": "Bearer s3cret-token-0123456788"},
		"prefix": {"Authorization": "Bearer " + token[:10]},
		"basic":  {"Authorization": "Basic " + token},
	} {
		if got := post(t, h.base, header, strings.NewReader(initBody)); got != http.StatusUnauthorized {
			t.Errorf("token %s: POST status %d, want 401", name, got)
		}
		if code, _ := health(t, h.base, header); code != http.StatusUnauthorized {
			t.Errorf("token %s: /health status %d, want 401", name, code)
		}
	}
	if _, err := httpClient(t, ctx, h.base, ""); err == nil {
		t.Error("a client without the token connected")
	}
	auth := map[string]string{"Authorization": "Bearer " + token}
	if code, body := health(t, h.base, auth); code != http.StatusOK || body["sessions"] != 0.0 {
		t.Fatalf("/health with the token: %d %v", code, body)
	}
	cs, err := httpClient(t, ctx, h.base, token)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list with the token: %v", err)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	n, size int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= c.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.size-c.n)]
	for i := range p {
		p[i] = ' '
	}
	atomic.AddInt64(&c.n, int64(len(p)))
	return len(p), nil
}

// A 50 MB body is refused with 413 after a small part of it was sent,
// whether its length is announced or not.
func TestHTTPBodyLimit(t *testing.T) {
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)}, mcpserver.HTTPOptions{})
	const size = 50 << 20
	for _, chunked := range []bool{false, true} {
		body := &countingReader{size: size}
		req, _ := http.NewRequest(http.MethodPost, h.base+"/mcp", body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.ContentLength = size
		if chunked {
			req.ContentLength = -1
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("chunked=%v: %v", chunked, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked=%v: status %d, want 413", chunked, res.StatusCode)
		}
		if n := atomic.LoadInt64(&body.n); n > 16<<20 {
			t.Errorf("chunked=%v: %d bytes of the body were read, want far fewer than %d", chunked, n, size)
		} else {
			t.Logf("chunked=%v: 413 after %d of %d bytes", chunked, n, size)
		}
	}
	if n := sessions(t, h.base); n != 0 {
		t.Errorf("%d sessions after refused bodies", n)
	}
}

// 300 initializes without a client behind them: the sessions open at once
// stay within the bound (the rest get 503), and idle ones expire.
func TestHTTPSessionsBounded(t *testing.T) {
	const maxSessions = 20
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)},
		mcpserver.HTTPOptions{MaxSessions: maxSessions, SessionTimeout: 200 * time.Millisecond})
	var ok, busy, other atomic.Int32
	var peak atomic.Int32
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				switch post(t, h.base, nil, strings.NewReader(initBody)) {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusServiceUnavailable:
					busy.Add(1)
				default:
					other.Add(1)
				}
				if n := int32(h.srv.Sessions()); n > peak.Load() {
					peak.Store(n)
				}
			}
		}()
	}
	for i := range 300 {
		work <- i
	}
	close(work)
	wg.Wait()
	t.Logf("300 initializes: %d accepted, %d refused (busy), peak %d sessions", ok.Load(), busy.Load(), peak.Load())
	if other.Load() != 0 {
		t.Errorf("%d initializes got a status other than 200 or 503", other.Load())
	}
	if ok.Load() < maxSessions {
		t.Errorf("only %d initializes accepted, want at least %d", ok.Load(), maxSessions)
	}
	if peak.Load() > maxSessions {
		t.Errorf("peak of %d sessions, over the bound %d", peak.Load(), maxSessions)
	}
	deadline := time.Now().Add(backendtest.Timeout(20 * time.Second))
	for sessions(t, h.base) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d idle sessions did not expire", sessions(t, h.base))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Told to stop while a navigation runs, the server refuses new sessions,
// lets the call finish and answer, and returns; then the listener is closed.
func TestHTTPShutdownFinishesCall(t *testing.T) {
	ctx := backendtest.Context(t, 90*time.Second)
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	slow := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			http.NotFound(w, r)
			return
		}
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<!doctype html><title>Slow page</title><h1>Slow page arrived</h1>")
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = slow.Serve(ln) }()
	t.Cleanup(func() { _ = slow.Close() })

	h := serveHTTP(t, &tools.Deps{Manager: sharedManager(t)}, mcpserver.HTTPOptions{})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": "about:blank", "snapshot": "none"}) // the browser is up
	type outcome struct {
		text  string
		isErr bool
		err   error
	}
	got := make(chan outcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, callParams("browser_navigate", map[string]any{"url": "http://" + ln.Addr().String() + "/slow"}))
		got <- outcome{textOf(res), res != nil && res.IsError, err}
	}()
	select {
	case <-entered: // the navigation is in flight
	case <-ctx.Done():
		t.Fatal("the navigation never reached the page's server")
	}
	h.stop()
	// While the call finishes, a new session is refused.
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for post(t, h.base, nil, strings.NewReader(initBody)) != http.StatusServiceUnavailable {
		if time.Now().After(deadline) {
			t.Fatal("new sessions are still taken after the stop")
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(release)
	o := <-got
	if o.err != nil || o.isErr || !strings.Contains(o.text, "Slow page arrived") {
		t.Fatalf("the call in flight did not finish: err=%v isError=%v\n%s", o.err, o.isErr, o.text)
	}
	select {
	case err := <-h.done:
		h.done <- err // for the cleanup
	case <-time.After(backendtest.Timeout(20 * time.Second)):
		t.Fatal("RunHTTP did not return after the stop")
	}
	if c, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://")); err == nil {
		c.Close()
		t.Error("the listener is still open after RunHTTP returned")
	}
}

// idleManager is a manager on a launch backend that starts nothing unless a
// tool needs the browser.
func idleManager(t *testing.T) *browser.Manager {
	return browser.NewManager(browser.Options{Backend: idleBackend(t)})
}

// Bare initializes (nothing sent after them) cannot hold every session slot
// for the long SessionTimeout: they are closed after BareSessionTimeout,
// and a real client then gets in; a client that calls a tool keeps its
// session (one that only listed them may make room: TestHTTPPingFloodHoldsNoSlots).
func TestHTTPBareSessionsExpireFast(t *testing.T) {
	const maxSessions = 5
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)},
		mcpserver.HTTPOptions{MaxSessions: maxSessions, BareSessionTimeout: 300 * time.Millisecond})
	ctx := backendtest.Context(t, 60*time.Second)
	used, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := used.CallTool(ctx, &mcp.CallToolParams{Name: "browser_status"}); err != nil {
		t.Fatal(err)
	}
	for range maxSessions - 1 {
		if code := post(t, h.base, nil, strings.NewReader(initBody)); code != http.StatusOK {
			t.Fatalf("a bare initialize: %d", code)
		}
	}
	if code := post(t, h.base, nil, strings.NewReader(initBody)); code != http.StatusServiceUnavailable {
		t.Fatalf("an initialize past the bound: %d, want 503", code)
	}
	eventually(t, "a real client gets in once the bare sessions are closed", func() bool {
		return post(t, h.base, nil, strings.NewReader(initBody)) == http.StatusOK
	})
	if _, err := used.ListTools(ctx, nil); err != nil {
		t.Errorf("the client that used its session lost it: %v", err)
	}
}

// A flood of initialize, ping and tools/list holds no slot for long
// (issue 47, 10): with every slot taken, a new client's initialize closes
// the oldest session that called no tool (BareEvictAge) instead of being
// refused; and a ping is no use of a session, so one that only pings is
// closed as a bare one is. A session that called a tool keeps its slot.
func TestHTTPPingFloodHoldsNoSlots(t *testing.T) {
	const maxSessions = 4
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)},
		mcpserver.HTTPOptions{MaxSessions: maxSessions, BareSessionTimeout: time.Hour})
	ctx := backendtest.Context(t, 60*time.Second)
	used, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := used.CallTool(ctx, &mcp.CallToolParams{Name: "browser_status"}); err != nil {
		t.Fatal(err)
	}
	// (raw requests: a client library may retry an initialize that is slow
	// to answer on a loaded machine, and take two slots)
	for range maxSessions - 1 {
		rs := rawInit(t, ctx, h.base)
		for _, body := range []string{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`} {
			if code := rs.post(body); code >= 300 {
				t.Fatalf("%s: %d", body, code)
			}
		}
	}
	eventually(t, "a new client gets a slot of a ping-only session", func() bool {
		return post(t, h.base, nil, strings.NewReader(initBody)) == http.StatusOK
	})
	if _, err := used.ListTools(ctx, nil); err != nil {
		t.Errorf("the client that used its session lost it: %v", err)
	}
}

// Each client's files are its own (issue 47, 4): on serve, a file the
// output directory holds for client A — its saved state, with cookie
// values — is refused to client B by every way B could read it (a route's
// fulfill file, state_load, an upload, raw CDP's file input), while A
// itself still loads it.
func TestHTTPClientsOwnFiles(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	out := t.TempDir()
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t), OutputDir: out, UploadRoots: []string{out}})
	t.Cleanup(func() {
		for _, name := range m.SessionNames() {
			_ = m.Session(name).Do(context.Background(), func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	sel, _ := tools.Select(tools.ProfileFull, "")
	h := serveHTTPWith(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m}}, mcpserver.HTTPOptions{})
	a, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, ctx, a, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"})
	saved := mustCall(t, ctx, a, "browser_storage", map[string]any{"action": "state_save", "force": true})
	i := strings.Index(saved, "Saved to ")
	if i < 0 {
		t.Fatalf("state_save:\n%s", saved)
	}
	path := strings.TrimSpace(strings.SplitN(saved[i+len("Saved to "):], "\n", 2)[0])
	mustCall(t, ctx, b, "browser_navigate", map[string]any{"url": base + "/act/upload.html", "snapshot": "none"})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_storage", map[string]any{"action": "state_load", "file": path, "force": true}},
		{"browser_storage", map[string]any{"action": "state_load", "file": filepath.Base(path), "force": true}},
		{"browser_route", map[string]any{"action": "add", "pattern": "/nothing-here", "fulfill": map[string]any{"file": path}}},
		{"browser_action", map[string]any{"action": "upload", "selector": "#files", "files": []any{path}}},
	} {
		body := mustFail(t, ctx, b, c.tool, c.args, "INVALID_ARGUMENT")
		if !strings.Contains(body.Error.Message, "another client") {
			t.Errorf("B's %s %v: %+v", c.tool, c.args, body.Error)
		}
	}
	if out := mustCall(t, ctx, a, "browser_storage", map[string]any{"action": "state_load", "file": path, "force": true}); !strings.Contains(out, "Loaded the storage state") {
		t.Errorf("A loading its own state:\n%s", out)
	}
}
