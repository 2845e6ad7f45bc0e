package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/targets"
	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

const (
	// defaultStartTimeout bounds a start whose context has no deadline.
	defaultStartTimeout = 60 * time.Second
)

// Options configure a Backend. The zero value launches a discovered browser
// with a temporary profile, headful.
type Options struct {
	// BrowserPath is the browser executable (the --browser flag); "" means
	// [Discover] it.
	BrowserPath string
	// UserDataDir is the profile directory, created if missing and kept
	// after Close. "" means a temporary profile, removed on Close.
	UserDataDir string
	// Isolated uses a fresh temporary profile, removed on Close, even when
	// UserDataDir is set.
	Isolated bool
	// Headless runs the browser without a window (--headless --disable-gpu).
	Headless bool
	// ProxyServer sends the browser's traffic through a proxy
	// (--proxy-server: "http://host:port", "socks5://host:port").
	ProxyServer string
	// ProxyBypass lists the hosts the proxy is not used for (comma- or
	// semicolon-separated; "<-loopback>" sends loopback through it too).
	ProxyBypass string
	// IgnoreHTTPSErrors lets pages with certificate errors load
	// (--ignore-certificate-errors): for test servers with their own
	// certificates, never for the web.
	IgnoreHTTPSErrors bool
	// ExtraArgs are appended to the browser's command line; a switch given
	// again here overrides the default.
	ExtraArgs []string
	// Logger receives start, crash and shutdown records; nil discards them.
	Logger *slog.Logger
	// DebuggingPort uses --remote-debugging-port and DevToolsActivePort
	// instead of the pipe: the browser listens on a free port of 127.0.0.1,
	// writes it to <profile>/DevToolsActivePort, and is reached by WebSocket.
	// It is the only way on Windows, where it is always on (Go cannot hand a
	// process extra file descriptors there).
	DebuggingPort bool
	// Env reads environment variables (WEBPILOT_BROWSER, HOME, ...); nil
	// means os.Getenv. Tests pass a fake.
	Env func(string) string
}

// Backend is a Chromium that webpilot launches and owns. It implements
// [backend.Backend]; all methods are safe for concurrent use.
type Backend struct {
	opts Options
	log  *slog.Logger

	// ctx ends when Close starts; it aborts a start in progress.
	ctx    context.Context
	cancel context.CancelFunc
	// lazy starts the browser on first use and after a crash, one start
	// at a time; Close stops it for good.
	lazy *backend.Lazy[*instance]

	closeOnce sync.Once
	closeErr  error

	// guard holds the tabs pages open until their check (GuardPopups).
	guard targets.Guard

	mu      sync.Mutex // guards the fields below
	closed  bool
	cur     *instance // the browser started last; nil before the first start
	path    string    // discovered executable
	profile string    // user data dir in use; "" before the first start
	temp    bool      // profile is a temp dir this Backend removes
}

var (
	_ backend.Backend    = (*Backend)(nil)
	_ backend.PopupGuard = (*Backend)(nil)
)

// GuardPopups sets the gate asked about each tab a page opens
// (backend.PopupGuard).
func (b *Backend) GuardPopups(gate backend.PopupGate) { b.guard.Set(gate) }

// New returns a Backend. It starts nothing: the browser starts on the first
// call that needs it, or on [Backend.Start].
func New(opts Options) *Backend {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	opts.ExtraArgs = append([]string(nil), opts.ExtraArgs...)
	if runtime.GOOS == "windows" {
		opts.DebuggingPort = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backend{
		opts:   opts,
		log:    opts.Logger.With("backend", "launch"),
		ctx:    ctx,
		cancel: cancel,
		lazy:   backend.NewLazy[*instance](),
	}
	b.lazy.Current, b.lazy.Renew, b.lazy.Closing = b.current, b.restart, ctx
	b.lazy.Waiting, b.lazy.Name = "launch: waiting for the browser to start", "launch"
	return b
}

// Start starts the browser now unless it runs already (the --prewarm flag).
// Tabs, NewTab, Activate and Attach start it on demand too, so calling Start
// is optional; CloseTab, Info and Close never start one.
func (b *Backend) Start(ctx context.Context) error {
	_, err := b.ensure(ctx)
	return err
}

// Tabs lists the open page tabs.
func (b *Backend) Tabs(ctx context.Context) ([]backend.TabInfo, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.Tabs(ctx)
}

// NewTab opens a background tab at url ("" means about:blank). The first
// blank tab asked for after a headless start is the one the browser opened
// at start (its own window, its renderer running): no window to create and
// one renderer fewer.
func (b *Backend) NewTab(ctx context.Context, url string) (backend.TabInfo, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return backend.TabInfo{}, err
	}
	br := targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}
	if url == "" || url == "about:blank" {
		if id := in.takeSpare(); id != "" {
			res, err := cdproto.Call(ctx, in.conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(id)})
			if err == nil && res.TargetInfo != nil && targets.IsTab(res.TargetInfo) && res.TargetInfo.URL == "about:blank" {
				// Attached it is (HoldNewTabs attaches the pages open at
				// start), and still the spare: takeSpare hands it out once.
				return targets.ToTab(res.TargetInfo), nil
			}
		}
	}
	return br.NewTab(ctx, url)
}

