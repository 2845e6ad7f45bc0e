package browser

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/redact"
	"github.com/webpilot-mcp/webpilot/internal/text"
)

// Defaults and bounds of browser_network's output.
const (
	// NetworkListLimit is how many requests a list shows unless asked.
	NetworkListLimit = 50
	// NetworkBodyChars is how much of a response body get shows inline
	// (DESIGN.md: bodies inline 10,000 chars).
	NetworkBodyChars = 10_000
	// NetworkPostChars is how much of a request body get shows.
	NetworkPostChars = 2_000
	// netMaxBody bounds a body read from the browser (getResponseBody):
	// what is saved, and what the text is paged through.
	netMaxBody = 64 << 20
)

// Network is the session's network log as a held call sees it
// (Held.Network): the requests of all its tabs (netLog), listed, read in
// full, cleared and exported as HAR.
type Network struct{ h *Held }

// NetworkTypes are the resource types a request may have (CDP's, lower
// case), what browser_network's type filter takes.
var NetworkTypes = []string{"document", "stylesheet", "image", "media", "font", "script", "texttrack", "xhr", "fetch",
	"prefetch", "eventsource", "websocket", "manifest", "signedexchange", "ping", "cspviolationreport", "preflight", "fedcm", "other"}

// NetworkQuery selects recorded requests for browser_network's list.
type NetworkQuery struct {
	Filter string // part of the URL (case-insensitive) or /regex/, matched on the URL as shown
	Type   string // resource types, comma-separated (NetworkTypes)
	Status string // 404, 4xx, failed or pending, comma-separated
	Method string // GET, POST, …
	Tab    string // only this tab's requests (its short id); "" for all the session's
	Limit  int    // the newest N that match (0: NetworkListLimit)
}

// NetRequest is one recorded request as the agent sees it: its URL (and,
// in NetDetail, headers) redacted unless Options.NoRedact.
type NetRequest struct {
	ID         string // n12
	Tab        string // the tab's short id
	Method     string
	URL        string
	Type       string // document, xhr, fetch, … ("" when the browser did not say)
	Status     int    // 0 until the response
	StatusText string
	Failed     string // the error of a failed load (net::ERR_…), "" otherwise
	Canceled   bool
	Blocked    string // why the browser blocked it, when it did
	Pending    bool   // no end yet
	Cache      string // disk cache, service worker, prefetch cache
	MIME       string
	Protocol   string
	Remote     string    // the server's address
	Start      time.Time // when it started
	Duration   time.Duration
	Encoded    int64 // bytes received (headers and body, compressed), when finished
	Decoded    int64 // body bytes after decoding, as the page got them
	Initiator  string
	Redirect   string // the id of the hop it redirected to
}

// NetList is the requests a list selected, newest last.
type NetList struct {
	Requests []NetRequest
	Matched  int // requests that matched (Requests holds the newest Limit)
	Buffered int // requests in the buffer
	Dropped  int // older requests dropped since the last clear (the buffer was full)
	Filtered bool
	// Tabs counts the tabs among Requests.
	Tabs int
}

// List lists the session's recorded requests that match q. Call
// within Do.
func (nw Network) List(q NetworkQuery) (*NetList, error) {
	s := nw.h.s
	keep, err := nw.filter(q)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = NetworkListLimit
	}
	l := s.link.net
	l.mu.Lock()
	defer l.mu.Unlock()
	out := &NetList{Buffered: len(l.entries), Dropped: l.dropped,
		Filtered: q.Filter != "" || q.Type != "" || q.Status != "" || q.Method != "" || q.Tab != ""}
	var hits []*netEntry
	for _, e := range l.entries {
		if keep(e) {
			hits = append(hits, e)
		}
	}
	out.Matched = len(hits)
	hits = hits[max(0, len(hits)-limit):]
	tabs := map[*Tab]bool{}
	for _, e := range hits {
		out.Requests = append(out.Requests, nw.view(e))
		tabs[e.tab] = true
	}
	out.Tabs = len(tabs)
	return out, nil
}

// Clear empties the session's network buffer and returns how many
// requests it held; request numbers go on from where they were. Call
// within Do.
func (nw Network) Clear() int {
	s := nw.h.s
	l := s.link.net
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.entries)
	clear(l.entries)
	l.entries, l.dropped = l.entries[:0], 0
	clear(l.chains)
	return n
}

