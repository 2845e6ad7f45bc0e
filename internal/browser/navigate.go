package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// hostPort matches a bare "host:port" start, which url.Parse reads as a
// scheme.
var hostPort = regexp.MustCompile(`^[A-Za-z0-9.-]+:\d+([/?#]|$)`)

// NavResult is where a navigation ended.
type NavResult struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Status int    `json:"status,omitempty"` // HTTP status of the document; 0 when none (about:, data:, history)
}

// NormalizeURL turns what an agent typed into a URL the browser may open, or
// explains why not. A bare host gets https:// (http:// for localhost and
// loopback addresses).
func (m *Manager) NormalizeURL(raw string) (string, error) { return m.policy.NormalizeURL(raw) }

// NormalizeURL is Manager.NormalizeURL under policy p.
func (p *Policy) NormalizeURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", &Error{Code: CodeInvalidArgument, Message: "url is empty", Hint: `pass an absolute URL such as "https://example.com"`}
	}
	u, err := url.Parse(raw)
	if strings.Contains(raw, "://") && (err != nil || u.Host == "" && (u.Scheme == "http" || u.Scheme == "https")) {
		return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a valid URL", raw), Hint: `pass an absolute URL such as "https://example.com"`}
	}
	if err != nil || u.Scheme == "" || hostPort.MatchString(raw) {
		// "example.com/path" or "localhost:8080": add a scheme.
		host := raw
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		scheme := "https://"
		h := host
		if i := strings.LastIndex(h, ":"); i >= 0 {
			h = h[:i]
		}
		if h == "localhost" || strings.HasPrefix(h, "127.") || h == "[::1]" {
			scheme = "http://"
		}
		if u2, err2 := url.Parse(scheme + raw); err2 == nil && u2.Host != "" && !strings.ContainsAny(host, " \t") {
			u = u2
		} else {
			return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%q is not a URL", raw), Hint: `pass an absolute URL such as "https://example.com"`}
		}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "about", "data":
	case "javascript":
		return "", &Error{Code: CodeInvalidArgument, Message: "javascript: URLs are refused",
			Hint: "navigate to a page URL; to run code in the page use browser_eval when it is available"}
	case "file":
		if !p.fileAllowed() {
			return "", &Error{Code: CodeInvalidArgument, Message: "file: URLs are refused",
				Hint: `serve the file over http, or start webpilot with --allowed-origins "file://" to allow local files`}
		}
	default:
		return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: URLs are refused", u.Scheme),
			Hint: "webpilot opens http, https, about and data URLs"}
	}
	if err := p.checkOrigin(u); err != nil {
		return "", err
	}
	return u.String(), nil
}

func (p *Policy) fileAllowed() bool {
	if p.opts.AllowFileURLs {
		return true
	}
	for _, r := range p.allowed {
		if r.IsFile() {
			return true
		}
	}
	return false
}

// checkOrigin applies --allowed-origins and --blocked-origins (see
// OriginRule for what a rule may be).
func (p *Policy) checkOrigin(u *url.URL) error {
	if e := p.originPolicy(u); e != nil {
		return e
	}
	return nil
}

// originPolicy is checkOrigin with a typed result, for the tab watcher: it
// judges http(s) URLs by their host, blob: URLs by their inner URL, data:
// URLs by a "data:" rule (refused under --allowed-origins without one) and
// file: URLs by a "file://" rule. about: URLs always pass.
func (p *Policy) originPolicy(u *url.URL) *Error {
	u = policyURL(u)
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https", "data", "file":
	default:
		return nil
	}
	what := u.Host
	if scheme == "data" || scheme == "file" {
		what = scheme + ": URLs are"
	} else {
		what += " is"
	}
	for _, r := range p.blocked {
		if r.Matches(u) {
			return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("%s blocked by --blocked-origins (%s)", what, r),
				Hint: "this origin may not be opened in this configuration"}
		}
	}
	if len(p.allowed) == 0 || scheme == "file" && p.opts.AllowFileURLs {
		return nil
	}
	for _, r := range p.allowed {
		if r.Matches(u) {
			return nil
		}
	}
	hint, msg := "only these origins may be opened", fmt.Sprintf("%s not in --allowed-origins", what)
	if scheme == "data" {
		hint = `data: pages run script; add "data:" to --allowed-origins to allow them`
		msg = "data: URLs are not allowed by --allowed-origins"
	}
	return &Error{Code: CodeOriginBlocked, Message: msg, Hint: hint, Suggestions: p.opts.AllowedOrigins}
}