// CloseTab closes the tab and waits (briefly) until the browser reports it
// gone. An unknown id is an error matching [backend.ErrTabNotFound].
//
// Closing is cleanup, so it never starts a browser: with none running (not
// started yet, or exited since), every tab is gone already, and the error
// matches [backend.ErrTabNotFound], which callers take as done.
func (b *Backend) CloseTab(ctx context.Context, id string) error {
	in, err := b.current()
	if err != nil {
		return err
	}
	if in == nil {
		return fmt.Errorf("launch: close tab %s: no browser is running: %w", id, backend.ErrTabNotFound)
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.CloseTab(ctx, id, nil)
}

// Activate brings the tab to the front.
func (b *Backend) Activate(ctx context.Context, id string) error {
	in, err := b.ensure(ctx)
	if err != nil {
		return err
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.Activate(ctx, id)
}

// UserTabs implements backend.Binder: the page targets, less the blank
// tab the browser opened at start (webpilot's spare).
func (b *Backend) UserTabs(ctx context.Context) ([]backend.TabInfo, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	tabs, err := targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.Tabs(ctx)
	if err != nil {
		return nil, err
	}
	spare := in.peekSpare()
	out := tabs[:0]
	for _, t := range tabs {
		if t.ID != spare {
			out = append(out, t)
		}
	}
	return out, nil
}

// Bind implements backend.Binder: Attach.
func (b *Backend) Bind(ctx context.Context, id string) (cdp.Caller, error) { return b.Attach(ctx, id) }

// Release implements backend.Binder: it detaches the session.
func (b *Backend) Release(ctx context.Context, id string, c cdp.Caller) error {
	in, err := b.current()
	if err != nil || in == nil {
		return err
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.Release(ctx, id, c)
}

// NewContext makes an empty browser context (backend.Contexts).
func (b *Backend) NewContext(ctx context.Context) (string, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return "", err
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.NewContext(ctx)
}

// NewTabIn opens a background tab in a browser context.
func (b *Backend) NewTabIn(ctx context.Context, contextID, url string) (backend.TabInfo, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return backend.TabInfo{}, err
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.NewTabIn(ctx, contextID, url)
}

// CloseContext closes a browser context and its tabs.
func (b *Backend) CloseContext(ctx context.Context, contextID string) error {
	in, err := b.ensure(ctx)
	if err != nil {
		return err
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.CloseContext(ctx, contextID)
}

// Attach attaches a new flat CDP session to the tab. The session ends when
// the tab closes, the browser exits, or the Backend closes.
func (b *Backend) Attach(ctx context.Context, id string) (cdp.Caller, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	// A new tab waits before it runs until it is released (HoldNewTabs).
	if err := b.guard.Released(ctx, id); err != nil {
		return nil, fmt.Errorf("launch: attach to tab %s: it is still held for its check: %w", id, err)
	}
	return targets.Browser{Conn: in.conn, Prefix: "launch", Log: b.log}.Attach(ctx, id)
}

// Info describes the backend and, while one runs, the browser.
func (b *Backend) Info() backend.Info {
	// Before the first start, say which browser would be launched.
	_, _ = b.browserPath()
	b.mu.Lock()
	defer b.mu.Unlock()
	info := backend.Info{
		Kind:        "launch",
		BrowserPath: b.path,
		ProfileDir:  b.profile,
		Headless:    b.opts.Headless,
		Local:       true,
	}
	if info.BrowserPath == "" {
		info.BrowserPath = b.opts.BrowserPath
	}
	if info.ProfileDir == "" && !b.opts.Isolated {
		info.ProfileDir = b.opts.UserDataDir
	}
	if in := b.cur; in != nil && !b.closed && in.running() {
		info.Running = true
		info.Version = in.version
		info.PID = in.pid
	}
	return info
}

// Close ends the browser (Browser.close, then SIGKILL to its process group),
// closes every session, and removes a temporary profile. It is idempotent;
// later calls return the first result.
func (b *Backend) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		b.cancel()
		b.lazy.Stop() // wait out a start in progress
		b.mu.Lock()
		in, dir, temp := b.cur, b.profile, b.temp
		b.cur = nil
		b.mu.Unlock()
		if in != nil {
			in.stop(true)
		}
		if temp && dir != "" {
			if err := os.RemoveAll(dir); err != nil {
				b.closeErr = fmt.Errorf("launch: removing temp profile %s: %w", dir, err)
			}
		}
	})
	return b.closeErr
}

// current returns the running browser, or nil when none runs.
func (b *Backend) current() (*instance, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("launch: %w", backend.ErrClosed)
	}
	if b.cur != nil && b.cur.running() {
		return b.cur, nil
	}
	return nil, nil
}

