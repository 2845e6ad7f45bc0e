package endpoint_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
)

// startBrowser starts a headless Chromium with --remote-debugging-port=0 and
// stops it (its whole process group) at cleanup.
func startBrowser(t *testing.T) *backendtest.DebugBrowser {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	br, err := backendtest.StartDebugBrowser(backendtest.Context(t, 90*time.Second))
	if err != nil {
		t.Fatalf("start a browser (install Chromium or set WEBPILOT_BROWSER): %v", err)
	}
	t.Cleanup(func() { _ = br.Close() })
	return br
}

func newBackend(t *testing.T, opts endpoint.Options) *endpoint.Backend {
	t.Helper()
	b := endpoint.New(opts)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestContract(t *testing.T) {
	br := startBrowser(t)
	t.Run("HTTP", func(t *testing.T) {
		backendtest.Run(t, newBackend(t, endpoint.Options{URL: br.HTTPURL()}))
	})
	t.Run("WebSocket", func(t *testing.T) {
		backendtest.Run(t, newBackend(t, endpoint.Options{URL: br.WebSocketURL}))
	})
}

// jsonList returns the ids of the browser's page targets, read over HTTP.
func jsonList(t *testing.T, br *backendtest.DebugBrowser) map[string]bool {
	t.Helper()
	resp, err := http.Get(br.HTTPURL() + "/json/list")
	if err != nil {
		t.Fatalf("GET /json/list: %v", err)
	}
	defer resp.Body.Close()
	var list []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatalf("/json/list: %v", err)
	}
	ids := map[string]bool{}
	for _, e := range list {
		if e.Type == "page" {
			ids[e.ID] = true
		}
	}
	return ids
}