// filter compiles a query (with the session's lock held: it reads the
// tabs) into a test of an entry, refusing bad values with INVALID_ARGUMENT.
func (nw Network) filter(q NetworkQuery) (func(*netEntry) bool, error) {
	s := nw.h.s
	var tests []func(*netEntry) bool
	if q.Filter != "" {
		ok, err := matcher("filter", q.Filter)
		if err != nil {
			return nil, err
		}
		tests = append(tests, func(e *netEntry) bool { return ok(nw.shownURL(e.url)) })
	}
	if q.Type != "" {
		var types []string
		for t := range strings.SplitSeq(strings.ToLower(q.Type), ",") {
			if t = strings.TrimSpace(t); t == "" {
				continue
			}
			if !slices.Contains(NetworkTypes, t) {
				return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("type %q is not a resource type", Echo(t)),
					Hint: "use one or more of the types, comma-separated: xhr,fetch", Suggestions: NetworkTypes}
			}
			types = append(types, t)
		}
		tests = append(tests, func(e *netEntry) bool { return slices.Contains(types, e.typ) })
	}
	if q.Status != "" {
		st, err := statusTest(q.Status)
		if err != nil {
			return nil, err
		}
		tests = append(tests, st)
	}
	if m := strings.TrimSpace(q.Method); m != "" {
		tests = append(tests, func(e *netEntry) bool { return strings.EqualFold(e.method, m) })
	}
	if q.Tab != "" {
		key := s.tabs.ids.resolve(q.Tab)
		found := s.tabs.all[key] != nil
		s.link.net.mu.Lock()
		for _, e := range s.link.net.entries {
			found = found || e.tab.ID == q.Tab || e.tab.target == key
		}
		s.link.net.mu.Unlock()
		if !found {
			return nil, &Error{Code: CodeTabNotFound, Message: fmt.Sprintf("tab %q is not one of session %q's tabs and made none of its recorded requests", Echo(q.Tab), s.shownToAgent()),
				Hint: "omit tab to list the requests of all the session's tabs; browser_tabs list shows the tabs", Suggestions: s.tabs.tabIDs()}
		}
		tests = append(tests, func(e *netEntry) bool { return e.tab.ID == q.Tab || e.tab.target == key })
	}
	return func(e *netEntry) bool {
		for _, t := range tests {
			if !t(e) {
				return false
			}
		}
		return true
	}, nil
}

// statusTest reads a status filter: codes (404), classes (4xx), failed,
// pending, comma-separated; any of them matches.
func statusTest(v string) (func(*netEntry) bool, error) {
	var tests []func(*netEntry) bool
	for part := range strings.SplitSeq(strings.ToLower(v), ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			continue
		case part == "failed":
			tests = append(tests, func(e *netEntry) bool { return e.failed != "" })
		case part == "pending":
			tests = append(tests, func(e *netEntry) bool { return !e.finished })
		case len(part) == 3 && part[0] >= '1' && part[0] <= '5' && part[1:] == "xx":
			lo := int(part[0]-'0') * 100
			tests = append(tests, func(e *netEntry) bool { return e.status >= lo && e.status < lo+100 })
		default:
			n, err := strconv.Atoi(part)
			if err != nil || n < 100 || n > 599 {
				return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("status %q is not a status filter", Echo(part)),
					Hint:        "give an HTTP status (404), a class (4xx), failed (no response: DNS, refused, blocked, aborted) or pending, comma-separated",
					Suggestions: []string{"404", "4xx", "5xx", "failed", "pending"}}
			}
			tests = append(tests, func(e *netEntry) bool { return e.status == n })
		}
	}
	return func(e *netEntry) bool {
		for _, t := range tests {
			if t(e) {
				return true
			}
		}
		return len(tests) == 0
	}, nil
}

// shownURL is a URL as network output shows it: redacted unless
// Options.NoRedact.
func (nw Network) shownURL(u string) string {
	s := nw.h.s
	if s.pol.opts.NoRedact {
		return u
	}
	return redact.URL(u)
}

