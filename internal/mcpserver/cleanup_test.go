package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// tabOpen reports whether a tab whose URL contains marker is open in the
// browser (the backend's own listing).
func tabOpen(t *testing.T, ctx context.Context, m *browser.Manager, marker string) bool {
	t.Helper()
	tabs, err := m.Backend().Tabs(ctx)
	if err != nil {
		t.Fatalf("list the browser's tabs: %v", err)
	}
	for _, tab := range tabs {
		if strings.Contains(tab.URL, marker) {
			return true
		}
	}
	return false
}

// eventually polls cond until it holds, failing the test with what after
// the scaled 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(20 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// marker is a query string unique to the test, to find its tabs.
func marker(t *testing.T) string {
	return fmt.Sprintf("m=%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

// A client that closes its MCP session has, after the departure grace, its
// default browser session removed and the tab it opened closed.
func TestHTTPDepartedClientSessionRemoved(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{DepartedGrace: 100 * time.Millisecond})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mk := marker(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html?" + mk, "snapshot": "none"})
	name := mcpserver.ClientSessionName(cs.ID())
	if !slices.Contains(m.SessionNames(), name) || !tabOpen(t, ctx, m, mk) {
		t.Fatalf("before leaving: session %q in %v, tab open %v", name, m.SessionNames(), tabOpen(t, ctx, m, mk))
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close the MCP session: %v", err)
	}
	eventually(t, "the departed client's session "+name+" is removed", func() bool { return !slices.Contains(m.SessionNames(), name) })
	eventually(t, "the departed client's tab is closed", func() bool { return !tabOpen(t, ctx, m, mk) })
}

// A client's sessions are its own, the ones it named too: they go with it
// when it leaves, tabs and all, and no other client reached them meanwhile.
func TestHTTPClientSessionsGoWithClient(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{DepartedGrace: 100 * time.Millisecond})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mk := marker(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": "about:blank", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html?" + mk, "session": "team", "snapshot": "none"})
	own := mcpserver.ClientSessionName(cs.ID())
	if !slices.Contains(m.SessionNames(), own+"/team") {
		t.Fatalf("the client's session team: %v", m.SessionNames())
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close the MCP session: %v", err)
	}
	eventually(t, "the departed client's own session "+own+" is removed", func() bool { return !slices.Contains(m.SessionNames(), own) })
	eventually(t, "the session it named is removed", func() bool { return !slices.Contains(m.SessionNames(), own+"/team") })
	eventually(t, "its tab is closed", func() bool { return !tabOpen(t, ctx, m, mk) })
}

// headerTransport sets headers on every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A client whose calls default to a session it names (the proxy's and the
// CLI's --session, sent as Webpilot-Session) leaves that session behind
// when it goes: the next client naming it finds its tab (webpilot call
// --session, once a minute or less).
func TestHTTPNamedDefaultSessionOutlivesClient(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{DepartedGrace: 100 * time.Millisecond})
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: h.base + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{mcpserver.SessionHeader: "cli-named"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	mk := marker(t)
	first := connect()
	mustCall(t, ctx, first, "browser_navigate", map[string]any{"url": base + "/basic.html?" + mk, "snapshot": "none"})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond) // four graces
	if !slices.Contains(m.SessionNames(), "cli-named") || !tabOpen(t, ctx, m, mk) {
		t.Fatalf("the named session went with its client: sessions %v", m.SessionNames())
	}
	second := connect()
	defer second.Close()
	if out := mustCall(t, ctx, second, "browser_tabs", map[string]any{"action": "list"}); !strings.Contains(out, mk) {
		t.Errorf("the next client naming the session does not find its tab:\n%s", out)
	}
	if _, err := m.Remove(ctx, "cli-named"); err != nil {
		t.Error(err)
	}
}

// A session without a call for SessionIdle is removed and its tab closed,
// while a connected client's default session and Deps.DefaultSession stay,
// idle as they are. (A name a client gives is a session of its own: its
// key carries the client's namespace.)
func TestHTTPIdleSessionRemoved(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{SessionIdle: 300 * time.Millisecond})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mk := marker(t)
	own := mcpserver.ClientSessionName(cs.ID())
	idle := own + "/idle-one"
	m.Session("default") // the server's default (stdio's)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": "about:blank", "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html?" + mk, "session": "idle-one", "snapshot": "none"})
	if !slices.Contains(m.SessionNames(), idle) {
		t.Fatalf("the client's session idle-one is not %s: %v", idle, m.SessionNames())
	}
	eventually(t, "the idle session is removed", func() bool { return !slices.Contains(m.SessionNames(), idle) })
	eventually(t, "the idle session's tab is closed", func() bool { return !tabOpen(t, ctx, m, mk) })
	for _, keep := range []string{own, "default"} {
		if !slices.Contains(m.SessionNames(), keep) {
			t.Errorf("session %q was removed as idle: sessions %v", keep, m.SessionNames())
		}
	}
	// The name makes a fresh session on its next call.
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": "about:blank", "session": "idle-one", "snapshot": "none"})
	if !slices.Contains(m.SessionNames(), idle) {
		t.Errorf("a call naming the removed session did not make it again: %v", m.SessionNames())
	}
}

