package browser

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Tab is one attached tab of a Session. Its fields are used only while the
// owning Session is held.
//
// A tab is a small core (its page's target and event loop, its refs, its
// notes) with parts that each own their state: the finder (locating, a
// view with no state: finder), the page view (walks, snapshots, reads,
// pictures: pageView), the pointer (pointerState), and the features whose
// events the page's loop hands them (console, dialogs, downloads, crash,
// screencast, recorder: features).
type Tab struct {
	// ID is the tab's short id in its session (t1, t2, …: see tabIDs),
	// what the agent sees and sends; "" until the tab joins the session.
	ID string
	// target is the backend's id of the tab (a CDP target id, or the
	// bridge's tab-<n>).
	target string
	// page is the tab's own CDP session, with its event loop and what the
	// loop keeps (the main frame, the frames attached, the worlds, the
	// requests).
	page *loop
	log  *slog.Logger
	// link is what the tab shares of its session: the origin policy, the
	// caller, the network log, the routes… (sessionLink).
	link *sessionLink
	// pauses is the tab's use of the Fetch domain (fetchPauses).
	pauses *fetchPauses
	// bctx is the named browser context the tab is in (zero: the
	// browser's own).
	bctx contextRef
	// bind is the tab's tie to the user (bound, detach reported).
	bind bindState

	refs *refTable
	// notes are what the tab has to tell the agent in the next result.
	notes noteBox
	// view walks, reads and pictures the page, and keeps what the next
	// snapshot, diff and page of a collection start from.
	view pageView
	// pointer sends the tab's pointer input and keeps the buttons held.
	pointer pointerState
	// settling is the quiet wait of the action under way (nil between
	// actions): an input notes there when it was sent (inputSent).
	settling *quietWatch

	// console keeps the page's console messages and exceptions.
	console *consoleLog
	// dialogs keeps the JavaScript dialog open in the page.
	dialogs *dialogState
	// downloads are the files the tab downloads (and fetches:
	// browser_download).
	downloads *downloadList
	// crash watches for the page's renderer crashing.
	crash *crashWatch
	// cast is the tab's screencast (browser_screencast).
	cast *caster
	// rec is the session's recording when it follows the tab.
	rec *recHook
}

// docLog keeps the HTTP statuses of the latest documents a tab loaded, by
// loader id: the loop notes them, navigations read them.
type docLog struct {
	mu       sync.Mutex
	statuses []docStatus
	// seen is closed when a status is added, and replaced.
	seen chan struct{}
}

// docStatus is a document's HTTP status.
type docStatus struct {
	loader string
	status int
}

// docStatusesKept bounds the statuses a tab remembers.
const docStatusesKept = 16

// note records a document's status (the loop).
func (l *docLog) note(loader string, status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.statuses = append(l.statuses, docStatus{loader, status})
	if len(l.statuses) > docStatusesKept {
		l.statuses = l.statuses[len(l.statuses)-docStatusesKept:]
	}
	if l.seen != nil {
		close(l.seen)
	}
	l.seen = make(chan struct{})
}

// status is the HTTP status of the loader's document if known; seen is
// closed when another status is recorded.
func (l *docLog) status(loader string) (status int, ok bool, seen <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.statuses) - 1; i >= 0; i-- {
		if d := l.statuses[i]; d.loader == loader {
			return d.status, true, nil
		}
	}
	if l.seen == nil {
		l.seen = make(chan struct{})
	}
	return 0, false, l.seen
}

// Bound reports whether the tab is one the user opened and the session
// bound (browser_tabs bind).
func (t *Tab) Bound() bool { return t.bind.bound }

// newTab is the tab of the backend's target id, on CDP session sess; its
// event loop starts with init.
func newTab(id string, sess cdp.Caller, log *slog.Logger) *Tab {
	t := &Tab{target: id, log: log.With("tab", id), link: &sessionLink{}, refs: newRefTable()}
	t.pauses, t.pointer.t, t.view.t = &fetchPauses{t: t}, t, t
	t.console, t.dialogs, t.downloads, t.crash, t.cast, t.rec = &consoleLog{}, newDialogState(), &downloadList{t: t}, newCrashWatch(t.log), &caster{}, &recHook{}
	t.page = &loop{Caller: sess, tab: t, page: true, worlds: newWorldCache(), reqs: newRequestTable(), stop: func() {}}
	return t
}

// features are the tab's features (feature), whose events its page's
// loop follows.
func (t *Tab) features() []feature {
	if t.console == nil {
		return nil // a bare tab (tests)
	}
	return []feature{t.console, t.dialogs, t.downloads, t.crash, t.cast, t.rec}
}

// TargetID is the backend's id of the tab (browser_tabs shows the short ID).
func (t *Tab) TargetID() string { return t.target }