func TestCloseKeepsBrowserAndForeignTabs(t *testing.T) {
	br := startBrowser(t)
	ctx := backendtest.Context(t, 60*time.Second)

	// A tab somebody else opened, through the HTTP API.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, br.HTTPURL()+"/json/new?about:blank", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT /json/new: %v", err)
	}
	var foreign struct {
		ID string `json:"id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&foreign)
	resp.Body.Close()
	if err != nil || foreign.ID == "" {
		t.Fatalf("/json/new: %v %+v", err, foreign)
	}

	b := endpoint.New(endpoint.Options{URL: br.HTTPURL()})
	var owned []string
	for range 2 {
		tab, err := b.NewTab(ctx, "")
		if err != nil {
			t.Fatalf("NewTab: %v", err)
		}
		owned = append(owned, tab.ID)
	}
	tabs, err := b.Tabs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hasTab(tabs, foreign.ID) {
		t.Errorf("Tabs = %v lacks the foreign tab %s", tabs, foreign.ID)
	}
	if info := b.Info(); !info.Running || info.Kind != "endpoint" || !strings.Contains(info.Version, "Chrome/") {
		t.Errorf("Info = %+v", info)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if info := b.Info(); info.Running {
		t.Errorf("Info after Close says running: %+v", info)
	}
	if _, err := b.Tabs(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Tabs after Close = %v, want ErrClosed", err)
	}
	if !br.Running() {
		t.Fatal("Close stopped the remote browser")
	}
	// Closing is asynchronous in the browser: poll briefly.
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		ids := jsonList(t, br)
		left := 0
		for _, id := range owned {
			if ids[id] {
				left++
			}
		}
		if !ids[foreign.ID] {
			t.Fatalf("Close closed the foreign tab %s", foreign.ID)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d owned tabs still open after Close: %v", left, ids)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The browser still serves a new client.
	b2 := newBackend(t, endpoint.Options{URL: br.WebSocketURL})
	tabs, err = b2.Tabs(ctx)
	if err != nil {
		t.Fatalf("Tabs from a new backend: %v", err)
	}
	if !hasTab(tabs, foreign.ID) {
		t.Errorf("Tabs = %v lacks the foreign tab", tabs)
	}
}

func TestHeaderSent(t *testing.T) {
	br := startBrowser(t)
	target, _ := url.Parse(br.HTTPURL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var seen []string // paths that came with the token
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Token") != "s3cret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		seen = append(seen, r.URL.Path)
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := backendtest.Context(t, 60*time.Second)

	// Without the header the farm refuses: no browser.
	_, err := newBackend(t, endpoint.Options{URL: srv.URL}).Tabs(ctx)
	if !errors.Is(err, backend.ErrNoBrowser) || !strings.Contains(err.Error(), "401") {
		t.Errorf("Tabs without the header = %v, want ErrNoBrowser naming the 401", err)
	}

	b := newBackend(t, endpoint.Options{URL: srv.URL, Header: http.Header{"X-Token": {"s3cret"}}})
	tab, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatalf("NewTab through the proxy: %v", err)
	}
	if err := b.CloseTab(ctx, tab.ID); err != nil {
		t.Fatalf("CloseTab: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var discovery, ws bool
	for _, p := range seen {
		discovery = discovery || p == "/json/version"
		ws = ws || strings.HasPrefix(p, "/devtools/browser/")
	}
	if !discovery || !ws {
		t.Errorf("requests with the header: %v; want /json/version and the WebSocket", seen)
	}
}

func TestDiscoveryRecordsHeader(t *testing.T) {
	// No browser needed: the discovery server answers with a WebSocket that
	// refuses, and the request's headers are checked.
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/version" {
			http.NotFound(w, r)
			return
		}
		select {
		case got <- r.Header.Clone():
		default:
		}
		io.WriteString(w, `{"Browser":"Chrome/1","webSocketDebuggerUrl":"ws://127.0.0.1:1/devtools/browser/x"}`)
	}))
	t.Cleanup(srv.Close)
	b := newBackend(t, endpoint.Options{URL: srv.URL + "/", Header: http.Header{"Authorization": {"Bearer abc"}}})
	_, err := b.Tabs(backendtest.Context(t, 10*time.Second))
	if !errors.Is(err, backend.ErrNoBrowser) {
		t.Fatalf("Tabs = %v, want ErrNoBrowser", err)
	}
	select {
	case h := <-got:
		if h.Get("Authorization") != "Bearer abc" {
			t.Errorf("discovery headers = %v", h)
		}
	default:
		t.Fatal("no discovery request")
	}
}

func TestBadURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close() // nothing listens there now
	for _, raw := range []string{
		"ws://user:pa55word@" + dead + "/devtools/browser/x?token=hunter22",
		"http://user:pa55word@" + dead + "/?token=hunter22",
		"ftp://" + dead,
		"not a url",
	} {
		t.Run(raw, func(t *testing.T) {
			b := newBackend(t, endpoint.Options{URL: raw})
			began := time.Now()
			_, err := b.NewTab(context.Background(), "")
			if !errors.Is(err, backend.ErrNoBrowser) {
				t.Fatalf("NewTab = %v, want ErrNoBrowser", err)
			}
			if d := time.Since(began); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			msg := err.Error()
			if strings.Contains(msg, "pa55word") || strings.Contains(msg, "hunter22") {
				t.Errorf("error leaks a credential: %s", msg)
			}
			if strings.Contains(raw, dead) && !strings.Contains(msg, dead) {
				t.Errorf("error does not name the endpoint: %s", msg)
			}
			if info := b.Info(); info.Running || info.Kind != "endpoint" || strings.Contains(info.BrowserPath, "pa55word") {
				t.Errorf("Info = %+v", info)
			}
			if err := b.CloseTab(context.Background(), "x"); !errors.Is(err, backend.ErrNoBrowser) {
				t.Errorf("CloseTab = %v, want ErrNoBrowser", err)
			}
		})
	}
}

// forwarder is a TCP relay whose connections can be cut, to drop the
// backend's connection while the browser keeps running.
type forwarder struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newForwarder(t *testing.T, to string) *forwarder {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forwarder{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, c, u)
			f.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); f.cut() })
	return f
}

func (f *forwarder) cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

func TestReconnect(t *testing.T) {
	br := startBrowser(t)
	ws, _ := url.Parse(br.WebSocketURL)
	f := newForwarder(t, ws.Host)
	ws.Host = f.ln.Addr().String()
	b := newBackend(t, endpoint.Options{URL: ws.String()})
	ctx := backendtest.Context(t, 60*time.Second)

	tab, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	s, err := b.Attach(ctx, tab.ID)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	f.cut()
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("the session outlived its connection")
	}
	// The next call connects again and finds the tab still open.
	tabs, err := b.Tabs(ctx)
	if err != nil {
		t.Fatalf("Tabs after the drop: %v", err)
	}
	if !hasTab(tabs, tab.ID) {
		t.Fatalf("Tabs = %v lacks %s", tabs, tab.ID)
	}
	if !b.Info().Running {
		t.Error("Info after reconnect not running")
	}
	if _, err := b.Attach(ctx, tab.ID); err != nil {
		t.Fatalf("Attach after reconnect: %v", err)
	}
	// Still owned across the reconnect: Close closes it.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for jsonList(t, br)[tab.ID] {
		if time.Now().After(deadline) {
			t.Fatal("owned tab left open after Close across a reconnect")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func hasTab(tabs []backend.TabInfo, id string) bool {
	for _, t := range tabs {
		if t.ID == id {
			return true
		}
	}
	return false
}
