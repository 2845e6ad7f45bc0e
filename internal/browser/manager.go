package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/outdir"
)

// Options configure a Manager. Zero durations take the DESIGN.md defaults.
type Options struct {
	// Backend is the browser every session shares; nil with a Farm.
	Backend backend.Backend
	// Farm, when set, gives each session a backend of its own, made with
	// the session (it connects on first use) and closed when the session
	// is removed or the manager closes: a browser farm that hands out a
	// fresh browser per connection (--endpoint-per-session).
	Farm           Farm
	Logger         *slog.Logger
	ActionTimeout  time.Duration // default 10s
	NavTimeout     time.Duration // default 30s
	AllowedOrigins []string      // empty: every origin
	BlockedOrigins []string
	AllowFileURLs  bool   // file: URLs (also allowed when AllowedOrigins lists "file://")
	OutputDir      string // large artifacts (default DefaultOutputDir)
	OutputMaxBytes int64  // cap on the output dir (default 100 MB)
	MaxFetchBytes  int64  // cap on one file browser_download fetches (default DefaultMaxFetchBytes)
	DialogPolicy   string // DialogAsk (default), DialogAccept or DialogDismiss
	// UploadRoots are the directories uploads may come from (besides the
	// client's roots each call passes); none: uploads are refused.
	UploadRoots []string
	// NoRedact shows network output as it is: by default the values of
	// Authorization, Proxy-Authorization, Cookie and Set-Cookie headers
	// and of token-like query parameters are replaced by Redacted
	// (--no-redact).
	NoRedact bool
	// CDPAllow is browser_cdp's allow-list of domains and methods (nil:
	// DefaultCDPAllow; --cdp-allow).
	CDPAllow []string
	// HTTPAuth answers login challenges by origin (--http-auth).
	HTTPAuth []HTTPAuth
	// Approve: ApproveAsk asks the person at their own browser before a
	// session uses a site or binds their tab (--approve); "" never asks.
	Approve string
	// BrowserProfile selects the browser profile of the sessions made
	// without one of their own (SessionFor), on a backend that serves
	// several (the bridge): a profile's name, id or id prefix; "" means
	// the only one connected (--browser-profile).
	BrowserProfile string
	// RecordHeadless lets a headless launched browser record the user
	// (recipe_record), which it otherwise refuses since nobody could show
	// anything: for tests, whose "user" is input sent over CDP.
	RecordHeadless bool
}

// Farm is a factory of backends: each agent session gets one of its own
// (Options.Farm), as a browser farm hands out a fresh browser per
// connection.
type Farm interface {
	// NewBackend returns a backend for the session named label (for its
	// log); it connects on first use. After Close it comes closed.
	NewBackend(label string) backend.Backend
	// Info describes the farm (for browser_status and /health): running
	// while any backend it handed out is connected.
	Info() backend.Info
	// Close closes every backend it handed out.
	Close() error
}

// Manager holds the agent sessions on one backend, or each on its own
// (Options.Farm).
type Manager struct {
	opts Options
	log  *slog.Logger

	// policy is the default policy (Options' fields): sessions made
	// without one of their own get it.
	policy *Policy

	mu       sync.Mutex // guards sessions, claimed, policies and outs
	sessions map[string]*Session
	// policies are the compiled policies by key (Manager.Policy), outs
	// the output directories by folder and budget.
	policies map[string]*Policy
	outs     map[string]*outdir.Dir
	// retired are the backends SetBackend replaced: the sessions made on
	// them keep them; they close with the manager.
	retired []backend.Backend
	// claimed are the tabs that joined a session (owned or bound), by
	// backend id: never offered for binding; the popups they open are
	// checked against their origin rules (popupGate).
	claimed map[string]*Tab
}

// NewManager makes a Manager. It panics with neither a backend nor a farm
// (a wiring bug).
func NewManager(opts Options) *Manager {
	if opts.Backend == nil && opts.Farm == nil {
		panic("browser.NewManager: nil backend")
	}
	po := opts.PolicyOptions().withDefaults()
	opts.ActionTimeout, opts.NavTimeout, opts.OutputDir, opts.DialogPolicy, opts.OutputMaxBytes = po.ActionTimeout, po.NavTimeout, po.OutputDir, po.DialogPolicy, po.OutputMaxBytes
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: opts, log: log, sessions: make(map[string]*Session), claimed: make(map[string]*Tab),
		policies: make(map[string]*Policy), outs: make(map[string]*outdir.Dir)}
	m.policy = m.Policy(po)
	m.guard(opts.Backend)
	return m
}

