package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// BackendOptions configure a Backend.
type BackendOptions struct {
	// ConnectWait is how long a call waits for the extension to connect
	// before failing with backend.ErrBridgeDisconnected (default 12 s:
	// the extension retries at most every 10 s).
	ConnectWait time.Duration
	Logger      *slog.Logger
	// CloseServer closes the Server with the Backend.
	CloseServer bool
}

// Backend implements backend.Backend through the extension. It is a
// backend.Scoper: For gives each agent session a view that shares the
// extension connections.
type Backend struct {
	*shared
	// scope is whom the view's calls are for (Backend.For); nil: no agent
	// session, the only profile connected.
	scope func() backend.Scope
}

// shared is what the views of one Backend share.
type shared struct {
	srv  *Server
	opts BackendOptions
	log  *slog.Logger

	mu sync.Mutex // guards the fields below
	// profiles are the CDP connections over each connected browser
	// profile's relay, by profile id.
	profiles map[string]*profileConn
	closed   bool

	handoffs  handoffs  // tabs waiting for the user's Done
	approvals approvals // the person's answers, and the questions open
	live      liveState // the live view sent last, and who hears its controls
}

// profileConn is one browser profile's connection: its relay and the CDP
// connection over it.
type profileConn struct {
	relay *Relay
	conn  *cdp.Conn
	tr    *relayTransport // conn's transport
}