// ensure returns the running browser, starting it when none runs yet and
// starting a new one when the last one exited.
func (b *Backend) ensure(ctx context.Context) (*instance, error) { return b.lazy.Get(ctx) }

// restart stops the browser that exited, if any, and starts a new one
// (b.lazy's Renew, run by one caller at a time).
func (b *Backend) restart(ctx context.Context) (*instance, error) {
	b.mu.Lock()
	old := b.cur
	b.cur = nil
	b.mu.Unlock()
	if old != nil {
		b.log.Warn("browser exited; starting it again", "pid", old.pid, "reason", old.conn.Err())
		old.stop(false)
	}
	in, err := b.start(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.cur = in
	b.mu.Unlock()
	return in, nil
}

// start discovers the browser, claims the profile, launches the process and
// waits until it answers Browser.getVersion.
func (b *Backend) start(ctx context.Context) (*instance, error) {
	if !canLaunch {
		return nil, fmt.Errorf("launch: starting a browser is not supported on %s yet: %w", runtime.GOOS, backend.ErrNoBrowser)
	}
	path, err := b.browserPath()
	if err != nil {
		return nil, err
	}
	dir, err := b.profileDir()
	if err != nil {
		return nil, err
	}
	// A persistent profile is this webpilot's for the browser's life:
	// another webpilot starting on it at the same moment is told at once,
	// before either browser could take it from the other.
	var plock *filelock.Lock
	if !b.opts.Isolated {
		l, ok, err := filelock.Try(filepath.Join(dir, profileLockFile))
		if err != nil {
			return nil, fmt.Errorf("launch: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("launch: %w", profileHolder(dir))
		}
		plock = l
		writeProfileOwner(dir)
	}
	kept := false
	defer func() {
		if !kept && plock != nil {
			plock.Release()
		}
	}()
	host, _ := os.Hostname()
	removed, err := claimProfile(dir, host, pidAlive)
	if err != nil {
		return nil, err
	}
	if removed {
		b.log.Info("removed stale profile lock", "profile", dir)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(b.ctx, cancel)()
	if _, ok := ctx.Deadline(); !ok {
		var cancelT context.CancelFunc
		ctx, cancelT = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancelT()
	}

	if b.opts.DebuggingPort {
		// A file left by an earlier browser would send us to its dead port.
		if err := os.Remove(filepath.Join(dir, activePortFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("launch: removing stale %s: %w", filepath.Join(dir, activePortFile), err)
		}
	}

	began := time.Now()
	in, err := spawn(path, dir, browserArgs(b.opts, dir, os.Geteuid() == 0), b.log, b.opts.DebuggingPort)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", &backend.StartError{Path: path, Reason: err.Error(), Err: err})
	}
	if b.opts.DebuggingPort {
		err = in.dialPort(ctx)
	}
	var ver cdpbrowser.GetVersionResult
	if err == nil {
		ver, err = cdproto.Call(ctx, in.conn.Browser(), cdpbrowser.GetVersion, cdproto.Empty{})
	}
	if err == nil {
		sess := in.conn.Browser()
		in.version = ver.Product
		// Discovery on: CloseTab waits for Target.targetDestroyed, which the
		// browser sends only then.
		_, err = cdproto.Call(ctx, sess, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true})
	}
	if err == nil && b.opts.Headless {
		in.spare = initialTab(ctx, in.conn.Browser())
	}
	if err == nil {
		// Every new page waits for its check before it runs (popups).
		// After initialTab: the auto-attach attaches the pages open now.
		err = targets.HoldNewTabs(ctx, in.conn, &b.guard, b.log)
	}
	if err != nil {
		return nil, b.startFailed(ctx, in, path, err)
	}
	b.log.Info("browser started", "path", path, "pid", in.pid, "version", in.version,
		"profile", dir, "headless", b.opts.Headless, "took", time.Since(began).Round(time.Millisecond))
	in.plock, kept = plock, true
	return in, nil
}

// profileLockFile, in a persistent profile, is locked by the webpilot
// whose browser uses the profile; profileOwnerFile says which webpilot.
const (
	profileLockFile  = "webpilot.lock"
	profileOwnerFile = "webpilot-owner.json"
)

// writeProfileOwner records this webpilot (pid, command line) as the
// profile's user, for the message another one gets.
func writeProfileOwner(dir string) {
	b, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "args": os.Args})
	_ = os.WriteFile(filepath.Join(dir, profileOwnerFile), b, 0o600)
}

