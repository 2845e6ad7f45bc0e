// Package backend defines the seam between webpilot's browser logic and the
// thing that provides a browser: a Chromium that webpilot launches, the user's
// Chrome reached through the extension bridge, or a remote CDP endpoint.
//
// A Backend lists, opens and closes tabs and produces typed CDP sessions (one
// per tab); it knows nothing of refs, snapshots, agent sessions or MCP. Package backendtest holds
// the suite every implementation must pass and an in-memory fake.
//
// # Contract
//
// All methods are safe for concurrent use. Methods that need a running browser
// start it on first use (lazy start) and return an error matching
// [ErrNoBrowser] when none can be found or started. Tabs is the authority on
// which tabs are open; a caller attached to a tab learns that it closed from
// its session ending (cdp.Caller's Done). Close ends the browser (when the
// backend owns it) and closes every session handed out.
package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// Sentinel errors that callers branch on with errors.Is.
var (
	// ErrNoBrowser means no browser could be found or started.
	ErrNoBrowser = errors.New("backend: no browser")
	// ErrTabNotFound means the tab id names no open tab.
	ErrTabNotFound = errors.New("backend: tab not found")
	// ErrUnreachable means a browser endpoint (--cdp-endpoint) did not
	// answer; it matches ErrNoBrowser too.
	ErrUnreachable = fmt.Errorf("%w: endpoint unreachable", ErrNoBrowser)
	// ErrProfileLocked means another browser holds the profile directory.
	ErrProfileLocked = errors.New("backend: profile in use")
	// ErrClosed means the backend was closed.
	ErrClosed = errors.New("backend: closed")
	// ErrBridgeDisconnected means the extension is paired but not connected.
	ErrBridgeDisconnected = errors.New("backend: browser extension not connected")
	// ErrBridgeVersion means the extension and this binary speak different
	// bridge protocols.
	ErrBridgeVersion = errors.New("backend: extension protocol version mismatch")
	// ErrAmbiguousProfile means several browser profiles are connected
	// (the bridge) and the call did not say which one it is for; the error
	// is a *ProfileError listing them.
	ErrAmbiguousProfile = errors.New("backend: several browser profiles connected")
)

// Profile names one browser profile connected to a backend that serves
// several (the bridge: one Chrome or Edge profile with the extension).
type Profile struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Browser string `json:"browser,omitempty"` // user agent product, e.g. Chrome/156.0
}

// ProfileError is a call a backend could not place on one browser profile:
// several are connected and none was named (Err is ErrAmbiguousProfile), or
// the one named is not connected (Err is ErrBridgeDisconnected). Profiles
// are the ones connected.
type ProfileError struct {
	Selector string
	Profiles []Profile
	Err      error
	Detail   string // the message
}

func (e *ProfileError) Error() string { return e.Detail }

// Unwrap returns Err.
func (e *ProfileError) Unwrap() error { return e.Err }

// ProfileLockedError is a profile directory that another live browser on
// this host holds (Unwrap: ErrProfileLocked). Holder, when the browser is
// one a webpilot started, describes that webpilot ("webpilot serve --daemon,
// pid 123"); it is "" for any other browser.
type ProfileLockedError struct {
	Dir    string
	PID    int // the browser's (0: not known, the webpilot holds the profile)
	Holder string
}

func (e *ProfileLockedError) Error() string {
	if e.Holder != "" && e.PID == 0 {
		return fmt.Sprintf("profile %s is in use by another webpilot, %s: use that webpilot, stop it, or use --isolated", e.Dir, e.Holder)
	}
	if e.Holder != "" {
		return fmt.Sprintf("profile %s is in use by the browser (pid %d) of another webpilot, %s: use that webpilot, stop it, or use --isolated", e.Dir, e.PID, e.Holder)
	}
	return fmt.Sprintf("profile %s is in use by another browser (pid %d): use --isolated or another --user-data-dir", e.Dir, e.PID)
}

// Unwrap returns ErrProfileLocked.
func (e *ProfileLockedError) Unwrap() error { return ErrProfileLocked }

// TabInfo describes one open tab.
type TabInfo struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Opener string `json:"opener,omitempty"` // id of the tab that opened this one
	// Active marks the tab the user is looking at (Binder.UserTabs: the
	// active tab of the last-focused normal window), when the backend knows.
	Active bool `json:"active,omitempty"`
}

// Info describes a backend and the browser behind it.
type Info struct {
	Kind        string `json:"kind"`                   // launch, bridge, endpoint, fake
	Running     bool   `json:"running"`                // a browser is connected now
	BrowserPath string `json:"browser_path,omitempty"` // executable (launch)
	Version     string `json:"version,omitempty"`      // product, e.g. Chrome/156.0.8078.114
	ProfileDir  string `json:"profile_dir,omitempty"`  // user data dir (launch)
	Headless    bool   `json:"headless"`
	// Local: the browser runs on this machine, so a directory webpilot
	// names is one the browser can write (launch; an endpoint on loopback).
	Local bool `json:"local,omitempty"`
	PID   int  `json:"pid,omitempty"` // browser process (launch)
	// Bridge only: pairing state, protocol, extension version and the Chrome
	// profile connected.
	Paired         bool   `json:"paired,omitempty"`
	Protocol       int    `json:"protocol,omitempty"`
	Extension      string `json:"extension,omitempty"`
	BrowserProfile string `json:"browser_profile,omitempty"`
	// Profiles are the browser profiles connected now (bridge);
	// BrowserProfile names the only one.
	Profiles []Profile `json:"profiles,omitempty"`
}