// navigator is a call's navigation of a tab of a held session: to a URL
// (navigate) or in its history (history), waited for until the new
// document loads and checked against the origin policy (finishNav). It
// owns no state: the navigation watch is the tab's; the session gives it
// its policy.
type navigator struct{ s *Session }

// Navigate opens url in the tab and waits for its load event, up to timeout
// (0: the navigation timeout). A client-side redirect during the load is
// followed to the document that finally loads.
func (h *Held) Navigate(ctx context.Context, rawURL string, timeout time.Duration) (NavResult, error) {
	s, t := h.s, h.t
	defer t.stopIfCancelled(ctx)
	return untilAnswered(ctx, t, func(ctx context.Context) (NavResult, error) { return navigator{s}.navigate(ctx, t, rawURL, timeout) })
}

// stopIfCancelled stops the tab's loading when the call was cancelled (the
// client sent notifications/cancelled): a navigation it started must not go
// on, and hold the tab, after the call is over.
func (t *Tab) stopIfCancelled(ctx context.Context) {
	if !errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
	defer cancel()
	if _, err := cdproto.Call(sctx, t.page, page.StopLoading, cdproto.Empty{}); err != nil {
		t.log.Debug("stop loading after a cancel", "err", err)
	}
}

func (nv navigator) navigate(ctx context.Context, t *Tab, rawURL string, timeout time.Duration) (NavResult, error) {
	s := nv.s
	u, err := s.pol.NormalizeURL(rawURL)
	if err != nil {
		return NavResult{}, err
	}
	if err := s.approve(ctx, t.TargetID(), u, "", false); err != nil {
		return NavResult{}, err // the person's answer comes before the navigation's own time
	}
	ctx, cancel := context.WithTimeout(ctx, or(timeout, s.pol.opts.NavTimeout))
	defer cancel()
	t.view.cache, t.view.prewalk, t.view.waitHuman = nil, nil, nil

	w := t.watchNavigation()
	defer w.stop()
	res, err := cdproto.Call(ctx, t.page, page.Navigate, page.NavigateParams{URL: u})
	if err != nil {
		var ce *cdp.Error
		errors.As(err, &ce)
		switch cdp.Classify(err) {
		case cdp.FaultInvalid:
			return NavResult{}, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("the browser refused the URL %s: %s", u, ce.Message),
				Hint: "check the URL: host, port and escaping", Err: err}
		case cdp.FaultUnsupported:
			return NavResult{}, &Error{Code: CodeNavigationFailed, Message: fmt.Sprintf("could not open %s: %s", u, ce.Message),
				Hint:      "this backend cannot open such a URL; serve the content over http, or use another backend (--backend launch)",
				Diagnosis: map[string]any{"kind": "unsupported", "url": u}, Err: err}
		}
		return NavResult{}, backendError("navigate", err)
	}
	if res.ErrorText != "" {
		if blocked := t.notes.lastBlocked(); blocked != "" {
			return NavResult{}, blockedError(blocked)
		}
		return NavResult{}, navError(u, res.ErrorText)
	}
	t.crash.reloaded() // (a crashed page's tab has a new one now)
	loaderID := string(res.LoaderID)
	if loaderID != "" {
		loaderID, err = w.waitLoad(ctx, string(res.FrameID), loaderID)
		if err != nil {
			if blocked := t.notes.lastBlocked(); blocked != "" {
				return NavResult{}, blockedError(blocked)
			}
			return NavResult{}, loadWaitError(u, err)
		}
	}
	return nv.finishNav(ctx, t, w, loaderID)
}

// blockedError reports a load the origin policy refused.
func blockedError(blocked string) *Error {
	return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("the page tried to load %s, which the origin policy refuses", blocked),
		Hint: "this configuration does not allow that origin (--allowed-origins / --blocked-origins)"}
}