// New makes a Backend on a listening Server.
func New(srv *Server, opts BackendOptions) *Backend {
	if opts.ConnectWait <= 0 {
		opts.ConnectWait = 12 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Backend{shared: &shared{srv: srv, opts: opts, log: log, profiles: make(map[string]*profileConn)}}
	srv.OnPerson(b.personEvent, b.welcomed)
	return b
}

// For implements backend.Scoper.
func (b *Backend) For(scope func() backend.Scope) backend.Backend {
	return &Backend{shared: b.shared, scope: scope}
}

// sc is whom the call is for.
func (b *Backend) sc() backend.Scope {
	if b.scope == nil {
		return backend.Scope{}
	}
	return b.scope()
}

// Server is the server the backend relays through.
func (b *Backend) Server() *Server { return b.srv }

// session returns the live relay of the browser profile the call is for
// (its scope's Profile) and the CDP connection over it, waiting
// briefly for the extension to (re)connect. Several profiles connected and
// none named is a *backend.ProfileError matching
// backend.ErrAmbiguousProfile.
func (b *Backend) session(ctx context.Context) (*Relay, *cdp.Conn, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, nil, backend.ErrClosed
	}
	sc := b.sc()
	sel := sc.Profile
	wctx, cancel := context.WithTimeout(ctx, b.opts.ConnectWait)
	defer cancel()
	r, err := b.stableRelay(wctx, sel)
	if err != nil {
		return nil, nil, b.relayErr(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id := r.hello.ProfileID
	pc := b.profiles[id]
	if pc == nil || pc.relay != r {
		t := newRelayTransport(r, b)
		pc = &profileConn{relay: r, tr: t}
		pc.conn = cdp.NewConn(t, &cdp.Options{Logger: b.log, ChildSessionID: childSessionID, CloseErr: func() error {
			return fmt.Errorf("%w: %v", backend.ErrBridgeDisconnected, r.err())
		}})
		r.OnEvent(t.event)
		b.profiles[id] = pc
	}
	if sc.Used != nil {
		sc.Used(id)
	}
	return pc.relay, pc.conn, nil
}

// current is the connected relay of the profile the call is for, without
// waiting (closing and releasing never wait for a connection).
func (b *Backend) current(ctx context.Context) (*Relay, error) {
	r, err := b.srv.Current(b.sc().Profile)
	if err != nil {
		return nil, b.relayErr(err)
	}
	return r, nil
}

// relayErr maps a Server's failure to hand out a relay onto the backend
// sentinels.
func (b *Backend) relayErr(err error) error {
	var pe *ProfileError
	if errors.As(err, &pe) {
		out := &backend.ProfileError{Selector: pe.Selector, Err: backend.ErrBridgeDisconnected, Detail: pe.Error()}
		if pe.Ambiguous {
			out.Err = backend.ErrAmbiguousProfile
		}
		for _, h := range pe.Connected {
			out.Profiles = append(out.Profiles, profileOf(h))
		}
		return out
	}
	if errors.Is(err, ErrVersionMismatch) {
		return fmt.Errorf("%w: %v", backend.ErrBridgeVersion, err)
	}
	if errors.Is(err, ErrUnknownExtension) {
		return fmt.Errorf("%w: %v", backend.ErrBridgeDisconnected, err)
	}
	if !b.srv.paired() {
		return fmt.Errorf("%w: webpilot is not paired with the extension yet: run `webpilot pair`", backend.ErrBridgeDisconnected)
	}
	return fmt.Errorf("%w: %v", backend.ErrBridgeDisconnected, err)
}

// profileOf describes a connected profile.
func profileOf(h Hello) backend.Profile {
	return backend.Profile{Name: h.ProfileName, ID: h.ProfileID, Browser: product(h.UserAgent)}
}

// product is the browser's product token of a user agent: Edg/…, Chrome/….
func product(ua string) string {
	for _, f := range strings.Fields(ua) {
		if strings.HasPrefix(f, "Edg/") {
			return f
		}
	}
	for _, f := range strings.Fields(ua) {
		if strings.HasPrefix(f, "Chrome/") {
			return f
		}
	}
	return ""
}

// settleTime is how long a new connection must stay up before calls use
// it: a service worker that was just restarted may dial twice and drop the
// first connection at once.
const settleTime = 400 * time.Millisecond

// stableRelay waits for a connection that has stayed up settleTime.
func (b *Backend) stableRelay(ctx context.Context, sel string) (*Relay, error) {
	for {
		r, err := b.srv.Relay(ctx, sel)
		if err != nil {
			return nil, err
		}
		wait := settleTime - time.Since(r.since)
		if wait <= 0 {
			return r, nil
		}
		select {
		case <-time.After(wait):
			if r.alive() {
				return r, nil
			}
		case <-r.Done():
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %v", ErrDisconnected, ctx.Err())
		}
	}
}

// tab is a tab as the extension describes it.
type tab struct {
	TabID       int    `json:"tabId"`
	WindowID    int    `json:"windowId"`
	URL         string `json:"url"`
	Title       string `json:"title"`
	OpenerTabID int    `json:"openerTabId"`
	Active      bool   `json:"active"`
	Focused     bool   `json:"focused"` // tabs.query: the tab the user is looking at
}

func (t tab) info() backend.TabInfo {
	ti := backend.TabInfo{ID: strconv.Itoa(t.TabID), URL: t.URL, Title: t.Title, Active: t.Focused}
	if t.OpenerTabID != 0 {
		ti.Opener = strconv.Itoa(t.OpenerTabID)
	}
	return ti
}

// Tabs implements backend.Backend.
func (b *Backend) Tabs(ctx context.Context) ([]backend.TabInfo, error) {
	r, _, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	var res struct {
		Tabs []tab `json:"tabs"`
	}
	if err := r.Request(ctx, "tabs.list", nil, &res); err != nil {
		return nil, opErr(err, "")
	}
	out := make([]backend.TabInfo, 0, len(res.Tabs))
	for _, t := range res.Tabs {
		out = append(out, t.info())
	}
	return out, nil
}

// NewTab implements backend.Backend: the tab opens in the agent window.
func (b *Backend) NewTab(ctx context.Context, url string) (backend.TabInfo, error) {
	r, _, err := b.session(ctx)
	if err != nil {
		return backend.TabInfo{}, err
	}
	if url == "" {
		url = "about:blank"
	}
	params := map[string]any{"url": url}
	if name := b.sc().Session; name != "" && len(name) <= 100 {
		params["session"] = name // the tab joins the group "webpilot · <session>"
	}
	var t tab
	if err := r.Request(ctx, "tabs.create", params, &t); err != nil {
		return backend.TabInfo{}, opErr(err, "")
	}
	return t.info(), nil
}

func tabID(id string) (int, error) {
	n, err := strconv.Atoi(id)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bridge: tab %q: %w", id, backend.ErrTabNotFound)
	}
	return n, nil
}

// CloseTab implements backend.Backend.
func (b *Backend) CloseTab(ctx context.Context, id string) error {
	n, err := tabID(id)
	if err != nil {
		return err
	}
	r, err := b.current(ctx) // closing never waits for a connection
	if err != nil {
		return fmt.Errorf("bridge: close tab %s: %w", id, err)
	}
	return opErr(r.Request(ctx, "tabs.close", map[string]any{"tabId": n}, nil), id)
}

// Activate implements backend.Backend.
func (b *Backend) Activate(ctx context.Context, id string) error {
	n, err := tabID(id)
	if err != nil {
		return err
	}
	r, _, err := b.session(ctx)
	if err != nil {
		return err
	}
	return opErr(r.Request(ctx, "tabs.activate", map[string]any{"tabId": n}, nil), id)
}

// Attach implements backend.Backend: chrome.debugger attaches to the tab
// and the returned session carries its CDP traffic.
func (b *Backend) Attach(ctx context.Context, id string) (cdp.Caller, error) {
	n, err := tabID(id)
	if err != nil {
		return nil, err
	}
	r, conn, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.Request(ctx, "debugger.attach", map[string]any{"tabId": n}, nil); err != nil {
		return nil, opErr(err, id)
	}
	// The tab may have been attached before and detached (the user
	// cancelled its debugging): its session id is the same again.
	conn.Reattached(sessionFor(n, ""))
	return conn.Session(sessionFor(n, "")), nil
}

// Disconnected is closed once the CDP connection over the extension
// connection of the browser profile sel names ("" the only one connected)
// has ended, and every tab session on it with it (nil when that profile
// has not been used yet). Tests wait on it after stopping the extension's
// service worker.
func (b *Backend) Disconnected(sel string) <-chan struct{} {
	r, err := b.srv.Current(sel)
	if err != nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if pc := b.profiles[r.hello.ProfileID]; pc != nil && pc.relay == r {
		return pc.conn.Done()
	}
	return nil
}

// UserTabs implements backend.Binder: the tabs of the user's normal
// windows outside the agent window (tabs.query).
func (b *Backend) UserTabs(ctx context.Context) ([]backend.TabInfo, error) {
	r, _, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	var res struct {
		Tabs []tab `json:"tabs"`
	}
	if err := r.Request(ctx, "tabs.query", nil, &res); err != nil {
		return nil, opErr(err, "")
	}
	out := make([]backend.TabInfo, 0, len(res.Tabs))
	for _, t := range res.Tabs {
		out = append(out, t.info())
	}
	return out, nil
}

// Bind implements backend.Binder: the extension binds the user's tab
// (tabs.bind), which lets it be attached, listed and activated like an
// agent tab, and then attaches to it.
func (b *Backend) Bind(ctx context.Context, id string) (cdp.Caller, error) {
	n, err := tabID(id)
	if err != nil {
		return nil, err
	}
	r, _, err := b.session(ctx)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"tabId": n}
	if name := b.sc().Session; name != "" && len(name) <= 100 {
		params["session"] = name // the extension's popup lists the tab under its session
	}
	if err := r.Request(ctx, "tabs.bind", params, nil); err != nil {
		return nil, opErr(err, id)
	}
	c, err := b.Attach(ctx, id)
	if err != nil {
		_ = r.Request(context.WithoutCancel(ctx), "tabs.unbind", map[string]any{"tabId": n}, nil)
		return nil, err
	}
	return c, nil
}

