package mcpproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// daemonStub is an MCP server over Streamable HTTP standing in for the
// daemon: tools echo (names the stub), progress (reports progress, then
// answers) and hang (answers when released).
type daemonStub struct {
	name    string
	srv     *httptest.Server
	release chan struct{}
	started chan struct{}
	deletes atomic.Int32
	pings   atomic.Int32
	token   string
}

func newStub(t *testing.T, name string) *daemonStub {
	t.Helper()
	d := &daemonStub{name: name, release: make(chan struct{}), started: make(chan struct{}, 1), token: "tok-" + name}
	s := mcp.NewServer(&mcp.Implementation{Name: "stub", Version: "0"}, nil)
	type none struct{}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "from " + d.name + " session " + req.Extra.Header.Get("Webpilot-Session")}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half"})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		d.started <- struct{}{}
		select {
		case <-d.release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+d.token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			d.deletes.Add(1)
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), `"method":"ping"`) {
				d.pings.Add(1)
			}
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		d.srv.CloseClientConnections()
		d.srv.Close()
	})
	return d
}

func (d *daemonStub) endpoint() Endpoint { return Endpoint{URL: d.srv.URL, Token: d.token} }

// startProxy runs the proxy on pipes; connect answers with the current
// stub. It returns the host's ends and a channel that Run's error reaches.
func startProxy(t *testing.T, current func() *daemonStub, header http.Header, keepAlive ...time.Duration) (hostIn io.WriteCloser, hostOut io.Reader, done chan error, connects *atomic.Int32) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done = make(chan error, 1)
	connects = new(atomic.Int32)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- Run(ctx, inR, outW, Options{
			Connect: func(context.Context, *Endpoint) (Endpoint, error) {
				connects.Add(1)
				return current().endpoint(), nil
			},
			Header:    header,
			KeepAlive: append(keepAlive, 0)[0],
		})
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not end after stdin closed")
		}
		cancel()
	})
	return inW, outR, done, connects
}