// view describes an entry (with the buffer's lock held).
func (nw Network) view(e *netEntry) NetRequest {
	s := nw.h.s
	v := NetRequest{ID: netID(e.seq), Tab: e.tab.ID, Method: e.method, URL: nw.shownURL(e.url), Type: e.typ,
		Status: e.status, StatusText: e.statusText, Failed: e.failed, Canceled: e.canceled, Blocked: e.blocked,
		Pending: !e.finished, Cache: e.cache, MIME: e.mime, Protocol: e.protocol, Remote: e.remote, Start: e.wall,
		Encoded: e.encoded, Decoded: e.decoded, Initiator: e.initiator}
	if v.Tab == "" {
		v.Tab = "(new tab)"
	}
	if e.finished {
		v.Duration = time.Duration((e.endTS - e.startTS) * float64(time.Second))
	} else {
		v.Duration = time.Since(e.wall)
	}
	if v.Duration < 0 {
		v.Duration = 0
	}
	if e.redirectTo != nil {
		v.Redirect = netID(e.redirectTo.seq)
	}
	if v.Initiator != "" && !s.pol.opts.NoRedact {
		if kind, where, ok := strings.Cut(v.Initiator, " "); ok {
			v.Initiator = kind + " " + redact.URL(where)
		}
	}
	return v
}

func netID(seq int) string { return "n" + strconv.Itoa(seq) }

// NetworkGet asks for one recorded request in full.
type NetworkGet struct {
	ID       string // n12
	Save     bool   // write the whole response body to the output directory
	MaxChars int    // of the body shown (0: NetworkBodyChars)
	Offset   int    // where the body shown starts, in characters
}

// NetDetail is one request in full: browser_network get.
type NetDetail struct {
	NetRequest
	RequestHeaders  []Header
	RawRequest      bool // the headers as sent (ExtraInfo), not the page's provisional ones
	RequestBody     string
	RequestBodyLen  int // in characters; more than RequestBody when cut
	ResponseHeaders []Header
	RawResponse     bool

	// The response body: Body is the page of the text shown (from Offset),
	// BodyChars its whole length in characters, Next the offset of the
	// next page (0 at the end); a binary body is not shown (BodyBinary),
	// only its size (BodyBytes). NoBody says why there is none.
	Body       string
	BodyChars  int
	BodyBytes  int
	Offset     int
	Next       int
	BodyBinary bool
	NoBody     string
	// Saved is where the whole body was written (save).
	Saved string
	// Clamped is the max_chars asked for when it was above
	// MaxSnapshotChars.
	Clamped int
}

