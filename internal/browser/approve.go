package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/origin"
)

// The approval modes (PolicyOptions.Approve, --approve).
const (
	// ApproveAsk: in the person's own browser (a backend.Approver), a
	// client's session asks before it uses a site the person has not
	// allowed, and before it binds one of their tabs.
	ApproveAsk = "ask"
	// ApproveAlways: never ask (the person opted out); "" is the same.
	ApproveAlways = "always"
)

// ApproveWait bounds how long a call waits for the person's answer.
const ApproveWait = 60 * time.Second

// approval is the one gate of the person's approvals: every check goes
// through Session.approve. It asks only in ApproveAsk mode, on a backend
// that is the person's browser, about http and https pages.
func (s *Session) approver() backend.Approver {
	if s.pol.opts.Approve != ApproveAsk {
		return nil
	}
	a, _ := s.be.(backend.Approver)
	return a
}

// approve asks, when it must, whether the session's client may use the
// page at raw (in the tab with backend id tab; "" for a tab not open yet): nil when it may,
// USER_DENIED when the person said no, TIMEOUT when they did not answer
// within ApproveWait. bind asks for one of the person's own tabs, always.
func (s *Session) approve(ctx context.Context, tab, raw, title string, bind bool) error {
	a := s.approver()
	if a == nil {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	site := origin.Site(u.Host)
	if site == "" {
		return nil
	}
	s.noteMu.Lock()
	client := s.label
	s.noteMu.Unlock()
	q := backend.Approval{Client: client, Session: s.name, Site: site, URL: shorten(raw, 280), Tab: tab, Bind: bind, Title: shorten(title, 200)}
	actx, cancel := context.WithTimeout(ctx, ApproveWait)
	defer cancel()
	ans, err := a.Approve(actx, q)
	who := orUnnamed(client)
	what := site
	if bind {
		what = "the user's tab on " + site
	}
	switch {
	case err == nil && ans == backend.Deny:
		hint := "do not retry on this site: tell the user what you wanted to do there; they can change their answer in the webpilot extension's popup (Sites)"
		if bind {
			hint = "work in a tab of your own instead (browser_navigate), or ask the user to bind again and allow it"
		}
		return &Error{Code: CodeUserDenied, Message: fmt.Sprintf("the person at the browser denied %s the use of %s", who, what),
			Hint: hint, Diagnosis: map[string]any{"site": site, "client": client}}
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("the person at the browser did not answer within %s whether %s may use %s", ApproveWait, who, what),
			Hint:      "the question was withdrawn: tell the user that webpilot's extension will ask them (its icon shows ?, the popup lists the question), then retry while they are there",
			Diagnosis: map[string]any{"site": site, "client": client, "waiting_for": "approval"}}
	}
	return backendError("ask the person whether "+who+" may use "+what, err)
}

// orUnnamed is a client's name as the agent is told it.
func orUnnamed(client string) string {
	if strings.TrimSpace(client) == "" {
		return "this client"
	}
	return client
}

// approveShown is approve for the page tab t shows now.
func (s *Session) approveShown(ctx context.Context, t *Tab) error {
	if t == nil || s.approver() == nil {
		return nil
	}
	raw, ok := t.page.shown.get()
	if !ok {
		gen := t.page.shown.generation()
		var err error
		if raw, err = t.URL(ctx); err != nil {
			return nil // the call itself reports a tab that cannot be read
		}
		t.page.shown.seed(gen, raw)
	}
	return s.approve(ctx, t.TargetID(), raw, "", false)
}

// Page is the held tab's page as its events last told it, without asking
// the page ("" before the first navigation seen, or with no tab): what the
// person's live view says the session works on.
func (p Person) Page() string {
	if p.h.t == nil {
		return ""
	}
	u, _ := p.h.t.page.shown.get()
	return u
}

// shownURL is the main frame's URL as the page's events tell it
// (Page.frameNavigated of the main frame): the approval of what a tab
// shows reads it without a round trip to the page. Until the first event
// a read of the page seeds it, unless an event came meanwhile.
type shownURL struct {
	mu  sync.Mutex // guards the fields below
	url string
	ok  bool
	gen uint64 // counts the events
}

// committed takes a Page.frameNavigated event; a child frame's is ignored.
func (u *shownURL) committed(raw jsonv2.Value) {
	var ev struct {
		Frame struct {
			ParentID string `json:"parentId"`
			URL      string `json:"url"`
		} `json:"frame"`
	}
	if jsonv2.Unmarshal(raw, &ev) != nil || ev.Frame.ParentID != "" {
		return
	}
	u.mu.Lock()
	u.url, u.ok = ev.Frame.URL, true
	u.gen++
	u.mu.Unlock()
}

// get is the URL known, and whether one is.
func (u *shownURL) get() (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.url, u.ok
}

// generation is the count of events so far.
func (u *shownURL) generation() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.gen
}

// seed sets the URL read from the page, unless an event came since gen.
func (u *shownURL) seed(gen uint64, url string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.gen == gen && !u.ok {
		u.url, u.ok = url, true
	}
}

// Approve is the person's approval of the page the held tab shows (see
// PolicyOptions.Approve): the server asks it before a call reads or acts
// on a page, and again before it shows the agent a page a call led to.
func (p Person) Approve(ctx context.Context) error {
	return p.h.s.approveShown(ctx, p.h.t)
}

// ApprovalRule is one of the person's remembered answers.
type ApprovalRule = backend.ApprovalRule

// ApprovalRules are the person's remembered answers (their own browser's
// rules, per client and site), for status output; nil when the backend
// keeps none.
func (m *Manager) ApprovalRules(ctx context.Context) ([]ApprovalRule, error) {
	a, ok := m.Backend().(backend.Approver)
	if !ok {
		return nil, nil
	}
	rules, err := a.Approvals(ctx)
	if rules == nil && err == nil {
		rules = []ApprovalRule{}
	}
	return rules, err
}

// The live view's record and controls (backend.LiveView), as the MCP layer
// names them.
type (
	LiveClient  = backend.LiveClient
	LiveSession = backend.LiveSession
	Control     = backend.Control
)

// The person's controls of a client in the live view.
const (
	ControlPause  = backend.Pause
	ControlResume = backend.Resume
	ControlStop   = backend.Stop
)

// LiveView is whether the manager's backend shows the person a live view
// of the clients (the bridge).
func (m *Manager) LiveView() bool {
	_, ok := m.Backend().(backend.LiveView)
	return ok
}

// ShowLive sends the person's browser the clients' record, and sets who
// hears their Pause, Resume and Stop; nothing when the backend has no live
// view.
func (m *Manager) ShowLive(ctx context.Context, clients []LiveClient, control func(client string, action Control)) error {
	lv, ok := m.Backend().(backend.LiveView)
	if !ok {
		return nil
	}
	lv.OnControl(control)
	return lv.ShowLive(ctx, clients)
}
