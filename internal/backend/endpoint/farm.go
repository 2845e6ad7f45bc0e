package endpoint

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/targets"
	"github.com/webpilot-mcp/webpilot/internal/redact"
)

// Farm is an endpoint that hands out a fresh, isolated browser per
// WebSocket connection, as browserless does (a Selenium Grid gives one per
// session): a factory of backends, not a backend. Each agent session gets
// a Backend of its own from [Farm.NewBackend], hence its own connection and
// its own remote browser, so N agents drive N browsers while webpilot
// stays small (--endpoint-per-session).
//
// Farm itself opens no connection and no tab. It describes the farm
// ([Farm.Info]: running while any connection is up), lists the tabs of
// every connected Backend ([Farm.Tabs]), and closes every Backend it
// handed out ([Farm.Close]). It is safe for concurrent use.
type Farm struct {
	opts    Options
	display string

	mu     sync.Mutex // guards the fields below
	closed bool
	live   map[*Backend]string // handed out, not yet closed → label
}

// NewFarm returns a Farm for the endpoint in opts (as for [New]). It
// connects to nothing.
func NewFarm(opts Options) *Farm {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Header = opts.Header.Clone()
	return &Farm{opts: opts, display: redact.Endpoint(opts.URL), live: make(map[*Backend]string)}
}

// NewBackend returns a Backend with a connection of its own to the farm,
// made on its first call; label names it in the log (an agent session's
// name, say). Closing the Backend ends its connection, and so, on a farm,
// its browser. After the Farm is closed, the Backend returned is closed
// too: its calls fail with [backend.ErrClosed].
func (f *Farm) NewBackend(label string) backend.Backend {
	opts := f.opts
	opts.Logger = f.opts.Logger.With("connection", label)
	b := New(opts)
	f.mu.Lock()
	closed := f.closed
	if !closed {
		b.onClose = func() { f.forget(b) }
		f.live[b] = label
	}
	f.mu.Unlock()
	if closed {
		_ = b.Close()
	}
	return b
}

// Connections is how many Backends handed out are not closed yet.
func (f *Farm) Connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.live)
}

func (f *Farm) forget(b *Backend) {
	f.mu.Lock()
	delete(f.live, b)
	f.mu.Unlock()
}

// backends are the Backends handed out and not closed.
func (f *Farm) backends() []*Backend {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*Backend, 0, len(f.live))
	for b := range f.live {
		out = append(out, b)
	}
	return out
}

// Tabs lists the page tabs of every Backend connected now; it connects
// none. After Close it fails with backend.ErrClosed.
func (f *Farm) Tabs(ctx context.Context) ([]backend.TabInfo, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("endpoint: the farm's tabs: %w", backend.ErrClosed)
	}
	var all []backend.TabInfo
	for _, b := range f.backends() {
		l, err := b.current()
		if l == nil || err != nil {
			continue
		}
		tabs, err := targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.Tabs(ctx)
		if err != nil {
			continue // it dropped meanwhile
		}
		all = append(all, tabs...)
	}
	return all, nil
}

// Info describes the farm: Kind endpoint, the URL redacted in BrowserPath,
// Running while any connection is up (Version is one of theirs).
func (f *Farm) Info() backend.Info {
	info := backend.Info{Kind: "endpoint", BrowserPath: f.display, Local: loopback(f.opts.URL)}
	for _, b := range f.backends() {
		if bi := b.Info(); bi.Running {
			info.Running = true
			if info.Version == "" {
				info.Version = bi.Version
			}
		}
	}
	return info
}

// Close closes every Backend handed out (their connections, and so their
// browsers on a farm); Backends handed out later come closed. It is
// idempotent.
func (f *Farm) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, b := range f.backends() {
		wg.Go(func() { _ = b.Close() })
	}
	wg.Wait()
	return nil
}