// History goes back, forward or reloads, and waits for the main frame's new
// document to load (or to be restored from the back/forward cache).
func (h *Held) History(ctx context.Context, dir string, timeout time.Duration) (NavResult, error) {
	s, t := h.s, h.t
	defer t.stopIfCancelled(ctx)
	return untilAnswered(ctx, t, func(ctx context.Context) (NavResult, error) { return navigator{s}.history(ctx, t, dir, timeout) })
}

func (nv navigator) history(ctx context.Context, t *Tab, dir string, timeout time.Duration) (NavResult, error) {
	s := nv.s
	ctx, cancel := context.WithTimeout(ctx, or(timeout, s.pol.opts.NavTimeout))
	defer cancel()
	t.view.cache, t.view.prewalk, t.view.waitHuman = nil, nil, nil
	before, err := t.page.mainFrame(ctx)
	if err != nil {
		return NavResult{}, backendError("read the page", err)
	}
	w := t.watchNavigation()
	defer w.stop()
	switch dir {
	case "reload":
		if _, err := cdproto.Call(ctx, t.page, page.Reload, page.ReloadParams{}); err != nil {
			return NavResult{}, backendError("reload", err)
		}
	case "back", "forward":
		h, err := cdproto.Call(ctx, t.page, page.GetNavigationHistory, cdproto.Empty{})
		if err != nil {
			return NavResult{}, backendError("read history", err)
		}
		i := int(h.CurrentIndex) - 1
		if dir == "forward" {
			i = int(h.CurrentIndex) + 1
		}
		if i < 0 || i >= len(h.Entries) {
			return NavResult{}, &Error{Code: CodeNavigationFailed, Message: fmt.Sprintf("there is no page to go %s to", dir),
				Hint: "navigate with url instead", Diagnosis: map[string]any{"kind": "no_history", "history_length": len(h.Entries)}}
		}
		if _, err := cdproto.Call(ctx, t.page, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			return NavResult{}, backendError("go "+dir, err)
		}
	default:
		return NavResult{}, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("go must be back, forward or reload, not %q", dir)}
	}
	loaderID, err := w.waitMainLoad(ctx, before.ID, before.LoaderID)
	if err != nil {
		if blocked := t.notes.lastBlocked(); blocked != "" {
			return NavResult{}, blockedError(blocked)
		}
		return NavResult{}, loadWaitError(dir, err)
	}
	return nv.finishNav(ctx, t, w, loaderID)
}

func (nv navigator) finishNav(ctx context.Context, t *Tab, w *navWatch, loaderID string) (NavResult, error) {
	s := nv.s
	href, title, err := t.location(ctx)
	if err != nil {
		return NavResult{}, backendError("read the page location", err)
	}
	r := NavResult{URL: href, Title: title}
	if strings.HasPrefix(href, "http:") || strings.HasPrefix(href, "https:") {
		// The status is the shown document's: a navigation Chrome restarted
		// (from an error page, say) commits under another loader than the
		// one it started with.
		if fr, err := t.page.mainFrame(ctx); err == nil && fr.LoaderID != "" {
			loaderID = fr.LoaderID
		}
		r.Status = w.awaitStatus(ctx, loaderID, statusGrace)
	}
	if pu, err := url.Parse(href); err == nil {
		if oerr := s.pol.originPolicy(pu); oerr != nil {
			// Defence in depth: the tab's request filter should have
			// stopped this already.
			_, _ = cdproto.Call(ctx, t.page, page.Navigate, page.NavigateParams{URL: "about:blank"})
			return NavResult{}, oerr
		}
	}
	if r.Status >= 400 {
		return r, &Error{Code: CodeNavigationFailed, Message: fmt.Sprintf("%s answered HTTP %d", href, r.Status),
			Hint:      "the error page is loaded; browser_snapshot shows it, or navigate elsewhere",
			Diagnosis: map[string]any{"kind": "http_error", "status": r.Status, "url": href, "title": title}}
	}
	return r, nil
}

