package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	cdproto "github.com/chromedp/cdproto/cdp"
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
func (m *Manager) NormalizeURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", &Error{Code: CodeInvalidArgument, Message: "url is empty", Hint: `pass an absolute URL such as "https://example.com"`}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || hostPort.MatchString(raw) || (u.Host == "" && u.Opaque == "" && (u.Scheme == "http" || u.Scheme == "https")) {
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
		if !m.fileAllowed() {
			return "", &Error{Code: CodeInvalidArgument, Message: "file: URLs are refused",
				Hint: `serve the file over http, or start webpilot with --allowed-origins "file://" to allow local files`}
		}
	default:
		return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: URLs are refused", u.Scheme),
			Hint: "webpilot opens http, https, about and data URLs"}
	}
	if err := m.checkOrigin(u); err != nil {
		return "", err
	}
	return u.String(), nil
}

func (m *Manager) fileAllowed() bool {
	if m.opts.AllowFileURLs {
		return true
	}
	for _, o := range m.opts.AllowedOrigins {
		if strings.HasPrefix(strings.ToLower(o), "file:") {
			return true
		}
	}
	return false
}

// checkOrigin applies --allowed-origins and --blocked-origins. A pattern is
// an origin ("https://example.com"), a host ("example.com") or a host
// wildcard ("*.example.com"); a host pattern matches every scheme and port.
func (m *Manager) checkOrigin(u *url.URL) error {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil
	}
	for _, p := range m.opts.BlockedOrigins {
		if originMatches(p, u) {
			return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("%s is blocked by --blocked-origins (%s)", u.Host, p),
				Hint: "this origin may not be opened in this configuration"}
		}
	}
	if len(m.opts.AllowedOrigins) == 0 {
		return nil
	}
	for _, p := range m.opts.AllowedOrigins {
		if originMatches(p, u) {
			return nil
		}
	}
	return &Error{Code: CodeOriginBlocked, Message: fmt.Sprintf("%s is not in --allowed-origins", u.Host),
		Hint: "only these origins may be opened", Suggestions: m.opts.AllowedOrigins}
}

func originMatches(pattern string, u *url.URL) bool {
	p := strings.ToLower(strings.TrimSpace(pattern))
	host := strings.ToLower(u.Hostname())
	if i := strings.Index(p, "://"); i >= 0 {
		pu, err := url.Parse(p)
		if err != nil || pu.Scheme != strings.ToLower(u.Scheme) {
			return false
		}
		if pu.Port() != "" && pu.Port() != u.Port() {
			return false
		}
		p = pu.Hostname()
	}
	if strings.HasPrefix(p, "*.") {
		return strings.HasSuffix(host, p[1:]) || host == p[2:]
	}
	return host == p
}

// Navigate opens url in the tab and waits for its load event, up to timeout
// (0: the navigation timeout).
func (s *Session) Navigate(ctx context.Context, t *Tab, rawURL string, timeout time.Duration) (NavResult, error) {
	u, err := s.m.NormalizeURL(rawURL)
	if err != nil {
		return NavResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, or(timeout, s.m.opts.NavTimeout))
	defer cancel()

	w := t.watchNavigation()
	defer w.stop()
	res, err := cdproto.Call(ctx, t.t, page.Navigate, page.NavigateParams{URL: u})
	if err != nil {
		return NavResult{}, backendError("navigate", err)
	}
	if res.ErrorText != "" {
		return NavResult{}, navError(u, res.ErrorText)
	}
	if res.LoaderID != "" {
		if err := w.waitLoad(ctx, string(res.FrameID), string(res.LoaderID)); err != nil {
			return NavResult{}, loadWaitError(u, err)
		}
	}
	return s.finishNav(ctx, t, w, string(res.LoaderID))
}

// History goes back, forward or reloads, and waits for the load.
func (s *Session) History(ctx context.Context, t *Tab, dir string, timeout time.Duration) (NavResult, error) {
	ctx, cancel := context.WithTimeout(ctx, or(timeout, s.m.opts.NavTimeout))
	defer cancel()
	w := t.watchNavigation()
	defer w.stop()
	switch dir {
	case "reload":
		if _, err := cdproto.Call(ctx, t.t, page.Reload, page.ReloadParams{}); err != nil {
			return NavResult{}, backendError("reload", err)
		}
	case "back", "forward":
		h, err := cdproto.Call(ctx, t.t, page.GetNavigationHistory, cdproto.Empty{})
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
		if _, err := cdproto.Call(ctx, t.t, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			return NavResult{}, backendError("go "+dir, err)
		}
	default:
		return NavResult{}, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("go must be back, forward or reload, not %q", dir)}
	}
	// History navigations may come from the back/forward cache, which fires
	// no new load; a new document commit is enough then.
	if err := w.waitAnyLoad(ctx); err != nil {
		return NavResult{}, loadWaitError(dir, err)
	}
	return s.finishNav(ctx, t, w, "")
}

