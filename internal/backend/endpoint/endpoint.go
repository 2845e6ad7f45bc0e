package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/targets"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/redact"
)

const (
	// closeTimeout bounds closing the owned tabs on Close.
	closeTimeout = 5 * time.Second
	// maxVersionBody bounds the /json/version reply.
	maxVersionBody = 1 << 20
)

// Options configure a Backend.
type Options struct {
	// URL is the browser's WebSocket (ws://, wss://) or its HTTP debugging
	// address (http://host:port, https://…), resolved through GET
	// /json/version to webSocketDebuggerUrl.
	URL string
	// Header is sent with the HTTP discovery request and the WebSocket
	// handshake (auth tokens for a browser farm, say).
	Header http.Header
	// Logger receives connect and disconnect records; nil discards them.
	Logger *slog.Logger
	// Wait bounds how long a call waits for a farm that holds the
	// connection in its queue (--endpoint-wait; 0 means DefaultWait), and
	// never past the call's own deadline. The connection stays queued when
	// the call stops waiting: the next call resumes the wait.
	Wait time.Duration
}

// Backend is a browser reached at a CDP endpoint. It implements
// [backend.Backend]; all methods are safe for concurrent use.
type Backend struct {
	opts    Options
	display string // opts.URL with credentials redacted
	log     *slog.Logger

	// ctx ends when Close starts; it aborts a connect in progress.
	ctx    context.Context
	cancel context.CancelFunc
	// lazy connects on first use and after a drop, one connect at a time;
	// Close stops it for good.
	lazy *backend.Lazy[*link]
	// pumps counts the goroutines watching for destroyed tabs, one per
	// connection; dials, the connects under way (at most one: pend).
	pumps, dials sync.WaitGroup

	closeOnce sync.Once
	// guard holds the tabs pages open until their check (GuardPopups).
	guard targets.Guard
	// onClose, when set (a Farm's connection), runs once Close is done.
	onClose func()

	mu     sync.Mutex // guards the fields below
	closed bool
	cur    *link               // the connection made last; nil before the first
	owned  map[string]struct{} // ids of the tabs NewTab opened and not yet closed
	// pend is the connect under way, which outlives the call that started
	// it (a farm may hold it in its queue); nil when none is.
	pend *pending
	// waitNote tells of the last connect that waited in a farm's queue,
	// until TakeWait collects it.
	waitNote string
}

// link is one connection to the browser.
type link struct {
	conn    *cdp.Conn
	version string // Browser.getVersion product
	// headless says the browser runs without a window (its product or
	// user agent says HeadlessChrome): nobody sees what it shows.
	headless bool
}

func (l *link) up() bool {
	// Err is set before the connection's sessions end (and before Done
	// closes): a caller that saw its session end finds the link down.
	if l.conn.Err() != nil {
		return false
	}
	select {
	case <-l.conn.Done():
		return false
	default:
		return true
	}
}

var (
	_ backend.Backend    = (*Backend)(nil)
	_ backend.PopupGuard = (*Backend)(nil)
)

// GuardPopups sets the gate asked about each tab a page opens
// (backend.PopupGuard).
func (b *Backend) GuardPopups(gate backend.PopupGate) { b.guard.Set(gate) }

// New returns a Backend for the endpoint. It connects to nothing yet: the
// first call that needs the browser connects.
func New(opts Options) *Backend {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Header = opts.Header.Clone()
	ctx, cancel := context.WithCancel(context.Background())
	display := redact.Endpoint(opts.URL)
	b := &Backend{
		opts:    opts,
		display: display,
		log:     opts.Logger.With("backend", "endpoint", "endpoint", display),
		ctx:     ctx,
		cancel:  cancel,
		lazy:    backend.NewLazy[*link](),
		owned:   make(map[string]struct{}),
	}
	b.lazy.Current, b.lazy.Renew, b.lazy.Closing = b.current, b.reconnect, ctx
	b.lazy.Waiting, b.lazy.Name = "endpoint: waiting for the connection to "+display, "endpoint"
	return b
}

// Start connects now unless connected already (the --prewarm flag).
func (b *Backend) Start(ctx context.Context) error {
	_, err := b.ensure(ctx)
	return err
}

// Endpoint is the endpoint URL with its credentials redacted.
func (b *Backend) Endpoint() string { return b.display }

// Tabs lists the open page tabs, including those the backend did not open.
func (b *Backend) Tabs(ctx context.Context) ([]backend.TabInfo, error) {
	l, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.Tabs(ctx)
}