// guard makes be hold the tabs pages open until their opener's origin rules
// allow them (backend.PopupGuard; launch and endpoint).
func (m *Manager) guard(be backend.Backend) {
	if g, ok := be.(backend.PopupGuard); ok {
		g.GuardPopups(m.popupGate)
	}
}

// popupGate is the check of the document loads of a tab that opener, a
// session's tab, opened: its origin rules. A refused first document closes
// the new tab before its request is sent, and the opener's next result says
// so. Tabs of no session, and sessions without rules, are not checked.
func (m *Manager) popupGate(opener string) backend.PopupCheck {
	m.mu.Lock()
	t := m.claimed[opener]
	m.mu.Unlock()
	if t == nil || t.link.origin == nil {
		return nil
	}
	origin := t.link.origin
	return func(raw string, main bool) error {
		u, err := url.Parse(raw)
		if err != nil {
			return err
		}
		perr := origin(u)
		if perr == nil {
			return nil
		}
		if main {
			t.notes.add(fmt.Sprintf("closed a new tab on %s that the page opened, before it loaded: %s", shorten(raw, 200), perr.Message))
		}
		return perr
	}
}

// WithPolicy is o with the policy fields of p.
func (o Options) WithPolicy(p PolicyOptions) Options {
	o.ActionTimeout, o.NavTimeout, o.AllowedOrigins, o.BlockedOrigins, o.AllowFileURLs = p.ActionTimeout, p.NavTimeout, p.AllowedOrigins, p.BlockedOrigins, p.AllowFileURLs
	o.OutputDir, o.OutputMaxBytes, o.DialogPolicy, o.NoRedact, o.CDPAllow, o.HTTPAuth = p.OutputDir, p.OutputMaxBytes, p.DialogPolicy, p.NoRedact, p.CDPAllow, p.HTTPAuth
	o.Approve = p.Approve
	return o
}

// PolicyOptions are the policy fields of o.
func (o Options) PolicyOptions() PolicyOptions {
	return PolicyOptions{ActionTimeout: o.ActionTimeout, NavTimeout: o.NavTimeout, AllowedOrigins: o.AllowedOrigins,
		BlockedOrigins: o.BlockedOrigins, AllowFileURLs: o.AllowFileURLs, OutputDir: o.OutputDir, OutputMaxBytes: o.OutputMaxBytes,
		DialogPolicy: o.DialogPolicy, NoRedact: o.NoRedact, CDPAllow: o.CDPAllow, HTTPAuth: o.HTTPAuth, Approve: o.Approve}
}

// Backend returns the backend the manager drives (Options.Backend, or the
// one SetBackend put in its place); nil with a farm and no such backend.
func (m *Manager) Backend() backend.Backend {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts.Backend
}

// Info describes the browser the manager drives: its backend's Info, or
// the farm's (Options.Farm) when it has no backend of its own.
func (m *Manager) Info() backend.Info {
	m.mu.Lock()
	be, farm := m.opts.Backend, m.opts.Farm
	m.mu.Unlock()
	if be == nil {
		return farm.Info()
	}
	return be.Info()
}

// SetBackend makes be the backend of the sessions made from now on (a
// newly paired extension: the user's Chrome). The sessions that exist keep
// the backend their tabs live on, and their next call gets note; the old
// backend closes with the manager.
func (m *Manager) SetBackend(be backend.Backend, note string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.opts.Backend
	if be == old {
		return
	}
	if old != nil {
		m.retired = append(m.retired, old)
	}
	m.opts.Backend = be
	m.guard(be)
	for _, s := range m.sessions {
		if !s.ownBackend && s.base == old {
			s.noteMu.Lock()
			s.note = note
			s.noteMu.Unlock()
		}
	}
}

// Options returns the manager's effective options.
func (m *Manager) Options() Options {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts
}

// Session returns the named session, creating it on first use.
func (m *Manager) Session(name string) *Session { return m.SessionFor(name, "") }