// Release implements backend.Binder: the extension detaches the debugger
// and forgets the tab (tabs.unbind); the session ends as if detached.
func (b *Backend) Release(ctx context.Context, id string, c cdp.Caller) error {
	n, err := tabID(id)
	if err != nil {
		return err
	}
	r, err := b.current(ctx) // releasing never waits for a connection
	if err != nil {
		return fmt.Errorf("bridge: release tab %s: %w", id, err)
	}
	if err := r.Request(ctx, "tabs.unbind", map[string]any{"tabId": n}, nil); err != nil {
		return opErr(err, id)
	}
	// chrome.debugger reports no detach the extension asked for itself.
	b.mu.Lock()
	var tr *relayTransport
	if pc := b.profiles[r.hello.ProfileID]; pc != nil {
		tr = pc.tr
	}
	b.mu.Unlock()
	if tr != nil && tr.r == r {
		p, _ := json.Marshal(map[string]any{"tabId": n, "reason": "released"})
		tr.event("debugger.detached", p)
	}
	return nil
}

// downloadItem is a download as the extension describes it (downloads.find).
type downloadItem struct {
	Filename string `json:"filename"`
	MIME     string `json:"mime"`
	FileSize int64  `json:"fileSize"`
	Received int64  `json:"bytesReceived"`
	State    string `json:"state"`
	Error    string `json:"error"`
	Danger   string `json:"danger"`
	Exists   *bool  `json:"exists"`
}