// profileHolder is the error of a profile another webpilot holds, naming it
// as its owner file says.
func profileHolder(dir string) error {
	var o struct {
		PID  int      `json:"pid"`
		Args []string `json:"args"`
	}
	holder := "one that is starting its browser on it now"
	// The owner writes its file right after it takes the lock.
	for i := 0; i < 10; i++ {
		if b, err := os.ReadFile(filepath.Join(dir, profileOwnerFile)); err == nil && json.Unmarshal(b, &o) == nil && o.PID > 0 && (pidAlive(o.PID) || runtime.GOOS == "windows") {
			break
		}
		o.PID = 0
		time.Sleep(20 * time.Millisecond)
	}
	if o.PID > 0 {
		how := "webpilot"
		if len(o.Args) > 1 {
			how += " " + strings.Join(o.Args[1:], " ")
		}
		if len(how) > 120 {
			how = how[:120] + "…"
		}
		holder = fmt.Sprintf("%s (pid %d)", how, o.PID)
	}
	return &backend.ProfileLockedError{Dir: dir, Holder: holder}
}

// initialTab returns the id of the one blank tab a browser just started
// shows, or "". Only headless: with a window, that tab's window keeps the
// browser running when the agent closes its tabs.
func initialTab(ctx context.Context, sess *cdp.Session) string {
	res, err := cdproto.Call(ctx, sess, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return ""
	}
	id := ""
	for _, ti := range res.TargetInfos {
		if !targets.IsTab(ti) {
			continue
		}
		if id != "" || ti.URL != "about:blank" || ti.Attached {
			return ""
		}
		id = string(ti.TargetID)
	}
	return id
}

// startFailed stops a browser that did not come up and explains why: how it
// exited, or that it did not answer in time, and the end of its stderr.
func (b *Backend) startFailed(ctx context.Context, in *instance, path string, err error) error {
	exited := !in.running() || errors.Is(err, cdp.ErrClosed)
	in.stop(false)
	stderr := in.stderr.String()
	if strings.Contains(stderr, "Opening in existing browser session") || strings.Contains(stderr, "Failed to create a ProcessSingleton") {
		// Another browser took the profile while this one started: name
		// it, and the webpilot that runs it, when the lock says.
		if owner, ok := readLock(in.profile); ok && owner.pid != in.pid {
			return fmt.Errorf("launch: %w", &backend.ProfileLockedError{Dir: in.profile, PID: owner.pid, Holder: lockHolder(owner.pid)})
		}
		return fmt.Errorf("launch: profile %s is in use by another browser, which took over the start: use --isolated or another --user-data-dir: %w",
			in.profile, backend.ErrProfileLocked)
	}
	if b.ctx.Err() != nil {
		return fmt.Errorf("launch: start %s: %w", path, backend.ErrClosed)
	}
	reason, hint := startReason(stderr)
	if reason == "" {
		switch {
		case exited:
			reason = "it exited before it answered (" + in.exitStatus() + ")"
		case ctx.Err() != nil:
			reason = "it did not answer within the start's time (" + ctx.Err().Error() + ")"
		default:
			reason = err.Error()
		}
	}
	return fmt.Errorf("launch: %w", &backend.StartError{Path: path, Reason: reason, Hint: hint, Output: startOutput(stderr), Err: err})
}

// browserPath returns the executable, discovering it on first use.
func (b *Backend) browserPath() (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.path != "" {
		return b.path, nil
	}
	path, err := Discover(b.opts.BrowserPath, SystemProbe(b.opts.Env))
	if err != nil {
		return "", err
	}
	b.path = path
	return path, nil
}