// SessionFor returns the named session, creating it on first use on the
// browser profile profile selects ("" Options.BrowserProfile). An existing
// session keeps the profile it was made with: its tabs live there.
func (m *Manager) SessionFor(name, profile string) *Session {
	return m.SessionWith(name, profile, nil)
}

// SessionWith is SessionFor with the policy a new session gets (nil: the
// default policy). An existing session keeps the policy it was made with;
// the caller compares (Session.Policy) when that matters.
func (m *Manager) SessionWith(name, profile string, pol *Policy) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[name]
	if !ok {
		if profile == "" {
			profile = m.opts.BrowserProfile
		}
		if pol == nil {
			pol = m.policy
		}
		s = &Session{name: name, m: m, be: m.opts.Backend, pol: pol, profile: profile, lock: make(chan struct{}, 1), link: newSessionLink(pol)}
		s.tabs = newTabSet(s)
		s.base = s.be
		if m.opts.Farm != nil {
			s.be, s.ownBackend = m.opts.Farm.NewBackend(name), true
			m.guard(s.be)
		}
		s.own = s.be
		if sc, ok := s.be.(backend.Scoper); ok {
			// Its calls say which session and browser profile they are
			// for (the bridge).
			s.be = sc.For(s.scope)
		}
		s.used.Store(time.Now().UnixNano())
		m.sessions[name] = s
	}
	return s
}

// Lookup returns the named session if it exists, without creating it.
func (m *Manager) Lookup(name string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[name]
	return s, ok
}

// Emulating describes what the named session emulates (browser_emulate),
// one setting per item; nil when nothing, or no such session.
func (m *Manager) Emulating(name string) []string {
	s, ok := m.Lookup(name)
	if !ok {
		return nil
	}
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	return s.emulating
}

// SessionNames lists the sessions that exist, sorted.
func (m *Manager) SessionNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.sessions))
	for n := range m.sessions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// removeCloseTimeout bounds closing a removed session's tabs.
const removeCloseTimeout = 10 * time.Second

// Remove closes the tabs the named session owns (never another tab), and
// the session's own backend if it has one (Options.Farm), and
// deletes the session; a later call with the name makes a fresh one. A
// call holding the session finishes first: Remove waits for it as long as
// ctx allows. It reports whether the session existed and was removed.
func (m *Manager) Remove(ctx context.Context, name string) (bool, error) {
	return m.remove(ctx, name, func(*Session) bool { return true })
}

// RemoveIdle is Remove for a session that has had no call for idle (nor
// runs one now); a session used more recently stays.
func (m *Manager) RemoveIdle(ctx context.Context, name string, idle time.Duration) (bool, error) {
	return m.remove(ctx, name, func(s *Session) bool { return time.Since(time.Unix(0, s.used.Load())) >= idle })
}

// remove removes the named session, held, when ok says so.
func (m *Manager) remove(ctx context.Context, name string, ok func(*Session) bool) (bool, error) {
	s, found := m.Lookup(name)
	if !found {
		return false, nil
	}
	removed := false
	err := s.hold(ctx, false, func() error {
		if !ok(s) {
			return nil
		}
		if s.removed {
			return nil
		}
		// The tabs close first, so that a session no longer listed has no
		// tab left either.
		s.unpinIfEmpty()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeCloseTimeout)
		defer cancel()
		err := s.release(cctx)
		s.removed, removed = true, true
		m.mu.Lock()
		if m.sessions[name] == s {
			delete(m.sessions, name)
		}
		m.mu.Unlock()
		return err
	})
	if err != nil {
		return removed, fmt.Errorf("remove session %q: %w", name, err)
	}
	if removed {
		m.log.Info("session removed", "session", name)
	}
	return removed, nil
}

// Close closes every session's tabs (and own backend) and then the backend
// (or the farm).
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	sessions := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		sessions = append(sessions, s)
	}
	m.sessions = make(map[string]*Session)
	retired := m.retired
	m.retired = nil
	be, farm := m.opts.Backend, m.opts.Farm
	m.mu.Unlock()
	var errs []error
	for _, s := range sessions {
		if err := s.Do(ctx, func(ctx context.Context, _ *Held) error { return s.release(ctx) }); err != nil {
			errs = append(errs, err)
		}
		// A session still held when ctx ran out keeps its tabs, but its
		// own connection goes all the same: the manager is closing.
		errs = append(errs, s.closeBackend())
	}
	for _, r := range retired {
		errs = append(errs, r.Close())
	}
	if be != nil {
		errs = append(errs, be.Close())
	}
	if farm != nil {
		errs = append(errs, farm.Close())
	}
	return errors.Join(errs...)
}

