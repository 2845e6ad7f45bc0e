package browser

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Tab is one attached tab of a Session. Its fields are used only while the
// owning Session is held.
type Tab struct {
	// ID is the tab's short id in its session (t1, t2, …: see tabIDs),
	// what the agent sees and sends; "" until the tab joins the session.
	ID string
	// target is the backend's id of the tab (a CDP target id, or the
	// bridge's tab-<n>).
	target string
	// page is the tab's own CDP session, with its event loop.
	page *target
	log  *slog.Logger
	// detachReported: the session has told the agent (BRIDGE_DETACHED)
	// that debugging of this tab was cancelled.
	detachReported bool
	policy         func(*url.URL) *Error // origin policy; nil allows everything

	refs     *refTable
	mainID   string     // the main frame's id, as last read (mainFrameID)
	kids     children   // out-of-process iframes, attached automatically
	lastSnap []string   // compact lines of the last snapshot: the diff baseline
	lastDoc  string     // the main document (walker token) lastSnap is of
	lastHead [2]string  // the title and URL lastSnap is of
	cache    *snapCache // the last rendered snapshot, for offset pages
	// prewalk is the walk the last action took while the page settled,
	// for the snapshot that follows it (collect).
	prewalk *prewalked
	// reused is how many elements (subtrees counted once) the last walk of
	// the main document took over from the walk before.
	reused int
	// noPrewalk is the walker token of a document whose walk did not fit
	// prewalkBudget: actions on it leave the walk to the snapshot.
	noPrewalk string
	// settling is the quiet wait of the action under way (nil between
	// actions): an input notes there when it was sent (inputSent).
	settling *quietWatch
	// httpAuth are the session's login answers (--http-auth); authAnswered
	// the requests already answered once (guarded by mu).
	httpAuth     []HTTPAuth
	authAnswered map[string]bool
	// routes are the session's (browser_route).
	routes *routeTable
	// contextName and contextID are the named browser context the tab is
	// in ("": the browser's own).
	contextName, contextID string
	// cast is the tab's screencast under way (browser_screencast), nil
	// when none.
	cast *screencast
	// pointer is the mouse's state between calls (the buttons held).
	pointer pointerState
	// collected is the last browser_collect result, for offset pages.
	collected *collectEntry
	// consoleView is the last browser_console listing, for offset pages.
	consoleView *consoleCache

	dialogPolicy string // DialogAsk, DialogAccept or DialogDismiss
	// net is the session's network buffer, which the tab's requests go to.
	net *netLog

	mu      sync.Mutex // guards notes, lead, blocked and the dialog, written by the watcher
	notes   []string
	lead    string // read first in the next result (addLead)
	blocked string
	// dialog is the JavaScript dialog open in the page (policy ask), and
	// dialogGen counts the dialogs opened; dialogOpened is closed when one
	// opens (dialogSignalled), and replaced when it closes.
	dialog          *dialogEvent
	dialogGen       int
	dialogOpened    chan struct{}
	dialogSignalled bool
	// crash is closed when the page crashes (Inspector.targetCrashed;
	// crashed set), and replaced when a navigation starts a new page.
	crash          chan struct{}
	crashed        bool
	console        []ConsoleEntry // the newest consoleCap entries
	consoleSeq     int
	consoleDropped int         // entries pushed out of the ring since it was last cleared
	downloads      []*Download // the newest downloadCap downloads
	downloadSeq    int
	downloadDir    string                      // the staging folder the browser saves them in ("" its own folder)
	downloadEarly  map[string]downloadProgress // progress that came before its download's beginning
	dlBatch        *dlBatch                    // the running call's downloads (downloadMark), or nil
	// outputs is the session policy whose output directory keeps the tab's
	// downloads; findFile finds a finished one in the browser's own folder
	// (backend.DownloadFinder), or is nil.
	outputs  *Policy
	findFile func(ctx context.Context, guid string) (backend.DownloadFile, error)
	// downloadsRemote: the browser runs on another machine, which keeps
	// the files.
	downloadsRemote bool
	// maxFetchBytes bounds one file browser_download fetches (0: the
	// default, DefaultMaxFetchBytes).
	maxFetchBytes int64
	// caller is the session's Caller (Session.caller): the client holding
	// it now.
	caller *Caller
	// owner is the client its output files are written for
	// (Session.clientID); nil in tabs of no session.
	owner func() string
	// hider gives what the walker's matchers hide (Session.hider); nil
	// in tabs of no session.
	hider func() hider
	// docStatuses are the HTTP statuses of the latest documents the tab
	// loaded, by loader id (the loop's, under mu); docSeen is closed when
	// one is added, and replaced.
	docStatuses []docStatus
	docSeen     chan struct{}
	// windowOpens is the session's count (Session.windowOpens) that the
	// tab's loop adds to when the page asks for a new window.
	windowOpens *atomic.Int64
	// bound: the user opened the tab and the session bound it
	// (browser_tabs bind); webpilot never closes it, only releases it.
	bound bool
}