// profileDir returns the user data dir, creating it on first use. A temporary
// profile lives until Close, across browser restarts.
func (b *Backend) profileDir() (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.profile != "" {
		return b.profile, nil
	}
	if !b.opts.Isolated && b.opts.UserDataDir != "" {
		dir, err := filepath.Abs(b.opts.UserDataDir)
		if err != nil {
			return "", fmt.Errorf("launch: profile %s: %w", b.opts.UserDataDir, err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("launch: creating profile %s: %w", dir, err)
		}
		b.profile = dir
		return dir, nil
	}
	dir, err := os.MkdirTemp("", "webpilot-profile-")
	if err != nil {
		return "", fmt.Errorf("launch: creating temp profile: %w", err)
	}
	b.profile, b.temp = dir, true
	return dir, nil
}

// Args is the command line after the executable that a Backend with opts
// starts its browser with, on profile dir (as the current user). Benchmarks
// use it to time a bare launch with the same flags.
func Args(opts Options, dir string) []string {
	return browserArgs(opts, dir, os.Geteuid() == 0)
}

// disabledFeatures are the Chromium features every launch turns off (see
// browserArgs).
const disabledFeatures = "WebUIOmniboxPopup,WebUIOmniboxAimPopup,BackForwardCache,SpareRendererForSitePerProcess"

// inProcessFeatures are the Chromium features a launch without the sandbox
// turns on: the network service in the browser process.
const inProcessFeatures = "NetworkServiceInProcess2"

// browserArgs is the browser's command line after the executable.
func browserArgs(opts Options, dir string, root bool) []string {
	args := []string{"--remote-debugging-pipe"}
	if opts.DebuggingPort {
		args = []string{"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"}
	}
	args = append(args,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-quic",
		"--disable-dev-shm-usage",
		"--password-store=basic",
		"--use-mock-keychain",
		// The omnibox's WebUI popups (chrome://omnibox-popup.top-chrome,
		// plain and AI mode) are preloaded into a renderer of their own at
		// start, ~35-45 MB PSS that an agent never uses; without them the
		// omnibox uses its native popup. The back/forward cache keeps every
		// page left behind alive (a whole renderer after a cross-site
		// navigation); an agent going back loads the page again, as under
		// Playwright. The spare renderer, started ahead for the next site,
		// is a renderer more all the time (~7 MB of the peak). Measured
		// in docs/bench.md.
		"--disable-features="+disabledFeatures,
		// Not --disable-crashpad-for-testing, although the crashpad handler
		// leaves the process group: with it Chromium 156 loads no page
		// (Page.navigate hangs or ends in net::ERR_ABORTED).
		"--user-data-dir="+dir,
		"--window-size=1280,800",
	)
	if opts.Headless {
		args = append(args, "--headless", "--disable-gpu")
	}
	if root {
		// Chromium refuses to run as root with its sandbox on.
		args = append(args, "--no-sandbox")
	}
	if root || slices.Contains(opts.ExtraArgs, "--no-sandbox") {
		// With the sandbox already off, a helper process isolates nothing
		// but crashes, and each costs its own copy of Chromium's relocated
		// data and start-up pages: the network service runs in the browser
		// process (its utility process is gone) and, headless, so does the
		// software compositor (no GPU process), which leaves the unsandboxed
		// zygote with nothing to start. ~34 MB of the peak. Not with the
		// sandbox on: that would take sandboxed code into the browser.
		args = append(args, "--enable-features="+inProcessFeatures)
		if opts.Headless {
			args = append(args, "--in-process-gpu", "--no-unsandboxed-zygote")
		}
	}
	if opts.ProxyServer != "" {
		args = append(args, "--proxy-server="+opts.ProxyServer)
		if opts.ProxyBypass != "" {
			args = append(args, "--proxy-bypass-list="+strings.ReplaceAll(opts.ProxyBypass, ",", ";"))
		}
	}
	if opts.IgnoreHTTPSErrors {
		args = append(args, "--ignore-certificate-errors")
	}
	args = append(args, opts.ExtraArgs...)
	return append(args, "about:blank")
}

// BrowserSession returns the browser-level CDP session (no target), starting
// the browser if needed. It reaches what no tab session can: other targets
// such as an extension's service worker, which the bridge tests use to
// provision the extension the way its popup would.
func (b *Backend) BrowserSession(ctx context.Context) (*cdp.Session, error) {
	in, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return in.conn.Browser(), nil
}