// connectClient is a go-sdk client on the host's ends of the proxy.
func connectClient(t *testing.T, in io.WriteCloser, out io.Reader, onProgress func(*mcp.ProgressNotificationParams)) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if onProgress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { onProgress(r.Params) }
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "0"}, opts).
		Connect(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// The proxy relays a session: tools, a call with its progress
// notification, the session header; when the host closes stdin it ends the
// daemon session (DELETE).
func TestProxyRelays(t *testing.T) {
	stub := newStub(t, "a")
	hdr := http.Header{"Webpilot-Session": {"work"}}
	in, out, done, _ := startProxy(t, func() *daemonStub { return stub }, hdr)
	var progress atomic.Int32
	cs := connectClient(t, in, out, func(p *mcp.ProgressNotificationParams) {
		if p.Message == "half" {
			progress.Add(1)
		}
	})
	ctx := context.Background()
	tl, err := cs.ListTools(ctx, nil)
	if err != nil || len(tl.Tools) != 3 {
		t.Fatalf("tools/list: %v %v", tl, err)
	}
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != "from a session work" {
		t.Errorf("echo: %q", got)
	}
	p := &mcp.CallToolParams{Name: "progress"}
	p.SetProgressToken("p1")
	if got := call(t, cs, p); got != "done" {
		t.Errorf("progress call: %q", got)
	}
	// The client handles notifications on a goroutine of its own.
	for deadline := time.Now().Add(5 * time.Second); progress.Load() != 1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if progress.Load() != 1 {
		t.Errorf("%d progress notifications, want 1", progress.Load())
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	in.Close()
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end")
	}
	if stub.deletes.Load() != 1 {
		t.Errorf("%d DELETEs, want 1 (the session ended)", stub.deletes.Load())
	}
}

// When the daemon is gone, the next call reconnects (a new daemon, a new
// session with the host's initialize replayed) and succeeds; a call cut off
// by the loss is answered with an error that says it may have run.
func TestProxyReconnects(t *testing.T) {
	var mu sync.Mutex
	stub := newStub(t, "first")
	current := func() *daemonStub {
		mu.Lock()
		defer mu.Unlock()
		return stub
	}
	in, out, _, connects := startProxy(t, current, nil)
	cs := connectClient(t, in, out, nil)
	ctx := context.Background()
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != "from first session " {
		t.Fatalf("echo: %q", got)
	}

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	cut := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"})
		cut <- answer{res, err}
	}()
	<-stub.started
	old := stub
	mu.Lock()
	stub = newStub(t, "second")
	mu.Unlock()
	// The daemon's connections break; its hanging call is let go only
	// afterwards (so that its server can close).
	old.srv.Listener.Close()
	old.srv.CloseClientConnections()
	defer close(old.release)
	select {
	case a := <-cut:
		// A tool result in the error contract, not a protocol error.
		var body struct {
			Error struct{ Code, Message, Hint string } `json:"error"`
		}
		if a.err != nil || !a.res.IsError || len(a.res.Content) != 1 {
			t.Fatalf("the cut call: %+v %v, want an isError result", a.res, a.err)
		}
		if text := a.res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(text, "OUTCOME_UNKNOWN: ") || !strings.Contains(text, "\nHint: ") {
			t.Errorf("the cut call's text: %q", text)
		}
		if err := structured(a.res, &body); err != nil ||
			body.Error.Code != "OUTCOME_UNKNOWN" || !strings.Contains(body.Error.Message, "may or may not have run") || body.Error.Hint == "" {
			t.Errorf("the cut call's error: %+v %v", body, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cut call got no answer")
	}
	time.Sleep(500 * time.Millisecond) // as in TestProxyDaemonUnavailable
	// The first answer from the new daemon says that the tabs are gone.
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != LostNote+"\n\nfrom second session " {
		t.Errorf("echo after the daemon changed: %q", got)
	}
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != "from second session " {
		t.Errorf("the second echo after the daemon changed: %q", got)
	}
	if n := connects.Load(); n != 2 {
		t.Errorf("%d connects, want 2", n)
	}
	// The session goes on: more calls, no more reconnects.
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != "from second session " {
		t.Errorf("echo: %q", got)
	}
	if n := connects.Load(); n != 2 {
		t.Errorf("%d connects, want 2", n)
	}
}

// A line that is not JSON gets a parse error, and the proxy goes on.
func TestProxyBadLine(t *testing.T) {
	stub := newStub(t, "a")
	in, out, _, _ := startProxy(t, func() *daemonStub { return stub }, nil)
	r := bufio.NewReader(out)
	fmt.Fprintln(in, "this is not json")
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Error struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal(line, &msg); err != nil || msg.Error.Code != -32700 {
		t.Errorf("got %s, want a parse error", line)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	line, err = r.ReadBytes('\n')
	if err != nil || !strings.Contains(string(line), `"serverInfo"`) {
		t.Errorf("initialize after a bad line: %s %v", line, err)
	}
}

// When the daemon is gone and none can be started, a tool call gets an
// isError result (NO_BROWSER, with a hint), and the proxy keeps serving:
// once a daemon is back, the next call works.
func TestProxyDaemonUnavailable(t *testing.T) {
	stub := newStub(t, "a")
	var down atomic.Bool
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), inR, outW, Options{Connect: func(context.Context, *Endpoint) (Endpoint, error) {
			if down.Load() {
				return Endpoint{}, fmt.Errorf("the daemon exited while starting: no browser")
			}
			return stub.endpoint(), nil
		}})
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		<-done
	})
	cs := connectClient(t, inW, outR, nil)
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != "from a session " {
		t.Fatalf("echo: %q", got)
	}
	down.Store(true)
	stub.srv.Listener.Close()
	stub.srv.CloseClientConnections()
	// The daemon is gone before the call, not while it is being sent: the
	// proxy's HTTP client sees its kept-alive connections close first (a
	// call racing the daemon's death is OUTCOME_UNKNOWN, as above).
	time.Sleep(500 * time.Millisecond)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"})
	if err != nil || !res.IsError {
		t.Fatalf("call with no daemon: %+v %v, want an isError result", res, err)
	}
	var body struct {
		Error struct {
			Code, Message, Hint string
			Suggestions         []string
		} `json:"error"`
	}
	if err := structured(res, &body); err != nil ||
		body.Error.Code != "NO_BROWSER" || !strings.Contains(body.Error.Message, "no browser") || !strings.Contains(body.Error.Hint, "--standalone") {
		t.Errorf("error body: %+v %v", body, err)
	}
	stub = newStub(t, "b")
	down.Store(false)
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != LostNote+"\n\nfrom b session " {
		t.Errorf("echo once a daemon is back: %q", got)
	}
}