// FindDownload implements backend.DownloadFinder: the extension matches
// the tab's download (its Page.downloadWillBegin) to Chrome's download
// item and answers once it has ended (or ctx's deadline comes near). The
// bridge is loopback, so the path it names is on this machine.
func (b *Backend) FindDownload(ctx context.Context, id, guid string) (backend.DownloadFile, error) {
	n, err := tabID(id)
	if err != nil {
		return backend.DownloadFile{}, err
	}
	r, _, err := b.session(ctx)
	if err != nil {
		return backend.DownloadFile{}, err
	}
	wait := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)-500*time.Millisecond)
	}
	var it downloadItem
	params := map[string]any{"tabId": n, "guid": guid, "timeoutMs": max(0, wait.Milliseconds())}
	if err := r.Request(ctx, "downloads.find", params, &it); err != nil {
		return backend.DownloadFile{}, opErr(err, id)
	}
	f := backend.DownloadFile{Path: it.Filename, MIMEType: it.MIME, Bytes: it.FileSize, State: it.State, Error: it.Error, Danger: it.Danger}
	if f.Bytes <= 0 {
		f.Bytes = it.Received
	}
	if it.Exists != nil && !*it.Exists && f.State == "complete" {
		f.State, f.Error = "interrupted", "the file was deleted or moved"
	}
	if f.State == "complete" && !filepath.IsAbs(f.Path) {
		return f, fmt.Errorf("bridge: downloads.find: the extension named no absolute path (%q)", f.Path)
	}
	return f, nil
}

var _ backend.DownloadFinder = (*Backend)(nil)

// Info implements backend.Backend.
func (b *Backend) Info() backend.Info {
	info := backend.Info{Kind: "bridge", Paired: b.srv.paired(), Protocol: ProtocolVersion}
	hs := b.srv.Profiles()
	if len(hs) > 0 {
		h := hs[0]
		info.Running = true
		info.Version = h.UserAgent
		info.Extension = h.ExtensionVersion
	}
	if len(hs) == 1 {
		info.BrowserProfile = hs[0].ProfileName
	}
	for _, h := range hs {
		info.Profiles = append(info.Profiles, profileOf(h))
	}
	return info
}