// Target is the tab's CDP session.
func (t *Tab) Target() cdp.Caller { return t.page.Caller }

func (t *Tab) alive() bool {
	select {
	case <-t.page.Done():
		return false
	default:
		return true
	}
}

// init starts the tab's event loop and enables what the tab's tools rely
// on: page lifecycle events (load waits), network events (HTTP status,
// network_idle, the network log), console messages, execution contexts
// (the walker's world cache), the click hook, out-of-process iframes and,
// under an origin policy, the pause of document requests.
func (t *Tab) init(ctx context.Context) error {
	t.page = newLoop(t, t.page.Caller, true)
	if _, err := cdproto.Call(ctx, t.page, page.Enable, page.EnableParams{}); err != nil {
		return err
	}
	if _, err := cdproto.Call(ctx, t.page, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return err
	}
	if _, err := cdproto.Call(ctx, t.page, network.Enable, network.EnableParams{}); err != nil {
		return err
	}
	if _, err := cdproto.Call(ctx, t.page, runtime.Enable, cdproto.Empty{}); err != nil {
		return err
	}
	// (Inspector.targetCrashed: a crashed page fails calls at once)
	if err := t.page.Call(ctx, "Inspector.enable", nil, nil); err != nil {
		t.log.Debug("inspector", "err", err)
	}
	if err := installClickHook(ctx, t.page); err != nil {
		return err
	}
	// Out-of-process iframes are attached as they appear, so that snapshots
	// can inline them.
	if err := t.page.autoAttach(ctx); err != nil {
		t.log.Debug("auto-attach", "err", err)
	}
	return t.pauses.enable(ctx, t.page.Call)
}

// URL is the address of the tab's page now.
func (t *Tab) URL(ctx context.Context) (string, error) {
	f, err := t.page.mainFrame(ctx)
	if err != nil {
		return "", backendError("read the tab's address", err)
	}
	return f.URL, nil
}

// frame describes the tab's main frame now.
type frame struct {
	ID       string
	LoaderID string
	URL      string
}

// mainFrame reads the page's main frame, and notes its id (mainID).
func (g *loop) mainFrame(ctx context.Context) (frame, error) {
	f, err := g.readMainFrame(ctx)
	if err == nil {
		g.mainID = f.ID
	}
	return f, err
}

// frameRead is a read of the main frame, from another goroutine.
type frameRead struct {
	f   frame
	err error
}

// readMainFrame is mainFrame without noting its id: safe beside other
// work on the tab.
func (g *loop) readMainFrame(ctx context.Context) (frame, error) {
	var res struct {
		FrameTree struct {
			Frame struct {
				ID       string `json:"id"`
				LoaderID string `json:"loaderId"`
				URL      string `json:"url"`
				Fragment string `json:"urlFragment"`
			} `json:"frame"`
		} `json:"frameTree"`
	}
	if err := g.Call(ctx, "Page.getFrameTree", nil, &res); err != nil {
		return frame{}, err
	}
	f := res.FrameTree.Frame
	return frame{ID: f.ID, LoaderID: f.LoaderID, URL: f.URL + f.Fragment}, nil
}

// mainFrameID is the id of the page's main frame. It is read once and then
// taken from memory while the walker's world cache knows a context in that
// frame (the frame is there: a frame that went has its contexts destroyed),
// which saves Page.getFrameTree on every snapshot and action.
func (g *loop) mainFrameID(ctx context.Context) (string, error) {
	if g.mainID != "" && g.worlds.has(g.mainID) {
		return g.mainID, nil
	}
	f, err := g.mainFrame(ctx)
	return f.ID, err
}

// evalValue evaluates a JavaScript expression in the page and decodes its
// value (returned by value) into out.
func (t *Tab) evalValue(ctx context.Context, expr string, out any) error {
	res, err := cdproto.Call(ctx, t.page, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: new(true)})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("evaluate: %s", exceptionText(res.ExceptionDetails))
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return jsonv2.Unmarshal(res.Result.Value, out)
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// location reads the page's URL and title.
func (t *Tab) location(ctx context.Context) (url, title string, err error) {
	var v [2]string
	if err := t.evalValue(ctx, "[location.href, document.title]", &v); err != nil {
		return "", "", err
	}
	return v[0], v[1], nil
}

// waitInitialLoad waits (briefly, bounded) until a new tab's first document
// has finished loading.
func (t *Tab) waitInitialLoad(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		var state string
		if err := t.evalValue(ctx, "document.readyState", &state); err == nil && state == "complete" {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// EvalString evaluates a JavaScript expression in the tab's page and returns
// its value as text (strings as they are, other values as JSON).
func EvalString(ctx context.Context, t *Tab, expr string) (string, error) {
	var v any
	if err := t.evalValue(ctx, expr, &v); err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := jsonv2.Marshal(v)
	return string(b), err
}