func (s *Session) finishNav(ctx context.Context, t *Tab, w *navWatch, loaderID string) (NavResult, error) {
	href, title, err := t.location(ctx)
	if err != nil {
		return NavResult{}, backendError("read the page location", err)
	}
	r := NavResult{URL: href, Title: title}
	if strings.HasPrefix(href, "http:") || strings.HasPrefix(href, "https:") {
		r.Status = w.status(loaderID)
	}
	if pu, err := url.Parse(href); err == nil {
		if oerr := s.m.checkOrigin(pu); oerr != nil {
			// A redirect led somewhere not allowed: leave it.
			_, _ = cdproto.Call(ctx, t.t, page.Navigate, page.NavigateParams{URL: "about:blank"})
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
		kind, hint = "tls_error", "the site's certificate or TLS setup was refused"
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

// navWatch collects lifecycle events and document responses from before a
// navigation is sent until it is done.
type navWatch struct {
	started   <-chan jsonv2.Value
	navigated <-chan jsonv2.Value
	life      <-chan jsonv2.Value
	resp      <-chan jsonv2.Value
	cancels   []func()
	statuses  map[string]int // loaderId -> document HTTP status
	lastDocID string
}

func (t *Tab) watchNavigation() *navWatch {
	w := &navWatch{statuses: make(map[string]int)}
	var c1, c2, c3, c4 func()
	w.life, c1 = t.t.Subscribe("Page.lifecycleEvent")
	w.resp, c2 = t.t.Subscribe("Network.responseReceived")
	w.started, c3 = t.t.Subscribe("Page.frameStartedNavigating")
	w.navigated, c4 = t.t.Subscribe("Page.frameNavigated")
	w.cancels = []func(){c1, c2, c3, c4}
	return w
}

func (w *navWatch) stop() {
	for _, c := range w.cancels {
		c()
	}
}

type lifecycleEvent struct {
	FrameID  string `json:"frameId"`
	LoaderID string `json:"loaderId"`
	Name     string `json:"name"`
}

type responseEvent struct {
	LoaderID string `json:"loaderId"`
	Type     string `json:"type"`
	Response struct {
		Status int `json:"status"`
	} `json:"response"`
}

func (w *navWatch) noteResponse(raw jsonv2.Value) {
	var r responseEvent
	if jsonv2.Unmarshal(raw, &r) == nil && r.Type == "Document" {
		w.statuses[r.LoaderID] = r.Response.Status
		w.lastDocID = r.LoaderID
	}
}

// waitLoad waits for the load lifecycle event of the loader in the frame.
func (w *navWatch) waitLoad(ctx context.Context, frameID, loaderID string) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case raw, ok := <-w.resp:
			if !ok {
				w.resp = nil
				continue
			}
			w.noteResponse(raw)
		case raw, ok := <-w.life:
			if !ok {
				return errors.New("tab closed while loading")
			}
			var e lifecycleEvent
			if jsonv2.Unmarshal(raw, &e) == nil && e.Name == "load" && e.FrameID == frameID && e.LoaderID == loaderID {
				w.drainResponses()
				return nil
			}
		}
	}
}

// waitAnyLoad waits for the next load event of any document in the tab, or
// for a main-frame restore from the back/forward cache (which fires none).
func (w *navWatch) waitAnyLoad(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case raw, ok := <-w.navigated:
			if !ok {
				w.navigated = nil
				continue
			}
			var e struct {
				Frame struct {
					ParentID string `json:"parentId"`
				} `json:"frame"`
				Type string `json:"type"`
			}
			if jsonv2.Unmarshal(raw, &e) == nil && e.Frame.ParentID == "" && e.Type == "BackForwardCacheRestore" {
				w.drainResponses()
				return nil
			}
		case raw, ok := <-w.resp:
			if !ok {
				w.resp = nil
				continue
			}
			w.noteResponse(raw)
		case raw, ok := <-w.life:
			if !ok {
				return errors.New("tab closed while loading")
			}
			var e lifecycleEvent
			if jsonv2.Unmarshal(raw, &e) == nil && e.Name == "load" {
				w.drainResponses()
				return nil
			}
		}
	}
}

func (w *navWatch) drainResponses() {
	for {
		select {
		case raw, ok := <-w.resp:
			if !ok {
				w.resp = nil
				return
			}
			w.noteResponse(raw)
		default:
			return
		}
	}
}

func (w *navWatch) status(loaderID string) int {
	if loaderID == "" {
		loaderID = w.lastDocID
	}
	return w.statuses[loaderID]
}

// navigationStarted reports whether a cross-document navigation started
// within d (or already), and whether its load was already seen.
func (w *navWatch) navigationStarted(ctx context.Context, d time.Duration) (started, loaded bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return started, false
		case <-timer.C:
			return started, false
		case raw, ok := <-w.started:
			if !ok {
				return started, false
			}
			var e struct {
				NavigationType string `json:"navigationType"`
			}
			if jsonv2.Unmarshal(raw, &e) == nil && !strings.Contains(strings.ToLower(e.NavigationType), "samedocument") {
				return true, false
			}
		}
	}
}

// or returns d, or def when d is not positive.
func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