// LostNote leads the result of the first call after the session's browser
// was lost (it exited, crashed or disconnected) and started again.
const LostNote = "the browser connection was lost since the last call (the browser exited, crashed or disconnected) and webpilot started it again: this is a new blank tab; the session's earlier tabs and their refs are gone: navigate again"

// Session is one agent's view of the browser; see the package doc.
type Session struct {
	name string
	m    *Manager
	// be is the backend the session's tabs live on: the manager's, or the
	// session's own (ownBackend, from Options.Farm).
	be         backend.Backend
	ownBackend bool
	// base is the manager's backend the session was made on, and own the
	// backend itself that be is, or a view of (backend.Scoper): the one a
	// session's own backend closes.
	base, own backend.Backend
	// pol is the session's policy, fixed when it is made.
	pol     *Policy
	closeBe sync.Once
	lock    chan struct{} // one holder at a time; see Do
	used    atomic.Int64  // when the session was last taken or let go (unix ns)
	calls   atomic.Int64  // calls run (Do): a read ahead gives way to any that came since
	aheads  atomic.Int64  // read aheads asked for: only the last one runs
	// link is what the session's tabs share of it (sessionLink): the
	// caller, the network log, the routes, the count of windows asked
	// for…
	link *sessionLink

	// Fields below are guarded by lock (held through Do).
	// removed: the manager removed the session (Manager.Remove); Do
	// refuses it from then on with ErrSessionRemoved.
	removed bool
	// tabs are the session's tabs (tabSet): those it owns or bound, the
	// current one, their short ids.
	tabs    tabSet
	snapSeq int

	// profile selects the browser profile (Options.BrowserProfile). When
	// it is "", the session pins itself to the profile its first backend
	// call ran on (pinned, a profile id), so that a profile connecting
	// later does not make its calls ambiguous; a session with no tab left
	// lets go of the pin.
	profile string
	pinMu   sync.Mutex // guards pinned
	pinned  string

	// lastFlow is the last browser_flow that ran to its end (recipe_save).
	lastFlow *FlowRecord
	// rec is the session's recording of the user (recipe_record), from
	// its start until a call collects it.
	rec *recording
	// recorded is the last recording stopped (recipe_record save).
	recorded *Recorded
	// emulation is what browser_emulate set for the session's tabs.
	emulation Emulation
	// contexts are the session's named browser contexts.
	contexts browserContexts

	// note is for the session's next call (SetBackend); label names the
	// client it works for (SetLabel). noteMu guards both.
	noteMu sync.Mutex
	note   string
	label  string
	// emulating describes the session's emulation for browser_status,
	// which holds nothing (guarded by noteMu; set by Emulate).
	emulating []string
	shown     string // SetShown
}

// SetLabel names, once, the client the session works for ("Claude Code"):
// the user's Chrome shows the session's tab group as "webpilot · <label> ·
// <name>", so that the user sees whose tabs they are. Later labels are
// ignored: a group keeps its title.
func (s *Session) SetLabel(label string) {
	label = strings.TrimSpace(label)
	if label == "" {
		return
	}
	if r := []rune(label); len(r) > 40 {
		label = string(r[:40])
	}
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	if s.label == "" {
		s.label = label
	}
}

// SetShown sets, once, the name the session's client knows it by (its
// name in the manager may carry the client's namespace): error messages
// use it.
func (s *Session) SetShown(name string) {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	if s.shown == "" {
		s.shown = name
	}
}

// shownToAgent is the name the session's client knows it by.
func (s *Session) shownToAgent() string {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	if s.shown != "" {
		return s.shown
	}
	return s.name
}

// shownName is how the user's browser names the session: its label and
// name, or its name.
func (s *Session) shownName() string {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	if s.label == "" || s.label == s.name {
		return s.name
	}
	return s.label + " · " + s.name
}