func navError(u, errText string) *Error {
	kind := "net_error"
	hint := "check the URL and that the site is reachable from this machine"
	switch {
	case strings.Contains(errText, "ERR_NAME_NOT_RESOLVED"), strings.Contains(errText, "ERR_NAME_RESOLUTION_FAILED"):
		kind, hint = "dns_error", "the host name does not resolve; check its spelling"
	case strings.Contains(errText, "ERR_CONNECTION_REFUSED"):
		kind, hint = "connection_refused", "nothing listens at that address; is the server running and the port right?"
	case strings.Contains(errText, "TIMED_OUT"):
		kind, hint = "timeout", "the server did not answer in time; retry or check the network"
	case strings.Contains(errText, "ERR_CERT"), strings.Contains(errText, "ERR_SSL"):
		kind, hint = "tls_error", "the site's certificate or TLS setup was refused (a test server with its own certificate: the user can start webpilot with --ignore-https-errors)"
	case strings.Contains(errText, "ERR_INVALID_AUTH_CREDENTIALS"), strings.Contains(errText, "ERR_PROXY_AUTH"):
		kind, hint = "auth_required", "the site (or proxy) asks for a login (HTTP authentication): the user can declare one with --http-auth NAME@origin and a secret NAME holding user:password"
	case strings.Contains(errText, "ERR_UNSAFE_PORT"):
		kind, hint = "unsafe_port", "browsers refuse this port (it belongs to another protocol); use another port"
	case strings.Contains(errText, "ERR_BLOCKED"):
		kind = "blocked"
	case strings.Contains(errText, "ERR_ABORTED"):
		kind, hint = "aborted", "the navigation was cancelled (a download, or the page navigated elsewhere)"
	}
	return &Error{Code: CodeNavigationFailed, Message: fmt.Sprintf("could not open %s: %s", u, errText), Hint: hint,
		Diagnosis: map[string]any{"kind": kind, "net_error": errText, "url": u}}
}

func loadWaitError(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Message: fmt.Sprintf("navigation to %s started but the page did not finish loading in time", what),
			Hint: "the page may still be usable: take a browser_snapshot; or raise timeout_ms", Err: err}
	}
	return backendError("wait for the page to load", err)
}

// navWatch collects the main frame's navigation events from before a
// navigation is sent until it is done, in one subscription (the browser's
// order). Each of its waits reads the kinds it looks for; events of other
// kinds read on the way wait in the backlog, in order, for the next wait.
// Documents' HTTP statuses come from the tab's loop (Tab.docStatus): a
// flood of responses cannot crowd these events out.
type navWatch struct {
	t       *Tab
	events  <-chan cdp.Event
	cancel  func()
	backlog []cdp.Event
}

// The events a navWatch follows.
const (
	navLifecycle = "Page.lifecycleEvent"
	navStarted   = "Page.frameStartedNavigating"
	navCommitted = "Page.frameNavigated"
	navStopped   = "Page.frameStoppedLoading"
	// navRequested is the renderer's word that the page (a link, a
	// submit, a script) asked a frame to navigate.
	navRequested  = "Page.frameRequestedNavigation"
	navBacklogMax = 2048
)

func (t *Tab) watchNavigation() *navWatch {
	w := &navWatch{t: t}
	w.events, w.cancel = t.page.Events(navLifecycle, navStarted, navCommitted, navStopped, navRequested, evDownloadBegin)
	return w
}

// downloadsBegun are the downloads (guids) the watch saw begin, read
// without waiting. The tab's loop records them too, but on its own
// goroutine: a navigation that ended as a download can be seen ending
// here before the loop has recorded the download (downloadList.await).
func (w *navWatch) downloadsBegun() []string {
	for drained := false; !drained; {
		select {
		case ev, ok := <-w.events:
			if !ok {
				drained = true
			} else {
				w.keep(ev, nil)
			}
		default:
			drained = true
		}
	}
	var guids []string
	for _, ev := range w.backlog {
		var e struct {
			GUID string `json:"guid"`
		}
		if ev.Method == evDownloadBegin && jsonv2.Unmarshal(ev.Params, &e) == nil && e.GUID != "" {
			guids = append(guids, e.GUID)
		}
	}
	return guids
}

func (w *navWatch) stop() { w.cancel() }

// errNavTimer ends a take whose timer fired.
var errNavTimer = errors.New("timer")

// take returns the next event of one of the kinds: from the backlog first,
// then as it comes; events of other kinds go to the backlog.
func (w *navWatch) take(ctx context.Context, timer <-chan time.Time, kinds ...string) (cdp.Event, error) {
	ev, _, err := w.takeAt(ctx, timer, kinds...)
	return ev, err
}