// NewTab opens a tab at url ("" means about:blank) in its own background
// window. The tab is owned: Close closes it.
func (b *Backend) NewTab(ctx context.Context, url string) (backend.TabInfo, error) {
	l, err := b.ensure(ctx)
	if err != nil {
		return backend.TabInfo{}, err
	}
	tab, err := targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.NewTab(ctx, url)
	if err != nil {
		return tab, err
	}
	b.mu.Lock()
	b.owned[tab.ID] = struct{}{}
	b.mu.Unlock()
	return tab, nil
}

// NewContext makes an empty browser context (backend.Contexts).
func (b *Backend) NewContext(ctx context.Context) (string, error) {
	l, err := b.ensure(ctx)
	if err != nil {
		return "", err
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.NewContext(ctx)
}

// NewTabIn opens a background tab in a browser context; the tab is
// webpilot's own, like NewTab's.
func (b *Backend) NewTabIn(ctx context.Context, contextID, url string) (backend.TabInfo, error) {
	l, err := b.ensure(ctx)
	if err != nil {
		return backend.TabInfo{}, err
	}
	tab, err := targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.NewTabIn(ctx, contextID, url)
	if err != nil {
		return tab, err
	}
	b.mu.Lock()
	b.owned[tab.ID] = struct{}{}
	b.mu.Unlock()
	return tab, nil
}

// CloseContext closes a browser context and its tabs.
func (b *Backend) CloseContext(ctx context.Context, contextID string) error {
	l, err := b.ensure(ctx)
	if err != nil {
		return err
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.CloseContext(ctx, contextID)
}

// CloseTab closes the tab and waits (briefly) until the browser reports it
// gone. An unknown id is an error matching [backend.ErrTabNotFound]. It
// closes any tab it is given; which tabs an agent may close is decided above
// the backend.
func (b *Backend) CloseTab(ctx context.Context, id string) error {
	l, err := b.ensure(ctx)
	if err != nil {
		return err
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.CloseTab(ctx, id, func() { b.disown(id) })
}

// Activate brings the tab to the front.
func (b *Backend) Activate(ctx context.Context, id string) error {
	l, err := b.ensure(ctx)
	if err != nil {
		return err
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.Activate(ctx, id)
}

// Attach attaches a new flat CDP session to the tab. The session ends when
// the tab closes, the connection drops, or the Backend closes.
func (b *Backend) Attach(ctx context.Context, id string) (cdp.Caller, error) {
	l, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	// A new tab waits before it runs until it is released (HoldNewTabs).
	if err := b.guard.Released(ctx, id); err != nil {
		return nil, fmt.Errorf("endpoint: attach to tab %s: it is still held for its check: %w", id, err)
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.Attach(ctx, id)
}

// UserTabs implements backend.Binder: the page targets the backend did not
// open.
func (b *Backend) UserTabs(ctx context.Context) ([]backend.TabInfo, error) {
	tabs, err := b.Tabs(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := tabs[:0]
	for _, t := range tabs {
		if _, mine := b.owned[t.ID]; !mine {
			out = append(out, t)
		}
	}
	return out, nil
}

// Bind implements backend.Binder: Attach.
func (b *Backend) Bind(ctx context.Context, id string) (cdp.Caller, error) { return b.Attach(ctx, id) }

// Release implements backend.Binder: it detaches the session.
func (b *Backend) Release(ctx context.Context, id string, c cdp.Caller) error {
	l, err := b.current()
	if err != nil || l == nil {
		return err
	}
	return targets.Browser{Conn: l.conn, Prefix: "endpoint", Log: b.log}.Release(ctx, id, c)
}

// Info describes the backend. BrowserPath holds the endpoint URL with its
// credentials redacted (backend.Info has no field of its own for it).
func (b *Backend) Info() backend.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	info := backend.Info{Kind: "endpoint", BrowserPath: b.display, Local: loopback(b.opts.URL)}
	if l := b.cur; l != nil && !b.closed && l.up() {
		info.Running = true
		info.Version = l.version
		info.Headless = l.headless
	}
	return info
}

// Close closes the tabs this Backend opened, then the connection and every
// session handed out. The browser keeps running, with
// the tabs others opened. Close never connects; it is idempotent.
func (b *Backend) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		b.cancel()
		b.lazy.Stop() // wait out a call waiting for a connect
		b.dials.Wait()
		b.mu.Lock()
		l := b.cur
		b.cur = nil
		owned := make([]string, 0, len(b.owned))
		for id := range b.owned {
			owned = append(owned, id)
		}
		clear(b.owned)
		b.mu.Unlock()
		if l != nil {
			if l.up() && len(owned) > 0 {
				ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
				var wg sync.WaitGroup
				for _, id := range owned {
					wg.Go(func() {
						_, err := cdproto.Call(ctx, l.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(id)})
						if err != nil {
							b.log.Debug("closing an owned tab", "tab", id, "err", err)
						}
					})
				}
				wg.Wait()
				cancel()
			} else if len(owned) > 0 {
				b.log.Warn("connection lost: owned tabs left open", "tabs", len(owned))
			}
			_ = l.conn.Close()
		}
		b.pumps.Wait()
		if b.onClose != nil {
			b.onClose()
		}
	})
	return nil
}

func (b *Backend) disown(id string) {
	b.mu.Lock()
	delete(b.owned, id)
	b.mu.Unlock()
}

// current returns the live connection, or nil when there is none.
func (b *Backend) current() (*link, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("endpoint: %w", backend.ErrClosed)
	}
	if b.cur != nil && b.cur.up() {
		return b.cur, nil
	}
	return nil, nil
}