// TakeNote returns and clears what the session's next call is to be told
// about the session itself (a backend change), or "".
func (s *Session) TakeNote() string {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	n := s.note
	s.note = ""
	return n
}

// GroupName is how the user's browser names the session's tab group
// ("webpilot · <GroupName>"): its client's label and its name.
func (s *Session) GroupName() string { return s.shownName() }

// Name is the session's name.
func (s *Session) Name() string { return s.name }

// Backend is the backend the session's tabs live on: the manager's, or the
// session's own (Options.Farm).
func (s *Session) Backend() backend.Backend { return s.be }

// release closes what the session holds: its tabs, or its own backend,
// whose Close closes the tabs with the connection. Call held.
func (s *Session) release(ctx context.Context) error {
	if !s.ownBackend {
		return s.tabs.closeTabs(ctx)
	}
	clear(s.tabs.all)
	s.tabs.current = nil
	return s.closeBackend()
}

// closeBackend closes the session's own backend, once; a shared one stays.
func (s *Session) closeBackend() error {
	if !s.ownBackend {
		return nil
	}
	var err error
	s.closeBe.Do(func() {
		if err = s.own.Close(); err != nil {
			err = fmt.Errorf("close session %q's backend: %w", s.name, err)
		}
	})
	return err
}

// ErrSessionRemoved is what Do returns for a session the manager removed
// while the caller waited for it: take the session again from the manager
// (Manager.Session makes a fresh one).
var ErrSessionRemoved = errors.New("the session was removed")

// Do runs fn with the session held, so calls within a session are
// serialized. It waits for the session no longer than ctx allows. A session
// removed meanwhile is ErrSessionRemoved, and fn does not run.
//
// fn gets the session as it holds it: what may only run while the session
// is held (its tabs, their pages, its network log) are the methods of
// [Held], which only Do makes.
func (s *Session) Do(ctx context.Context, fn func(ctx context.Context, h *Held) error) error {
	return s.hold(ctx, true, func() error {
		if s.removed {
			return ErrSessionRemoved
		}
		s.calls.Add(1)
		s.unpinIfEmpty()
		defer func() { s.link.caller = Caller{} }()
		err := fn(ctx, &Held{s: s})
		s.tabs.callEnded()
		if be, ok := AsError(err); ok && be.Code == CodeBridgeDetached {
			// The agent has now been told: the next call re-attaches.
			for _, t := range s.tabs.all {
				if !t.alive() && errors.Is(tabErr(t), cdp.ErrDetachedByUser) {
					t.bind.detachReported = true
				}
			}
		}
		return err
	})
}

// unpinIfEmpty lets a session made without a browser profile selector
// that has no tabs go to another profile: nothing of it lives on the one
// it was pinned to. Call held.
func (s *Session) unpinIfEmpty() {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if len(s.tabs.all) == 0 {
		s.pinned = ""
	}
}

// scope is whom the session's backend calls are for (backend.Scoper): the
// session, and the browser profile they go to — the one it was made for,
// else the one its first call ran on (pin).
func (s *Session) scope() backend.Scope {
	sc := backend.Scope{Session: s.shownName(), Profile: s.profile}
	if s.profile == "" {
		s.pinMu.Lock()
		sc.Profile, sc.Used = s.pinned, s.pin
		s.pinMu.Unlock()
	}
	return sc
}

// pin records the profile a backend call of the session ran on, the first.
func (s *Session) pin(id string) {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if s.pinned == "" {
		s.pinned = id
	}
}

// BrowserProfile is the selector of the browser profile the session's
// calls go to: the one it was made with, else the id of the profile it
// pinned itself to, else "" (the only one connected).
func (s *Session) BrowserProfile() string {
	if s.profile != "" {
		return s.profile
	}
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	return s.pinned
}

// BrowserProfileName names the browser profile the session's calls go to,
// when the backend serves named profiles (the bridge) and it is connected;
// "" otherwise.
func (s *Session) BrowserProfileName() string {
	info := s.be.Info()
	sel := strings.TrimSpace(s.BrowserProfile())
	if sel == "" {
		if len(info.Profiles) == 1 {
			return info.Profiles[0].Name
		}
		return ""
	}
	var prefixed []backend.Profile
	for _, p := range info.Profiles {
		if strings.EqualFold(p.Name, sel) || p.ID == sel {
			return p.Name
		}
		if strings.HasPrefix(strings.ToLower(p.ID), strings.ToLower(sel)) {
			prefixed = append(prefixed, p)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0].Name
	}
	return ""
}