// takeAt is take, saying where the event was: its index in the backlog
// (the events before it there came before it), or -1 when it came after
// the whole backlog.
func (w *navWatch) takeAt(ctx context.Context, timer <-chan time.Time, kinds ...string) (cdp.Event, int, error) {
	for i, ev := range w.backlog {
		if slices.Contains(kinds, ev.Method) {
			w.backlog = slices.Delete(w.backlog, i, i+1)
			return ev, i, nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			return cdp.Event{}, 0, ctx.Err()
		case <-timer:
			return cdp.Event{}, 0, errNavTimer
		case ev, ok := <-w.events:
			if !ok {
				return cdp.Event{}, 0, errTabGone
			}
			if w.keep(ev, kinds) {
				return ev, -1, nil
			}
		}
	}
}

// keep keeps an event that is none of kinds in the backlog; it reports
// whether ev is of kinds.
func (w *navWatch) keep(ev cdp.Event, kinds []string) bool {
	if slices.Contains(kinds, ev.Method) {
		return true
	}
	if len(w.backlog) < navBacklogMax {
		w.backlog = append(w.backlog, ev)
	}
	return false
}

type lifecycleEvent struct {
	FrameID  string `json:"frameId"`
	LoaderID string `json:"loaderId"`
	Name     string `json:"name"`
}

type navigatedEvent struct {
	Frame struct {
		ID       string `json:"id"`
		ParentID string `json:"parentId"`
		LoaderID string `json:"loaderId"`
	} `json:"frame"`
	Type string `json:"type"`
}

// errTabGone is returned when the tab's session ends during a wait.
var errTabGone = fmt.Errorf("tab closed while loading: %w", cdp.ErrDetached)

// waitLoad waits for the load event of the loader in the frame, following
// the frame to a new document when a client-side redirect replaces it. It
// returns the loader that loaded.
func (w *navWatch) waitLoad(ctx context.Context, frameID, loaderID string) (string, error) {
	return w.wait(ctx, frameID, func(e lifecycleEvent) bool { return e.LoaderID == loaderID }, &loaderID, false)
}

// waitMainLoad waits for the main frame to load a document other than
// notLoader, or to be restored from the back/forward cache (which fires no
// load). It returns the loader that loaded.
func (w *navWatch) waitMainLoad(ctx context.Context, mainFrame, notLoader string) (string, error) {
	var committed string
	return w.wait(ctx, mainFrame, func(e lifecycleEvent) bool {
		return e.LoaderID != notLoader && (committed == "" || e.LoaderID == committed)
	}, &committed, false)
}

// wait runs the event loop of waitLoad, waitMainLoad and waitSettled: done
// decides on a main-frame load event; *follow tracks the loader the main
// frame committed; with endOnStop, the frame stopping to load before any
// commit ends the wait with "" (a navigation without a document).
func (w *navWatch) wait(ctx context.Context, frameID string, done func(lifecycleEvent) bool, follow *string, endOnStop bool) (string, error) {
	kinds := []string{navCommitted, navLifecycle}
	if endOnStop {
		kinds = append(kinds, navStopped)
	}
	start := *follow
	for {
		ev, err := w.take(ctx, nil, kinds...)
		if err != nil {
			return "", err
		}
		switch ev.Method {
		case navStopped:
			var e struct {
				FrameID string `json:"frameId"`
			}
			if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == frameID && *follow == start {
				return "", nil // the navigation ended without a new document
			}
		case navCommitted:
			var e navigatedEvent
			if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Frame.ParentID != "" || e.Frame.ID != frameID {
				continue
			}
			*follow = e.Frame.LoaderID
			if e.Type == "BackForwardCacheRestore" {
				return e.Frame.LoaderID, nil
			}
		case navLifecycle:
			var e lifecycleEvent
			if jsonv2.Unmarshal(ev.Params, &e) == nil && e.Name == "load" && e.FrameID == frameID && done(e) {
				return e.LoaderID, nil
			}
		}
	}
}

// statusGrace is how long the document's response may trail its load event:
// through the extension bridge, network and page events can arrive out of
// order.
const statusGrace = 500 * time.Millisecond