// Backend is what every browser provider implements. See the package doc for
// the concurrency contract.
type Backend interface {
	// Tabs lists the open page tabs.
	Tabs(ctx context.Context) ([]TabInfo, error)
	// NewTab opens a tab at url ("" means about:blank) without focusing it.
	NewTab(ctx context.Context, url string) (TabInfo, error)
	// CloseTab closes the tab.
	CloseTab(ctx context.Context, id string) error
	// Activate brings the tab to the front.
	Activate(ctx context.Context, id string) error
	// Attach returns a CDP session for the tab. Each call attaches anew; the
	// session ends when the tab closes or the backend closes.
	Attach(ctx context.Context, id string) (cdp.Caller, error)
	// Info describes the backend now.
	Info() Info
	// Close releases the browser and everything handed out.
	Close() error
}

// Scope is whom a call of a scoped backend (Scoper) is for.
type Scope struct {
	// Session is the agent session's name as shown: the bridge groups its
	// tabs as "webpilot · <session>", and its extension's popup lists
	// bound tabs under their session.
	Session string
	// Profile is the browser profile the call goes to, for a backend that
	// serves several (the bridge): a profile's name, its id or a unique
	// prefix of the id; "" means the only one connected.
	Profile string
	// Used, when set, is told the id of the profile each call ran on (a
	// session pins itself to the first). It may be called from several
	// goroutines.
	Used func(id string)
}

// Scoper is implemented by a backend whose calls depend on whom they are
// for (the bridge). For returns the backend as one agent session sees it:
// scope is read at each call. The backend it returns implements the
// optional interfaces the Scoper does, and its Close leaves the Scoper
// open.
type Scoper interface {
	For(scope func() Scope) Backend
}

// Contexts is implemented by a backend that can open tabs in browser
// contexts of their own, each with its own cookies and storage (launch and
// endpoint; an extension cannot make them).
type Contexts interface {
	// NewContext makes an empty browser context and returns its id.
	NewContext(ctx context.Context) (string, error)
	// NewTabIn opens a background tab at url in the context.
	NewTabIn(ctx context.Context, contextID, url string) (TabInfo, error)
	// CloseContext closes the context and every tab in it.
	CloseContext(ctx context.Context, contextID string) error
}

// Binder is implemented by a backend that can hand a session a tab the user
// opened (browser_tabs bind): it lists such tabs, attaches to one only when
// asked, and lets it go again without closing it.
type Binder interface {
	// UserTabs lists the page tabs webpilot did not open: on the bridge the
	// tabs of the user's normal windows outside the agent window; on
	// launch and endpoint the page targets another client opened. Tabs
	// some session already holds may be listed too: the caller filters.
	UserTabs(ctx context.Context) ([]TabInfo, error)
	// Bind attaches to a user tab, as Attach does for the session's own.
	Bind(ctx context.Context, id string) (cdp.Caller, error)
	// Release detaches c, the session of a bound tab, and leaves the tab
	// open as it is.
	Release(ctx context.Context, id string, c cdp.Caller) error
}

// PopupGuard is implemented by a backend that holds every tab a page opens
// (a popup, a target=_blank link) before it sends its first request, so
// that webpilot's origin rules apply to that tab's very first load (launch
// and endpoint: Target.setAutoAttach with waitForDebuggerOnStart on the
// browser). The bridge's extension keeps a refused popup from loading on
// its own.
type PopupGuard interface {
	// GuardPopups sets the gate asked about the tabs pages open from now
	// on; nil lets every one load.
	GuardPopups(gate PopupGate)
}

// PopupGate is asked, when the tab with id opener opens a new tab, for the
// check of that tab's document loads: nil lets them all go (the opener is
// not a tab webpilot's rules govern).
type PopupGate func(opener string) PopupCheck

// PopupCheck says whether a held tab may load the document at url: main is
// its own document (a refusal closes the tab before the request is sent),
// else a frame's (that load fails). It is called from the backend's event
// goroutines and must not block.
type PopupCheck func(url string, main bool) error

// Handoff is implemented by a backend that can ask the person at the
// browser to take over a tab and tell when they are done (the bridge: the
// extension's badge, notification and popup with a Done button).
type Handoff interface {
	// StartHandoff brings the tab to the front and shows the user message.
	// The returned channel is closed when the user says they are done.
	StartHandoff(ctx context.Context, tab, message string) (done <-chan struct{}, err error)
	// EndHandoff takes the notice away (the wait ended without the user's
	// Done: the condition held, or time ran out).
	EndHandoff(ctx context.Context, tab string) error
}