// hold runs fn with the session held; a call (touch) marks the session
// used when it takes it and when it lets go.
func (s *Session) hold(ctx context.Context, touch bool, fn func() error) error {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return &Error{Code: CodeTimeout, Message: "session is busy with another call", Hint: "calls in one session run one at a time; wait or use another session", Err: ctx.Err()}
	}
	if touch {
		s.used.Store(time.Now().UnixNano())
	}
	defer func() {
		if touch {
			s.used.Store(time.Now().UnixNano())
		}
		<-s.lock
	}()
	return fn()
}

// Idle is how long the session has had no call: 0 while one runs.
func (s *Session) Idle() time.Duration {
	if len(s.lock) > 0 {
		return 0
	}
	return time.Since(time.Unix(0, s.used.Load()))
}

// nextSnapshotID numbers the session's snapshots: s1, s2, …
func (s *Session) nextSnapshotID() string {
	s.snapSeq++
	return fmt.Sprintf("s%d", s.snapSeq)
}

// timeoutHint is the hint of a call that ran out of time, whatever the
// tool: only navigate and actions take timeout_ms.
const timeoutHint = "the page may be busy or very large: retry, narrow the call (scope, browser_find), or allow more time (timeout_ms on browser_navigate and browser_action; --timeout bounds every call)"