// Close implements backend.Backend. The user's browser keeps running; the
// tabs the agents opened are closed by their sessions before this. A
// session's view (For) closes nothing.
func (b *Backend) Close() error {
	if b.scope != nil {
		return nil
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	conns := make([]*cdp.Conn, 0, len(b.profiles))
	for _, pc := range b.profiles {
		conns = append(conns, pc.conn)
	}
	b.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	if b.opts.CloseServer {
		return b.srv.Close()
	}
	return nil
}

// opErr maps an extension's op error onto the backend sentinels.
func opErr(err error, id string) error {
	if err == nil {
		return nil
	}
	var oe *OpError
	if errors.As(err, &oe) && oe.Code == "no_tab" {
		return fmt.Errorf("%w: %v", backend.ErrTabNotFound, err)
	}
	if errors.Is(err, ErrDisconnected) {
		return fmt.Errorf("%w: %v", backend.ErrBridgeDisconnected, err)
	}
	return err
}

// sessionFor is the CDP session id over the relay: "tab-<tabId>" for a tab, and
// "tab-<tabId>|<sessionId>" for a child target (an out-of-process iframe).
func sessionFor(tabID int, child string) string {
	s := "tab-" + strconv.Itoa(tabID)
	if child != "" {
		s += "|" + child
	}
	return s
}

// childSessionID names a child target's session over the relay.
func childSessionID(parent, child string) string {
	tabID, _, ok := parseSession(parent)
	if !ok {
		return child
	}
	return sessionFor(tabID, child)
}

func parseSession(s string) (int, string, bool) {
	rest, ok := strings.CutPrefix(s, "tab-")
	if !ok {
		return 0, "", false
	}
	id, child, _ := strings.Cut(rest, "|")
	n, err := strconv.Atoi(id)
	return n, child, err == nil
}

// relayTransport is a cdp.Transport over a Relay: CDP commands become
// debugger.send requests, debugger events become CDP event frames.
type relayTransport struct {
	r *Relay
	b *Backend

	mu     sync.Mutex // guards queue and closed
	cond   *sync.Cond
	queue  [][]byte
	closed bool
}

func newRelayTransport(r *Relay, b *Backend) *relayTransport {
	t := &relayTransport{r: r, b: b}
	t.cond = sync.NewCond(&t.mu)
	go func() {
		<-r.Done()
		t.mu.Lock()
		t.closed = true
		t.mu.Unlock()
		t.cond.Broadcast()
	}()
	return t
}

func (t *relayTransport) push(frame []byte) {
	t.mu.Lock()
	t.queue = append(t.queue, frame)
	t.mu.Unlock()
	t.cond.Signal()
}

// ReadMessage implements cdp.Transport.
func (t *relayTransport) ReadMessage() ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.queue) == 0 && !t.closed {
		t.cond.Wait()
	}
	if len(t.queue) > 0 {
		f := t.queue[0]
		t.queue = t.queue[1:]
		return f, nil
	}
	return nil, fmt.Errorf("%w: %v", backend.ErrBridgeDisconnected, t.r.err())
}

// WriteMessage implements cdp.Transport: the command goes to the extension
// as debugger.send at once, in the order the Conn wrote it, and its reply
// comes back on the relay's reader, queued in the order the extension sent
// it among the events. No goroutine waits per command and nothing is
// decoded beyond what routing needs: the params and the result are spliced
// into the frames as they are.
func (t *relayTransport) WriteMessage(frame []byte) error {
	var m struct {
		ID        int64        `json:"id"`
		SessionID string       `json:"sessionId"`
		Method    string       `json:"method"`
		Params    jsonv2.Value `json:"params"`
	}
	if err := jsonv2.Unmarshal(frame, &m, lenient); err != nil {
		return fmt.Errorf("bridge: bad CDP frame: %w", err)
	}
	tabID, child, ok := parseSession(m.SessionID)
	if !ok {
		t.reply(m.ID, m.SessionID, nil, fmt.Errorf("the bridge has no browser-level session (method %s)", m.Method))
		return nil
	}
	if m.Method == "Page.navigate" {
		if res, handled, err := t.navigateData(tabID, m.Params); handled {
			t.reply(m.ID, m.SessionID, res, err)
			return nil
		}
	}
	params := make([]byte, 0, len(m.Params)+len(m.Method)+len(child)+64)
	params = append(params, `{"tabId":`...)
	params = strconv.AppendInt(params, int64(tabID), 10)
	if child != "" {
		params = append(params, `,"sessionId":`...)
		params = appendString(params, child)
	}
	params = append(params, `,"method":`...)
	params = appendString(params, m.Method)
	if len(m.Params) > 0 {
		params = append(params, `,"params":`...)
		params = append(params, m.Params...)
	}
	params = append(params, '}')
	id, session := m.ID, m.SessionID
	atOnce := answeredAtOnce[m.Method]
	err := t.r.send("debugger.send", params, func(res json.RawMessage, err error) {
		if !atOnce {
			t.reply(id, session, res, err)
		}
	})
	if errors.Is(err, ErrDisconnected) {
		// As a command lost with the connection: the transport's end
		// fails it with the disconnection itself.
		return nil
	}
	if err == nil && atOnce {
		t.reply(id, session, nil, nil)
	}
	return err
}