// ensure returns the live connection, connecting when there is none yet or
// the last one dropped.
func (b *Backend) ensure(ctx context.Context) (*link, error) { return b.lazy.Get(ctx) }

// start checks that the browser on conn answers and starts tab discovery.
func (b *Backend) start(ctx context.Context, conn *cdp.Conn) (*link, error) {
	l := &link{conn: conn}
	sess := conn.Browser()
	ver, err := cdproto.Call(ctx, sess, cdpbrowser.GetVersion, cdproto.Empty{})
	if err != nil {
		return nil, err
	}
	l.version = ver.Product
	l.headless = strings.Contains(ver.Product, "Headless") || strings.Contains(ver.UserAgent, "Headless")
	// Discovery on: the browser then reports each tab destroyed, which
	// CloseTab waits for and which ends this Backend's claim on a tab it
	// opened and somebody else closed.
	destroyed, unsubscribe := sess.Subscribe(target.TargetDestroyed.Method)
	b.pumps.Go(func() {
		defer unsubscribe()
		targets.WatchDestroyed(destroyed, b.disown)
	})
	if _, err := cdproto.Call(ctx, sess, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return nil, err
	}
	// Every new page waits for its check before it runs (popups); the
	// pages that other clients of the browser open go on at once.
	if err := targets.HoldNewTabs(ctx, conn, &b.guard, b.log); err != nil {
		return nil, err
	}
	return l, nil
}

// resolve returns the browser WebSocket URL: opts.URL itself when it is one,
// else webSocketDebuggerUrl from GET <URL>/json/version.
func (b *Backend) resolve(ctx context.Context) (string, error) {
	u, err := url.Parse(b.opts.URL)
	if err != nil {
		return "", fmt.Errorf("bad URL: %w", err)
	}
	switch u.Scheme {
	case "ws", "wss":
		return b.opts.URL, nil
	case "http", "https":
	default:
		return "", fmt.Errorf("URL scheme %q: want ws, wss, http or https", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("URL has no host")
	}
	vu := *u
	vu.Path = strings.TrimSuffix(u.Path, "/") + "/json/version"
	vu.RawPath = ""
	vu.Fragment = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, vu.String(), nil)
	if err != nil {
		return "", err
	}
	for k, vs := range b.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if h := b.opts.Header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := discoveryClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("discovery: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxVersionBody))
	if err != nil {
		return "", fmt.Errorf("discovery: reading /json/version: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", &statusErr{code: resp.StatusCode, status: resp.Status, body: body}
	}
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("discovery: /json/version: %w", err)
	}
	if v.WebSocketDebuggerURL == "" {
		return "", errors.New("discovery: /json/version has no webSocketDebuggerUrl")
	}
	return discovered(u, v.WebSocketDebuggerURL)
}

// discovered adapts the WebSocket URL a browser reported to the address it
// was reached at: a wildcard host (0.0.0.0, ::) becomes the endpoint's host,
// the scheme follows the endpoint's TLS, and the endpoint's query (a farm's
// token) is carried over when the reported URL has none.
func discovered(endpoint *url.URL, raw string) (string, error) {
	ws, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("discovery: bad webSocketDebuggerUrl: %w", err)
	}
	if ws.Scheme != "ws" && ws.Scheme != "wss" {
		return "", fmt.Errorf("discovery: webSocketDebuggerUrl scheme %q", ws.Scheme)
	}
	if ip := net.ParseIP(ws.Hostname()); ip != nil && ip.IsUnspecified() || ws.Host == "" {
		host := endpoint.Hostname()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if p := ws.Port(); p != "" {
			ws.Host = host + ":" + p
		} else {
			ws.Host = endpoint.Host
		}
	}
	if endpoint.Scheme == "https" {
		ws.Scheme = "wss"
	}
	if ws.RawQuery == "" {
		ws.RawQuery = endpoint.RawQuery
	}
	if ws.User == nil {
		ws.User = endpoint.User
	}
	return ws.String(), nil
}

// loopback says the endpoint URL names this machine.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