// Removing a session waits for the call holding it: the navigation in
// flight answers in full, then the session and its tab go, and the next
// call makes a fresh session.
func TestRemoveWaitsForCall(t *testing.T) {
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

	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": "about:blank", "snapshot": "none"})
	name := mcpserver.ClientSessionName(cs.ID())
	mk := marker(t)
	got := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(ctx, callParams("browser_navigate", map[string]any{"url": "http://" + ln.Addr().String() + "/slow?" + mk}))
		if err != nil || res.IsError {
			got <- fmt.Sprintf("FAILED: %v %s", err, textOf(res))
			return
		}
		got <- textOf(res)
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the navigation never reached the page's server")
	}
	type removal struct {
		removed bool
		err     error
	}
	removed := make(chan removal, 1)
	go func() {
		ok, err := m.Remove(ctx, name)
		removed <- removal{ok, err}
	}()
	time.Sleep(100 * time.Millisecond) // let Remove wait for the session
	select {
	case r := <-removed:
		t.Fatalf("Remove returned while a call held the session: %+v", r)
	default:
	}
	if !slices.Contains(m.SessionNames(), name) {
		t.Fatal("the session was deleted while a call held it")
	}
	close(release)
	if text := <-got; !strings.Contains(text, "Slow page arrived") {
		t.Fatalf("the call in flight was cut by the removal:\n%s", text)
	}
	if r := <-removed; !r.removed || r.err != nil {
		t.Fatalf("Remove = %v, %v; want true, nil", r.removed, r.err)
	}
	if slices.Contains(m.SessionNames(), name) {
		t.Errorf("session %q still in the manager after Remove", name)
	}
	eventually(t, "the removed session's tab is closed", func() bool { return !tabOpen(t, ctx, m, mk) })
	tabs := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"})
	if strings.Contains(tabs, mk) {
		t.Errorf("the next call sees the removed session's tab:\n%s", tabs)
	}
	if !slices.Contains(m.SessionNames(), name) {
		t.Errorf("the next call did not make session %q again", name)
	}
}

// A client whose MCP session expires (SessionTimeout, without a word from
// the client) departs as one that closed it does.
func TestHTTPExpiredClientSessionRemoved(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{SessionTimeout: 500 * time.Millisecond, DepartedGrace: 100 * time.Millisecond})
	cs, err := httpClient(t, ctx, h.base, "")
	if err != nil {
		t.Fatal(err)
	}
	mk := marker(t)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html?" + mk, "snapshot": "none"})
	name := mcpserver.ClientSessionName(cs.ID())
	eventually(t, "the expired client's session "+name+" is removed", func() bool { return !slices.Contains(m.SessionNames(), name) })
	eventually(t, "the expired client's tab is closed", func() bool { return !tabOpen(t, ctx, m, mk) })
}

// rawSession is an MCP session over raw HTTP: a client that, like the
// TypeScript SDK's, opens an event stream and leaves without a DELETE.
type rawSession struct {
	t    *testing.T
	base string
	id   string
	next int
}

// rawInit initializes a raw session and sends notifications/initialized.
func rawInit(t *testing.T, ctx context.Context, base string) *rawSession {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	rs := &rawSession{t: t, base: base, id: res.Header.Get("Mcp-Session-Id"), next: 2}
	if res.StatusCode != http.StatusOK || rs.id == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, rs.id)
	}
	if code := rs.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); code >= 300 {
		t.Fatalf("notifications/initialized: %d", code)
	}
	return rs
}

func (rs *rawSession) post(body string) int {
	rs.t.Helper()
	return post(rs.t, rs.base, map[string]string{"Mcp-Session-Id": rs.id, "Mcp-Protocol-Version": "2025-06-18"}, strings.NewReader(body))
}

// call calls a tool and returns the HTTP status.
func (rs *rawSession) call(tool, args string) int {
	rs.t.Helper()
	rs.next++
	return rs.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, rs.next, tool, args))
}

// stream opens the session's event stream (GET) and returns once the
// server answered it; cancel closes it from the client's side. A stream
// the server still holds from before (409) is asked for again, as a
// client's reconnect does. What the stream carries goes to seen, if set.
func (rs *rawSession) stream(ctx context.Context, seen ...*outBuffer) (cancel func()) {
	rs.t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(20 * time.Second))
	for {
		sctx, cancel := context.WithCancel(ctx)
		req, _ := http.NewRequestWithContext(sctx, http.MethodGet, rs.base+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", rs.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			rs.t.Fatalf("GET /mcp: %v", err)
		}
		if res.StatusCode == http.StatusConflict && time.Now().Before(deadline) {
			res.Body.Close()
			cancel()
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if res.StatusCode != http.StatusOK {
			cancel()
			rs.t.Fatalf("GET /mcp: %d", res.StatusCode)
		}
		var out io.Writer = io.Discard
		if len(seen) > 0 {
			out = seen[0]
		}
		go func() { _, _ = io.Copy(out, res.Body); res.Body.Close() }()
		return cancel
	}
}