// Request describes one recorded request in full, with its response
// body (from the browser, which keeps it while the page that loaded it
// stays). An id not in the buffer is INVALID_ARGUMENT with the newest ids
// as suggestions.
func (nw Network) Request(ctx context.Context, g NetworkGet) (*NetDetail, error) {
	s := nw.h.s
	id := strings.TrimSpace(g.ID)
	l := s.link.net
	l.mu.Lock()
	var e *netEntry
	for _, x := range l.entries {
		if netID(x.seq) == id {
			e = x
			break
		}
	}
	if e == nil {
		err := nw.unknown(id)
		l.mu.Unlock()
		return nil, err
	}
	d := &NetDetail{NetRequest: nw.view(e)}
	d.RequestHeaders, d.RawRequest = e.reqHeaders, false
	if e.rawReqHeaders != nil {
		d.RequestHeaders, d.RawRequest = e.rawReqHeaders, true
	}
	d.ResponseHeaders = e.respHeaders
	if e.rawRespHeaders != nil {
		d.ResponseHeaders, d.RawResponse = e.rawRespHeaders, true
	}
	d.RequestHeaders, d.ResponseHeaders = nw.shownHeaders(d.RequestHeaders), nw.shownHeaders(d.ResponseHeaders)
	post, postCut, hasPost := e.postData, e.postDataCut, e.hasPostData
	sess, reqID, finished, redirected := e.sess, e.reqID, e.finished, e.redirectTo != nil
	l.mu.Unlock()

	if hasPost && (post == "" || postCut) {
		var res struct {
			PostData string `json:"postData"`
		}
		if err := sess.Call(ctx, "Network.getRequestPostData", map[string]any{"requestId": reqID}, &res); err == nil && res.PostData != "" {
			post = res.PostData
		}
	}
	if post != "" {
		if !s.pol.opts.NoRedact {
			ct := strings.ToLower(headerValue(d.RequestHeaders, "content-type"))
			switch {
			case strings.Contains(ct, "x-www-form-urlencoded"):
				post = redact.Pairs(post)
			case strings.Contains(ct, "json"):
				post = redact.JSON(post)
			case strings.Contains(ct, "multipart/form-data"):
				post = redact.Multipart(post, headerValue(d.RequestHeaders, "content-type"))
			case strings.Contains(ct, "text/plain"):
				post = redact.Lines(post)
			}
		}
		d.RequestBodyLen = utf8.RuneCountInString(post)
		d.RequestBody, _ = text.Window(post, 0, NetworkPostChars)
		if d.RequestBodyLen <= NetworkPostChars {
			d.RequestBody = post
		}
	}

	switch {
	case d.Failed != "":
		d.NoBody = "the request failed, so there is no response body"
	case redirected:
		d.NoBody = "a redirect: the body is the next hop's (" + d.Redirect + ")"
	case d.Type == "websocket" || d.Type == "eventsource":
		d.NoBody = "a " + d.Type + " stream has no body to read here"
	case !finished:
		d.NoBody = "still loading: ask again once it has finished (it shows as pending in the list)"
	}
	if d.NoBody != "" {
		if g.Save {
			return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s has no response body to save: %s", id, d.NoBody),
				Hint: "save works on a finished request with a response; browser_network list shows them"}
		}
		return d, nil
	}
	data, err := nw.body(ctx, sess, reqID)
	if err != nil {
		if errors.Is(err, errNoBody) {
			d.NoBody = err.Error()
			if g.Save {
				return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s's response body cannot be saved: %s", id, d.NoBody),
					Hint: "load the page again (browser_navigate) and get the new request's body while the page is shown"}
			}
			return d, nil
		}
		return nil, err
	}
	d.BodyBytes = len(data)
	text := textual(d.MIME, data)
	d.BodyBinary = !text
	if g.Save {
		path, err := s.pol.saveOutput(s.link.clientID(), "network", bodyExt(d.MIME, text), data)
		if err != nil {
			return nil, err
		}
		d.Saved = path
		if text {
			d.BodyChars = utf8.RuneCount(data)
		}
		return d, nil
	}
	if !text {
		return d, nil
	}
	max := g.MaxChars
	if max > MaxSnapshotChars {
		d.Clamped, max = max, MaxSnapshotChars
	}
	if max <= 0 {
		max = NetworkBodyChars
	}
	d.BodyChars = utf8.RuneCount(data)
	d.Offset = g.Offset
	d.Body, d.Next = bodyWindow(data, g.Offset, max)
	return d, nil
}

// bodyWindow is window for a body of up to netMaxBody: up to max
// characters from offset, ending at a line break when one is in the last
// half, and the offset to continue from (0 at the end); it walks the bytes
// instead of making the whole body runes.
func bodyWindow(data []byte, offset, max int) (string, int) {
	start := 0
	for i := 0; i < offset; i++ {
		if start >= len(data) {
			return "", 0
		}
		_, n := utf8.DecodeRune(data[start:])
		start += n
	}
	if start >= len(data) {
		return "", 0
	}
	end, chars, lastBreak, breakChars := start, 0, -1, 0
	for end < len(data) && chars < max {
		r, n := utf8.DecodeRune(data[end:])
		end += n
		chars++
		if r == '\n' && chars-1 > max/2 {
			lastBreak, breakChars = end, chars
		}
	}
	if end < len(data) && lastBreak > 0 {
		end, chars = lastBreak, breakChars
	}
	next := 0
	if end < len(data) {
		next = offset + chars
	}
	return strings.TrimSuffix(string(data[start:end]), "\n"), next
}

// errNoBody is a body the browser no longer has (or never had): its text
// says why, for the agent.
var errNoBody = errors.New("no body")

type noBodyError string

func (e noBodyError) Error() string { return string(e) }
func (e noBodyError) Is(target error) bool {
	return target == errNoBody
}

