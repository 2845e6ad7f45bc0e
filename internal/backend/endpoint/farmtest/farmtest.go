// Package farmtest is a loopback stand-in for a browser farm such as
// browserless, which hands out a fresh, isolated browser per WebSocket
// connection: an HTTP server whose WebSocket, for each connection, starts a
// headless Chromium of its own (a temporary profile,
// --remote-debugging-port=0, the port read from DevToolsActivePort) and
// relays frames both ways between the client and that browser's
// browser-level WebSocket. When the client disconnects the browser is
// killed. Tests of --endpoint-per-session run on it.
//
// GET /json/version answers with the farm's own WebSocket, so both forms of
// --cdp-endpoint (ws:// and http://) reach it.
package farmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// startTimeout bounds starting one connection's browser.
const startTimeout = 90 * time.Second

// Farm is the stand-in. All methods are safe for concurrent use.
type Farm struct {
	srv *httptest.Server
	wg  sync.WaitGroup // one per connection being served

	mu       sync.Mutex // guards the fields below
	closed   bool
	conns    []*Conn
	changed  chan struct{} // closed and replaced whenever a Conn changes
	failures int           // connections whose browser did not start
	peak     int           // most browsers running at once
}

// Conn is one client connection and the browser it was given.
type Conn struct {
	// ID numbers the connections from 1, in the order they got a browser.
	ID int
	// PID is the browser's process (its process group is killed with it).
	PID int
	// Live is true until the client disconnected and the browser was
	// killed.
	Live bool

	client *websocket.Conn
}

// Start serves a Farm on a loopback port. Close stops it.
func Start() *Farm {
	f := &Farm{changed: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// URL is the farm's WebSocket, ws://127.0.0.1:port/.
func (f *Farm) URL() string { return "ws" + f.srv.URL[len("http"):] + "/" }

// HTTPURL is the farm's HTTP address, http://127.0.0.1:port.
func (f *Farm) HTTPURL() string { return f.srv.URL }

// Conns describes every connection that got a browser, in order.
func (f *Farm) Conns() []Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Conn, len(f.conns))
	for i, c := range f.conns {
		out[i] = Conn{ID: c.ID, PID: c.PID, Live: c.Live}
	}
	return out
}

// Live is how many browsers run now.
func (f *Farm) Live() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live()
}

func (f *Farm) live() int {
	n := 0
	for _, c := range f.conns {
		if c.Live {
			n++
		}
	}
	return n
}

// Peak is the most browsers that ran at once.
func (f *Farm) Peak() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// Failures is how many connections were refused because their browser did
// not start.
func (f *Farm) Failures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failures
}

// WaitLive waits until exactly n browsers run, or ctx ends.
func (f *Farm) WaitLive(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		live, ch := f.live(), f.changed
		f.mu.Unlock()
		if live == n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("farmtest: %d browsers running, waiting for %d: %w", live, n, ctx.Err())
		}
	}
}

// Close stops serving, disconnects every client and kills every browser.
func (f *Farm) Close() {
	f.mu.Lock()
	f.closed = true
	var clients []*websocket.Conn
	for _, c := range f.conns {
		if c.Live {
			clients = append(clients, c.client)
		}
	}
	f.mu.Unlock()
	f.srv.Close()
	for _, c := range clients {
		_ = c.CloseNow()
	}
	f.wg.Wait()
}

// note records a change and wakes WaitLive. Call with f.mu held.
func (f *Farm) note() {
	f.peak = max(f.peak, f.live())
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *Farm) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/json/version" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"Browser": "farmtest", "webSocketDebuggerUrl": "ws://" + r.Host + "/"})
		return
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		http.Error(w, "farm closed", http.StatusServiceUnavailable)
		return
	}
	f.wg.Add(1)
	f.mu.Unlock()
	defer f.wg.Done()

	client, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer client.CloseNow()
	client.SetReadLimit(cdp.MaxMessageSize)

	ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(startTimeout))
	br, err := backendtest.StartDebugBrowser(ctx)
	if err != nil {
		cancel()
		f.mu.Lock()
		f.failures++
		f.mu.Unlock()
		_ = client.Close(websocket.StatusInternalError, "farmtest: no browser")
		return
	}
	defer br.Close()
	upstream, _, err := websocket.Dial(ctx, br.WebSocketURL, nil)
	cancel()
	if err != nil {
		f.mu.Lock()
		f.failures++
		f.mu.Unlock()
		_ = client.Close(websocket.StatusInternalError, "farmtest: browser WebSocket")
		return
	}
	defer upstream.CloseNow()
	upstream.SetReadLimit(cdp.MaxMessageSize)

	c := &Conn{PID: br.Launch().Info().PID, Live: true, client: client}
	f.mu.Lock()
	c.ID = len(f.conns) + 1
	f.conns = append(f.conns, c)
	f.note()
	closed := f.closed
	f.mu.Unlock()
	if !closed {
		relay(client, upstream)
	}

	_ = client.CloseNow()
	_ = upstream.CloseNow()
	_ = br.Close()
	f.mu.Lock()
	c.Live = false
	f.note()
	f.mu.Unlock()
}

// relay copies frames both ways until either side ends.
func relay(a, b *websocket.Conn) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	pump := func(from, to *websocket.Conn) {
		defer cancel()
		for {
			typ, data, err := from.Read(ctx)
			if err != nil {
				return
			}
			if err := to.Write(ctx, typ, data); err != nil {
				return
			}
		}
	}
	wg.Go(func() { pump(a, b) })
	wg.Go(func() { pump(b, a) })
	wg.Wait()
}