// backendError turns a backend or CDP failure into an agent-facing error.
func backendError(doing string, err error) error {
	if _, ok := AsError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, backend.ErrBridgeVersion):
		return &Error{Code: CodeBridgeVersionMismatch, Message: "cannot " + doing + ": the browser extension and webpilot speak different protocol versions",
			Hint: "update the older side: `webpilot extension --out DIR` and reload it in chrome://extensions, or update webpilot", Err: err}
	case errors.Is(err, backend.ErrAmbiguousProfile), errors.As(err, new(*backend.ProfileError)):
		return profileError(doing, err)
	case errors.Is(err, backend.ErrBridgeDisconnected):
		return &Error{Code: CodeBridgeDisconnected, Message: "cannot " + doing + ": the webpilot extension in Chrome is not connected",
			Hint: "open Chrome (the paired profile) and check that the webpilot extension is enabled; its popup shows the connection (press Connect there if it says Disconnected by you). The session keeps its tabs: retry once it is connected", Err: err}
	case errors.Is(err, cdp.ErrReleasedByUser):
		return &Error{Code: CodeBridgeDetached, Message: "cannot " + doing + ": the tab was taken out of webpilot's tab group or window in Chrome (or released in the extension's popup), so it is the user's now",
			Hint: "the next call opens a new tab; to use that tab again, bind it (browser_tabs bind)", Err: err}
	case errors.Is(err, cdp.ErrDetachedByUser):
		return &Error{Code: CodeBridgeDetached, Message: "cannot " + doing + ": debugging of that tab was cancelled in Chrome",
			Hint: "someone closed Chrome's \"is debugging this browser\" bar for the tab; the next call re-attaches to it (take a fresh snapshot then: refs from before are stale)", Err: err}
	case errors.As(err, new(*backend.ProfileLockedError)):
		var pl *backend.ProfileLockedError
		errors.As(err, &pl)
		if pl.Holder != "" {
			return &Error{Code: CodeNoBrowser, Message: fmt.Sprintf("cannot %s: the browser profile %s is in use by another webpilot, %s", doing, pl.Dir, pl.Holder),
				Hint: "one profile takes one browser: reach that webpilot instead (`webpilot mcp` without --standalone uses the per-user daemon; `webpilot daemon status` shows it), stop it (`webpilot daemon stop`, or end that webpilot serve), or start this webpilot with --isolated or another --user-data-dir", Err: err}
		}
		return &Error{Code: CodeNoBrowser, Message: fmt.Sprintf("cannot %s: the browser profile %s is in use by another browser (pid %d), not one webpilot started", doing, pl.Dir, pl.PID),
			Hint: "webpilot needs a profile of its own: start it with --isolated or another --user-data-dir (to drive the user's own Chrome, pair the extension: webpilot pair)", Err: err}
	case errors.Is(err, backend.ErrProfileLocked):
		return &Error{Code: CodeNoBrowser, Message: "cannot " + doing + ": the browser profile is in use by another browser",
			Hint: "webpilot needs a profile of its own: start it with --isolated or another --user-data-dir (to drive the user's own Chrome, pair the extension: webpilot pair)", Err: err}
	case errors.As(err, new(*backend.EndpointError)):
		var ee *backend.EndpointError
		errors.As(err, &ee)
		return endpointError(doing, ee, err)
	case errors.Is(err, backend.ErrUnreachable):
		return &Error{Code: CodeNoBrowser, Message: "cannot " + doing + ": the browser endpoint did not answer",
			Hint: "check that the browser endpoint or farm (--cdp-endpoint) is up and reachable from here and that its token (--cdp-header) is right; the next call connects again", Err: err}
	case errors.As(err, new(*backend.StartError)):
		var se *backend.StartError
		errors.As(err, &se)
		hint := se.Hint
		if hint == "" {
			hint = "`webpilot doctor` with the same flags starts the browser and shows its output; pass --browser another one if this one cannot run here"
		}
		e := &Error{Code: CodeNoBrowser, Message: fmt.Sprintf("cannot %s: the browser %s did not start: %s", doing, se.Path, se.Reason), Hint: hint, Err: err}
		if se.Output != "" {
			e.Diagnosis = map[string]any{"browser_output": se.Output}
		}
		return e
	case errors.Is(err, backend.ErrNoBrowser):
		return &Error{Code: CodeNoBrowser, Message: "cannot " + doing + ": no browser could be started (" + strings.TrimPrefix(err.Error(), "launch: ") + ")",
			Hint: "install Chromium or Chrome, or set --browser / WEBPILOT_BROWSER to its path; webpilot doctor explains", Err: err}
	case errors.Is(err, backend.ErrTabNotFound), errors.Is(err, cdp.ErrDetached):
		return &Error{Code: CodeTabNotFound, Message: "cannot " + doing + ": the tab is gone",
			Hint: "the tab was closed; the next call opens a new one", Err: err}
	case errors.Is(err, cdp.ErrClosed):
		return &Error{Code: CodeNoBrowser, Message: "cannot " + doing + ": the browser connection was lost",
			Hint: "the browser exited or crashed; the next call starts it again", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeTimeout, Message: "timed out trying to " + doing, Hint: timeoutHint, Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeTimeout, Message: "cancelled while trying to " + doing, Err: err}
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// profileError is the agent-facing error of a call the bridge could not
// place on one browser profile: several are connected and the session names
// none (AMBIGUOUS_TARGET), or the one it names is not connected
// (BRIDGE_DISCONNECTED). The suggestions are the flags that pick each
// connected profile.
func profileError(doing string, err error) error {
	var pe *backend.ProfileError
	if !errors.As(err, &pe) {
		return &Error{Code: CodeAmbiguousTarget, Message: "cannot " + doing + ": several browser profiles are connected", Hint: profileHint, Err: err}
	}
	var sugg []string
	for _, p := range pe.Profiles {
		name := p.Name
		if strings.ContainsRune(name, ' ') {
			name = `"` + name + `"`
		}
		sugg = append(sugg, "--browser-profile "+name)
	}
	if errors.Is(err, backend.ErrAmbiguousProfile) {
		return &Error{Code: CodeAmbiguousTarget, Message: "cannot " + doing + ": " + pe.Detail, Hint: profileHint, Suggestions: sugg, Err: err}
	}
	return &Error{Code: CodeBridgeDisconnected, Message: "cannot " + doing + ": " + pe.Detail,
		Hint: "open that browser profile and check that the webpilot extension is enabled in it (its popup shows the connection and the profile's name), or choose a connected one: " + profileHint, Suggestions: sugg, Err: err}
}

// profileHint says how to choose a browser profile.
const profileHint = "start webpilot with --browser-profile NAME (or set WEBPILOT_BROWSER_PROFILE); a client over HTTP sends the header Webpilot-Browser-Profile"