// The lost-session note goes first: before a result's text, and into an
// error's message (in its text and its structuredContent).
func TestWithLead(t *testing.T) {
	ok := withLead([]byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"# Page"}]}}`), "Note: gone.")
	if !strings.Contains(string(ok), `"text":"Note: gone.\n\n# Page"`) || !strings.Contains(string(ok), `"id":3`) {
		t.Errorf("result: %s", ok)
	}
	bad := withLead([]byte(`{"jsonrpc":"2.0","id":4,"result":{"isError":true,"content":[{"type":"text","text":"TAB_NOT_FOUND: no tab t3\nHint: list the tabs"}],"structuredContent":{"error":{"code":"TAB_NOT_FOUND","message":"no tab t3"}}}}`), "Note: gone.")
	var msg struct {
		Result struct {
			IsError           bool
			Content           []struct{ Text string }
			StructuredContent struct {
				Error struct{ Code, Message string }
			}
		}
	}
	if err := json.Unmarshal(bad, &msg); err != nil || !msg.Result.IsError || len(msg.Result.Content) != 1 {
		t.Fatalf("error result: %s (%v)", bad, err)
	}
	if got := msg.Result.Content[0].Text; got != "TAB_NOT_FOUND: gone. — no tab t3\nHint: list the tabs" {
		t.Errorf("error text: %q", got)
	}
	if e := msg.Result.StructuredContent.Error; e.Code != "TAB_NOT_FOUND" || e.Message != "gone. — no tab t3" {
		t.Errorf("error body: %+v", e)
	}
	if got := withLead([]byte(`not json`), "x"); string(got) != "not json" {
		t.Errorf("not JSON: %s", got)
	}
}

// The proxy pings a quiet daemon to keep its session, but a ping never
// starts a daemon: one that was stopped stays stopped until the host sends
// something, which then reconnects.
func TestProxyPingsButNeverRestarts(t *testing.T) {
	var mu sync.Mutex
	stub := newStub(t, "first")
	current := func() *daemonStub {
		mu.Lock()
		defer mu.Unlock()
		return stub
	}
	in, out, _, connects := startProxy(t, current, nil, 100*time.Millisecond)
	cs := connectClient(t, in, out, nil)
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); got != "from first session " {
		t.Fatalf("echo: %q", got)
	}
	for deadline := time.Now().Add(10 * time.Second); stub.pings.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a quiet proxy never pinged its daemon")
		}
	}
	stub.srv.CloseClientConnections()
	stub.srv.Close() // stopped
	mu.Lock()
	stub = newStub(t, "second")
	mu.Unlock()
	time.Sleep(600 * time.Millisecond) // several ping periods
	if n := connects.Load(); n != 1 {
		t.Errorf("%d connects while only pings were due, want 1", n)
	}
	if got := call(t, cs, &mcp.CallToolParams{Name: "echo"}); !strings.HasSuffix(got, "from second session ") {
		t.Errorf("the host's next call: %q", got)
	}
	if n := connects.Load(); n != 2 {
		t.Errorf("%d connects after the host's call, want 2", n)
	}
}

// A call the host cancels (notifications/cancelled) is not answered: the
// cancellation reaches the daemon, which stops the call and still answers
// it, and the proxy drops that answer; a ping sent after the cancel is
// answered. Before, the cancelled call's answer reached the host.
func TestProxyDropsCancelledAnswer(t *testing.T) {
	stub := newStub(t, "a")
	in, out, done, _ := startProxy(t, func() *daemonStub { return stub }, nil)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var seen []string
	waitFor := func(id string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended before the answer with id %s; got:\n%s", id, strings.Join(seen, "\n"))
				}
				seen = append(seen, l)
				if strings.Contains(l, `"id":`+id+`,`) {
					return
				}
			case <-timeout:
				t.Fatalf("no answer with id %s; got:\n%s", id, strings.Join(seen, "\n"))
			}
		}
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	waitFor(`"init"`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	select {
	case <-stub.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the hanging call did not start")
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	waitFor(`6`)
	// Closing stdin waits for the calls being relayed: whatever the proxy
	// writes of the cancelled call, it has written once stdout ends.
	in.Close()
	for l := range lines {
		seen = append(seen, l)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end")
	}
	for _, l := range seen {
		if strings.Contains(l, `"id":5,`) {
			t.Errorf("the cancelled call was answered: %s", l)
		}
	}
}

// A request is sent again to a new daemon only when it never reached the
// old one: no connection, or a kept-alive one the daemon had closed while
// idle (it died between two calls). A connection broken after the request
// went out is not.
func TestNotSent(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nothing listens", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}, true},
		{"closed while idle", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: errors.New("http: server closed idle connection")}, true},
		{"broken after the request", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", io.ErrUnexpectedEOF)}, false},
		{"reset while reading", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}, false},
	} {
		if got := notSent(tc.err); got != tc.want {
			t.Errorf("%s: notSent = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// structured decodes a result's structuredContent into v.
func structured(res *mcp.CallToolResult, v any) error {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