// body asks the browser for a response body, decoded to bytes.
func (nw Network) body(ctx context.Context, sess cdp.Caller, reqID string) ([]byte, error) {
	s := nw.h.s
	select {
	case <-sess.Done():
		return nil, noBodyError("the tab that made the request is closed (or the browser restarted), and its response bodies went with it")
	default:
	}
	var res struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := sess.Call(ctx, "Network.getResponseBody", map[string]any{"requestId": reqID}, &res); err != nil {
		if ctx.Err() != nil {
			return nil, backendError("read the response body", err)
		}
		if errors.Is(err, cdp.ErrClosed) || errors.Is(err, cdp.ErrDetached) {
			return nil, noBodyError("the tab that made the request is closed (or the browser restarted), and its response bodies went with it")
		}
		s.m.log.Debug("network: response body", "err", err)
		return nil, noBodyError("the browser no longer has this response's body: it keeps bodies only for the page now loaded in the tab (and within its memory limit), so a later navigation or reload drops them")
	}
	if !res.Base64Encoded {
		return []byte(capText(res.Body, netMaxBody)), nil
	}
	data, err := base64.StdEncoding.DecodeString(res.Body)
	if err != nil {
		return nil, fmt.Errorf("decode the response body: %w", err)
	}
	return data, nil
}

// unknown is the error for an id not in the buffer, with the
// newest ids (and what they were) as suggestions. Call with the buffer
// locked.
func (nw Network) unknown(id string) *Error {
	s := nw.h.s
	l := s.link.net
	var sugg []string
	for i := len(l.entries) - 1; i >= 0 && len(sugg) < 5; i-- {
		v := nw.view(l.entries[i])
		sugg = append(sugg, fmt.Sprintf("%s %s %s", v.ID, v.Method, shorten(v.URL, 120)))
	}
	why := "is not in session " + strconv.Quote(s.shownToAgent()) + "'s network buffer"
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "n")); err == nil && strings.HasPrefix(id, "n") && n >= 1 && n <= l.seq {
		why = "is no longer in session " + strconv.Quote(s.shownToAgent()) + "'s network buffer (dropped when it was full, or cleared)"
	}
	hint := "ids are those of browser_network list (n1, n2, …)"
	if len(l.entries) == 0 {
		hint = "the buffer is empty: requests are recorded from a tab's first use on; load a page, then browser_network list"
	}
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("request %q %s", Echo(id), why), Hint: hint, Suggestions: sugg}
}

// shownHeaders redacts headers unless Options.NoRedact.
func (nw Network) shownHeaders(hs []Header) []Header {
	s := nw.h.s
	if s.pol.opts.NoRedact || len(hs) == 0 {
		return hs
	}
	out := make([]Header, len(hs))
	for i, h := range hs {
		out[i] = Header{Name: h.Name, Value: redact.Header(h.Name, h.Value)}
	}
	return out
}

func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// textual reports whether a body is text to show: a text MIME type (or
// none) and valid UTF-8.
func textual(mimeType string, data []byte) bool {
	m := strings.ToLower(mimeType)
	texty := m == "" || strings.HasPrefix(m, "text/") || strings.Contains(m, "json") || strings.Contains(m, "javascript") ||
		strings.Contains(m, "xml") || strings.Contains(m, "x-www-form-urlencoded") || strings.Contains(m, "ecmascript") ||
		strings.Contains(m, "graphql") || strings.Contains(m, "yaml") || strings.Contains(m, "csv")
	if !texty || !utf8.Valid(data) {
		return false
	}
	// No MIME type: text only when it has no control characters but
	// whitespace.
	if m == "" {
		for _, c := range string(data[:min(len(data), 4096)]) {
			if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
				return false
			}
		}
	}
	return true
}

// bodyExt is the file extension of a saved body.
func bodyExt(mimeType string, text bool) string {
	m := strings.ToLower(strings.TrimSpace(mimeType))
	known := map[string]string{"application/json": "json", "text/html": "html", "text/css": "css", "text/javascript": "js",
		"application/javascript": "js", "text/plain": "txt", "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif",
		"image/webp": "webp", "image/svg+xml": "svg", "application/pdf": "pdf", "text/csv": "csv", "application/xml": "xml",
		"text/xml": "xml", "font/woff2": "woff2", "font/woff": "woff", "application/wasm": "wasm", "image/x-icon": "ico"}
	if ext, ok := known[m]; ok {
		return ext
	}
	if strings.HasSuffix(m, "+json") {
		return "json"
	}
	if exts, err := mime.ExtensionsByType(m); err == nil && len(exts) > 0 {
		return strings.TrimPrefix(exts[0], ".")
	}
	if text {
		return "txt"
	}
	return "bin"
}