// RecordingNotice is implemented by a backend that can show the person at
// the browser that a tab is being recorded, with a Stop button (the
// bridge: the extension's badge, notification and popup entry).
type RecordingNotice interface {
	// StartRecordingNotice brings the tab to the front and shows that it
	// records, with the message. The channel is closed when the user
	// presses Stop.
	StartRecordingNotice(ctx context.Context, tab, message string) (stop <-chan struct{}, err error)
	// EndRecordingNotice takes the notice away.
	EndRecordingNotice(ctx context.Context, tab string) error
}

// DownloadFinder is implemented by a backend whose browser runs on this
// machine but saves downloads where its user set it to (the bridge: the
// user's Chrome and its download folder). It says where a download that a
// tab began was saved, so that webpilot can copy it into its output
// directory; the file itself is never moved or deleted.
type DownloadFinder interface {
	// FindDownload waits (bounded by ctx) for the download with that CDP
	// guid (Page.downloadWillBegin) of the tab to end and describes it.
	FindDownload(ctx context.Context, tab, guid string) (DownloadFile, error)
}

// DownloadFile is a download as the browser keeps it.
type DownloadFile struct {
	Path     string // absolute path of the file on this machine
	MIMEType string
	Bytes    int64
	// State is complete, interrupted or in_progress (still running when
	// the wait ended).
	State string
	// Error is why an interrupted download stopped (Chrome's reason, e.g.
	// USER_CANCELED); Danger is set while Chrome holds a dangerous file for
	// its user to accept.
	Error  string
	Danger string
}

// Approver is implemented by a backend whose browser is the person's own
// (the bridge: their everyday Chrome). It asks them whether a client may
// use a site, and remembers what they answered (allow once, always, deny).
type Approver interface {
	// Approve answers at once when the person's answer is known (a rule
	// of theirs, or this session's "once"), else asks them and waits for
	// the answer (bounded by ctx; it tells a backend.WaitReport of ctx how
	// long it has waited). A bind always asks.
	Approve(ctx context.Context, q Approval) (Answer, error)
	// Approvals lists the person's remembered answers (rules), for status
	// output; nil when none are known.
	Approvals(ctx context.Context) ([]ApprovalRule, error)
}

// Approval is one question to the person: may Client, in its agent session
// Session, use Site (the page URL) in their browser?
type Approval struct {
	Client  string `json:"client"`  // the client's name, as it gave it ("Claude Code")
	Session string `json:"session"` // the agent session, as the browser shows it
	Site    string `json:"site"`    // the URL's registrable domain (origin.Site)
	URL     string `json:"url"`
	// Tab is the tab (a bind's, or the one the call works in); "" for a
	// tab not open yet.
	Tab string `json:"tab,omitempty"`
	// Bind: the client asks for one of the person's own tabs; always asked.
	Bind  bool   `json:"bind,omitempty"`
	Title string `json:"title,omitempty"` // the tab's title, for a bind
}

// Answer is the person's answer to an Approval.
type Answer string

// The answers: allowed for this session (until it ends or the person
// revokes it), allowed for the client on the site from now on (a rule),
// denied (a rule too; a bind's denial is not remembered).
const (
	AllowOnce   Answer = "once"
	AllowAlways Answer = "always"
	Deny        Answer = "deny"
)

// ApprovalRule is a remembered answer: Client on Site, always or deny.
type ApprovalRule struct {
	Client  string `json:"client"`
	Site    string `json:"site"`
	Answer  Answer `json:"answer"`
	Profile string `json:"profile,omitempty"` // the browser profile that keeps it
}

// LiveView is implemented by a backend whose browser shows the person what
// the agents do (the bridge: the extension's popup), with a Pause and a
// Stop per client.
type LiveView interface {
	// ShowLive sends the person the record of the clients now; the last
	// one sent is shown again to a browser that connects later.
	ShowLive(ctx context.Context, clients []LiveClient) error
	// OnControl sets what is told when the person presses Pause, Resume
	// or Stop for a client (the client's ID). It runs on the backend's
	// reader and must not block.
	OnControl(f func(client string, action Control))
}

// Control is what the person asked of a client in the live view.
type Control string

// The controls: its calls wait; they run again; its calls fail with
// STOPPED_BY_USER and its tabs close.
const (
	Pause  Control = "pause"
	Resume Control = "resume"
	Stop   Control = "stop"
)

// LiveClient is one connected MCP client as the live view shows it.
type LiveClient struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	State    string        `json:"state"` // running, paused, stopped
	Calls    int           `json:"calls"`
	Last     string        `json:"last,omitempty"` // its last action, one line
	LastAt   int64         `json:"lastAt,omitempty"`
	Sessions []LiveSession `json:"sessions"`
}

// LiveSession is one agent session of a live client: its name, the name
// its tabs' group has in the browser ("webpilot · <Group>"), by which the
// browser shows its tabs, and the page it works on.
type LiveSession struct {
	Name  string `json:"name"`
	Group string `json:"group,omitempty"`
	// URL is the page of the tab its last call worked in.
	URL string `json:"url,omitempty"`
}