// answeredAtOnce are the commands the transport answers ({}) as soon as
// they are sent, without waiting a round trip through the extension for a
// reply that carries nothing: releasing remote objects. The extension runs
// them in the order they were sent, before any later command of the same
// session, so what follows finds the objects released; should the release
// fail, the objects are the page's to drop (a detached or crashed target
// has none).
var answeredAtOnce = map[string]bool{"Runtime.releaseObjectGroup": true, "Runtime.releaseObject": true}

// reply queues a CDP reply frame. A command lost with the connection gets
// none: the transport's end then fails it with the disconnection itself,
// instead of a browser error the caller would misread.
func (t *relayTransport) reply(id int64, session string, result json.RawMessage, err error) {
	if errors.Is(err, ErrDisconnected) {
		return
	}
	if err == nil {
		if len(result) == 0 {
			result = json.RawMessage("{}")
		}
		f := make([]byte, 0, len(result)+len(session)+40)
		f = append(f, `{"id":`...)
		f = strconv.AppendInt(f, id, 10)
		f = append(f, `,"sessionId":`...)
		f = appendString(f, session)
		f = append(f, `,"result":`...)
		f = append(f, result...)
		t.push(append(f, '}'))
		return
	}
	msg := err.Error()
	var oe *OpError
	if errors.As(err, &oe) {
		msg = oe.Message
	}
	code := int64(-32000)
	if errors.Is(err, errUnsupported) {
		code = cdp.CodeUnsupported
	}
	b, _ := json.Marshal(map[string]any{"id": id, "sessionId": session, "error": map[string]any{"code": code, "message": msg}})
	t.push(b)
}

// navigateData refuses data: URLs: through chrome.debugger, Page.navigate
// aborts them, and Chrome 156 also ignores chrome.tabs.update to one (only a
// new tab could open it, which would change the agent's tab under it). The
// refusal is immediate and says what to do instead.
func (t *relayTransport) navigateData(tabID int, raw []byte) (json.RawMessage, bool, error) {
	var p struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(raw, &p) != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(p.URL)), "data:") {
		return nil, false, nil
	}
	return nil, true, fmt.Errorf("%w: data: URLs cannot be opened in your Chrome through the extension; serve the content over http (or use --backend launch)", errUnsupported)
}

// errUnsupported marks a command this backend cannot run; its reply carries
// cdp.CodeUnsupported.
var errUnsupported = errors.New("not supported by this backend")

// event turns an extension event into CDP frames. It runs on the relay's
// reader and never blocks. The tabs.* events are not read: Tabs asks the
// extension, and an attached session ends with its tab.
func (t *relayTransport) event(name string, params json.RawMessage) {
	switch name {
	case "debugger.event":
		var e struct {
			TabID     int          `json:"tabId"`
			SessionID string       `json:"sessionId"`
			Method    string       `json:"method"`
			Params    jsonv2.Value `json:"params"`
		}
		if jsonv2.Unmarshal(params, &e, lenient) != nil {
			return
		}
		if len(e.Params) == 0 {
			e.Params = jsonv2.Value("{}")
		}
		f := make([]byte, 0, len(e.Params)+len(e.Method)+len(e.SessionID)+48)
		f = append(f, `{"sessionId":`...)
		f = appendString(f, sessionFor(e.TabID, e.SessionID))
		f = append(f, `,"method":`...)
		f = appendString(f, e.Method)
		f = append(f, `,"params":`...)
		f = append(f, e.Params...)
		t.push(append(f, '}'))
	case "handoff.done":
		t.b.handoffDone(t.r.hello.ProfileID, params)
	case "debugger.detached":
		var e struct {
			TabID  int    `json:"tabId"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(params, &e) != nil {
			return
		}
		f, _ := json.Marshal(map[string]any{"method": "Target.detachedFromTarget",
			"params": map[string]any{"sessionId": sessionFor(e.TabID, ""), "reason": e.Reason}})
		t.push(f)
	}
}

// Close implements cdp.Transport. The relay belongs to the server; the
// transport only stops reading.
func (t *relayTransport) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cond.Broadcast()
	return nil
}