// docStatus is a document's HTTP status.
type docStatus struct {
	loader string
	status int
}

// docStatusesKept bounds the statuses a tab remembers.
const docStatusesKept = 16

// noteDocStatus records a document's status (the loop).
func (t *Tab) noteDocStatus(loader string, status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.docStatuses = append(t.docStatuses, docStatus{loader, status})
	if len(t.docStatuses) > docStatusesKept {
		t.docStatuses = t.docStatuses[len(t.docStatuses)-docStatusesKept:]
	}
	if t.docSeen != nil {
		close(t.docSeen)
	}
	t.docSeen = make(chan struct{})
}

// docStatus is the HTTP status of the loader's document if known; seen is
// closed when another status is recorded.
func (t *Tab) docStatus(loader string) (status int, ok bool, seen <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.docStatuses) - 1; i >= 0; i-- {
		if d := t.docStatuses[i]; d.loader == loader {
			return d.status, true, nil
		}
	}
	if t.docSeen == nil {
		t.docSeen = make(chan struct{})
	}
	return 0, false, t.docSeen
}

// Bound reports whether the tab is one the user opened and the session
// bound (browser_tabs bind).
func (t *Tab) Bound() bool { return t.bound }

// snapCache keeps a rendered snapshot so that its later pages come from the
// same render.
type snapCache struct {
	mode  string
	scope Locator
	body  string
	snap  Snapshot
}

// newTab is the tab of the backend's target id, on CDP session sess; its
// event loop starts with init.
func newTab(id string, sess cdp.Caller, log *slog.Logger) *Tab {
	t := &Tab{target: id, log: log.With("tab", id), refs: newRefTable(), dialogPolicy: DialogAsk, dialogOpened: make(chan struct{}), crash: make(chan struct{})}
	t.page = &target{Caller: sess, tab: t, page: true, worlds: newWorldCache(), reqs: newRequestTable(), stop: func() {}}
	return t
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
	t.page = newTarget(t, t.page.Caller, true)
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
	return t.enableFetch(ctx, t.page.Call)
}

// URL is the address of the tab's page now.
func (t *Tab) URL(ctx context.Context) (string, error) {
	f, err := t.mainFrame(ctx)
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

func (t *Tab) mainFrame(ctx context.Context) (frame, error) {
	f, err := t.readMainFrame(ctx)
	if err == nil {
		t.mainID = f.ID
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
func (t *Tab) readMainFrame(ctx context.Context) (frame, error) {
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
	if err := t.page.Call(ctx, "Page.getFrameTree", nil, &res); err != nil {
		return frame{}, err
	}
	f := res.FrameTree.Frame
	return frame{ID: f.ID, LoaderID: f.LoaderID, URL: f.URL + f.Fragment}, nil
}

// mainFrameID is the id of the tab's main frame. It is read once and then
// taken from memory while the walker's world cache knows a context in that
// frame (the frame is there: a frame that went has its contexts destroyed),
// which saves Page.getFrameTree on every snapshot and action.
func (t *Tab) mainFrameID(ctx context.Context) (string, error) {
	if t.mainID != "" && t.page.worlds.has(t.mainID) {
		return t.mainID, nil
	}
	f, err := t.mainFrame(ctx)
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