// awaitStatus returns the HTTP status of the loader's document, waiting up
// to grace for its response event.
func (w *navWatch) awaitStatus(ctx context.Context, loaderID string, grace time.Duration) int {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		st, ok, seen := w.t.page.docs.status(loaderID)
		if ok || loaderID == "" {
			return st
		}
		select {
		case <-ctx.Done():
			return 0
		case <-timer.C:
			return 0
		case <-seen:
		}
	}
}

// navigationStarted reports whether a cross-document navigation of the main
// frame started within d. With d ≤ 0 it looks among the events that have
// come, and waits settleWindow only for a navigation requested there.
//
// drawn, when not nil, can end the wait early: it yields true once the
// page has drawn a frame after the input and run the task after it. A
// navigation the input set off in the page (a link, a submit, a script's
// location change) has been requested by then, and the renderer's
// navRequested comes on the page's session before that reply. When none
// was requested, none is coming from the input: the wait ends. drawn
// yields false when the page drew no frame (hidden, or too busy): the
// wait then runs its whole window.
func (w *navWatch) navigationStarted(ctx context.Context, mainFrame string, d time.Duration, drawn <-chan bool) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	requested := false
	for i := 0; i < len(w.backlog); i++ {
		ev := w.backlog[i]
		switch {
		case ev.Method == navStarted && startsDocument(ev, mainFrame):
			// What came before the start is of the document before: a stop
			// of its load must not end the wait for this one.
			w.backlog = slices.Delete(w.backlog, 0, i+1)
			return true
		case ev.Method == navStarted:
			w.backlog = slices.Delete(w.backlog, i, i+1)
			i--
		case ev.Method == navRequested && requestsDocument(ev, mainFrame):
			requested = true
		}
	}
	// take takes an event from the channel: true when it starts the
	// navigation looked for.
	take := func(ev cdp.Event) bool {
		if ev.Method == navStarted {
			if startsDocument(ev, mainFrame) {
				w.backlog = w.backlog[:0]
				return true
			}
			return false
		}
		if ev.Method == navRequested && requestsDocument(ev, mainFrame) {
			requested = true
		}
		w.keep(ev, nil)
		return false
	}
	// drainQueued takes the events queued now: true when one starts the
	// navigation.
	drainQueued := func() (started, open bool) {
		for {
			select {
			case ev, ok := <-w.events:
				if !ok {
					return false, false
				}
				if take(ev) {
					return true, true
				}
			default:
				return false, true
			}
		}
	}
	if d <= 0 {
		started, open := drainQueued()
		if started || !open || !requested {
			return started
		}
		// asked for but not started yet: it gets the window
		timer.Reset(settleWindow)
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return false
		case ev, ok := <-w.events:
			if !ok {
				return false
			}
			if take(ev) {
				return true
			}
		case ok := <-drawn:
			drawn = nil
			if !ok {
				continue
			}
			// The events that came before the reply are queued by now.
			if started, open := drainQueued(); started || !open || !requested {
				return started
			}
		}
	}
}

// startsDocument says ev (navStarted) starts a cross-document navigation
// of the frame.
func startsDocument(ev cdp.Event, frameID string) bool {
	var e struct {
		FrameID        string `json:"frameId"`
		NavigationType string `json:"navigationType"`
	}
	return jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == frameID && !strings.Contains(strings.ToLower(e.NavigationType), "samedocument")
}

// requestsDocument says ev (navRequested) asks the frame itself to
// navigate, not a new tab or window.
func requestsDocument(ev cdp.Event, frameID string) bool {
	var e struct {
		FrameID     string `json:"frameId"`
		Disposition string `json:"disposition"`
	}
	return jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == frameID && e.Disposition != "newTab" && e.Disposition != "newWindow"
}

// waitSettled waits, after a navigation started, until the main frame loads
// a new document or stops loading without one (a download, a 204). It
// returns the new loader, or "" when none committed.
func (w *navWatch) waitSettled(ctx context.Context, mainFrame, oldLoader string) (string, error) {
	committed := ""
	return w.wait(ctx, mainFrame, func(e lifecycleEvent) bool { return e.LoaderID != oldLoader }, &committed, true)
}

// or returns d, or def when d is not positive.
func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