// A client that closes its event stream and goes without ending its MCP
// session (the TypeScript SDK's close(), the Inspector CLI) gives its browser
// back after StreamGoneGrace and the departure grace, not after the session
// timeout; one that opens its stream again (a reconnect) keeps its session.
func TestHTTPClientGoneWhenStreamCloses(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	const grace = 300 * time.Millisecond
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{DepartedGrace: 100 * time.Millisecond, StreamGoneGrace: grace})

	gone, back := rawInit(t, ctx, h.base), rawInit(t, ctx, h.base)
	mk := marker(t)
	for _, rs := range []*rawSession{gone, back} {
		if code := rs.call("browser_navigate", fmt.Sprintf(`{"url":%q,"snapshot":"none"}`, base+"/basic.html?"+mk+"-"+rs.id)); code != http.StatusOK {
			t.Fatalf("navigate: %d", code)
		}
	}
	goneName, backName := mcpserver.ClientSessionName(gone.id), mcpserver.ClientSessionName(back.id)
	if names := m.SessionNames(); !slices.Contains(names, goneName) || !slices.Contains(names, backName) {
		t.Fatalf("sessions %v, want %s and %s", names, goneName, backName)
	}

	closeGone, closeBack := gone.stream(ctx), back.stream(ctx)
	closeBack()
	closeBack = back.stream(ctx) // the reconnect, at once
	defer closeBack()
	closeGone()
	eventually(t, "the session of the client that left is removed", func() bool { return !slices.Contains(m.SessionNames(), goneName) })
	eventually(t, "its tab is closed", func() bool { return !tabOpen(t, ctx, m, mk+"-"+gone.id) })
	if code := gone.post(`{"jsonrpc":"2.0","id":99,"method":"ping"}`); code != http.StatusNotFound {
		t.Errorf("the MCP session of the client that left answers %d, want 404", code)
	}
	// The reconnected client: past the grace it still has its session.
	time.Sleep(3 * grace)
	if code := back.call("browser_status", `{}`); code != http.StatusOK || !slices.Contains(m.SessionNames(), backName) {
		t.Errorf("the reconnected client: call %d, sessions %v", code, m.SessionNames())
	}
	if !tabOpen(t, ctx, m, mk+"-"+back.id) {
		t.Error("the reconnected client's tab was closed")
	}
}

// An idle event stream carries a comment every StreamKeepAlive, so that a
// client or proxy that drops a silent stream keeps it (and is not taken
// for a client that left).
func TestHTTPStreamKeepAlive(t *testing.T) {
	ctx := backendtest.Context(t, 60*time.Second)
	h := serveHTTP(t, &tools.Deps{Manager: idleManager(t)}, mcpserver.HTTPOptions{StreamKeepAlive: 50 * time.Millisecond})
	rs := rawInit(t, ctx, h.base)
	seen := new(outBuffer)
	defer rs.stream(ctx, seen)()
	eventually(t, "the idle stream carries two keep-alive comments", func() bool { return strings.Count(seen.String(), ": keepalive\n\n") >= 2 })
	// The session works on, its stream too.
	if code := rs.call("browser_status", `{}`); code != http.StatusOK {
		t.Errorf("a call beside the stream: %d", code)
	}
}

// A client that leaves while a call of its runs (its stream and its POST
// cut off: Ctrl-C in a client) is taken as gone once the call is over: the
// call is cut, its session closed, its browser session removed, long
// before the call's own timeout.
func TestHTTPClientGoneDuringCall(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	m := sharedManager(t)
	h := serveHTTP(t, &tools.Deps{Manager: m}, mcpserver.HTTPOptions{DepartedGrace: 100 * time.Millisecond, StreamGoneGrace: 200 * time.Millisecond})
	rs := rawInit(t, ctx, h.base)
	if code := rs.call("browser_navigate", fmt.Sprintf(`{"url":%q,"snapshot":"none"}`, base+"/basic.html?"+marker(t))); code != http.StatusOK {
		t.Fatalf("navigate: %d", code)
	}
	name := mcpserver.ClientSessionName(rs.id)
	closeStream := rs.stream(ctx)
	// A wait that would run for two minutes, on a POST the client cuts.
	pctx, cutPost := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(pctx, http.MethodPost, h.base+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"browser_wait","arguments":{"conditions":[{"text":"never shown"}],"timeout_ms":120000}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", rs.id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		if res, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	eventually(t, "the wait is running", func() bool {
		for _, c := range h.srv.Clients() {
			if c.ID == name && c.Calls >= 2 {
				return true
			}
		}
		return false
	})
	closeStream()
	cutPost()
	<-posted
	eventually(t, "the session of the client that left during its call is removed", func() bool { return !slices.Contains(m.SessionNames(), name) })
	if code := rs.post(`{"jsonrpc":"2.0","id":99,"method":"ping"}`); code != http.StatusNotFound {
		t.Errorf("the MCP session of the client that left answers %d, want 404", code)
	}
}
