package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// NetworkIn is browser_network's input.
type NetworkIn struct {
	Action   string `json:"action,omitempty" jsonschema:"default list; export: a HAR file" enum:"list,get,clear,export"`
	ID       string `json:"id,omitempty" jsonschema:"get: request id (n12)"`
	Filter   string `json:"filter,omitempty" jsonschema:"list: URL part or /regex/"`
	Type     string `json:"type,omitempty" jsonschema:"list: xhr,fetch,document,script,image,…"`
	Status   string `json:"status,omitempty" jsonschema:"list: 404, 4xx, failed or pending"`
	Method   string `json:"method,omitempty" jsonschema:"list: GET, POST…"`
	Limit    int    `json:"limit,omitempty" jsonschema:"list: newest N (50)" minimum:"1" maximum:"500"`
	Save     bool   `json:"save,omitempty" jsonschema:"get: write the whole body to a file"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"get: body chars (10000)" minimum:"1" maximum:"1000000"`
	Offset   int    `json:"offset,omitempty" minimum:"0" maximum:"10000000"`
	Session  string `json:"session,omitempty"`
	Tab      string `json:"tab,omitempty" jsonschema:"list: only this tab's (default all)"`
}

// Check refuses get without an id, and arguments of one action given to
// another.
func (in NetworkIn) Check() error {
	action := in.Action
	if action == "" {
		action = "list"
	}
	bad := func(arg, of string) error {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("%s goes with action %s, not %s", arg, of, action),
			Hint: "list takes filter, type, status, method, tab and limit; export the same but limit; get takes id, save, max_chars and offset; clear takes none"}
	}
	if action == "get" && strings.TrimSpace(in.ID) == "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "get needs id: a request id from browser_network list (n12)",
			Hint: "list the requests first: browser_network with no arguments"}
	}
	if action != "get" {
		switch {
		case in.ID != "":
			return bad("id", "get")
		case in.Save:
			return bad("save", "get")
		case in.MaxChars != 0 || in.Offset != 0:
			return bad("max_chars and offset", "get")
		}
	}
	if action != "list" && action != "export" {
		switch {
		case in.Filter != "" || in.Type != "" || in.Status != "" || in.Method != "":
			return bad("filter, type, status and method", "list")
		case in.Tab != "":
			return bad("tab", "list")
		}
	}
	if action != "list" && in.Limit != 0 {
		return bad("limit", "list")
	}
	return nil
}

var networkTool = Def(Tool{
	Name: "browser_network",
	Description: "Requests of the session's tabs (newest 500): list with filters, get one in full (headers, body), export as HAR, clear. " +
		"Credentials redacted.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupNetwork,
	Hold:        HoldExistingSession,
}, func(ctx context.Context, h *Held, in NetworkIn) (*Result, error) {
	switch in.Action {
	case "get":
		if !h.Exists() {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("session %q has recorded no requests: it has not been used", h.SessionName()),
				Hint: "load a page in the session first (browser_navigate), then browser_network list"}
		}
		d, err := h.Network().Request(ctx, browser.NetworkGet{ID: in.ID, Save: in.Save, MaxChars: in.MaxChars, Offset: in.Offset})
		if err != nil {
			return nil, err
		}
		return &Result{Text: renderRequest(d)}, nil
	case "clear":
		n := 0
		if h.Exists() {
			n = h.Network().Clear()
		}
		return &Result{Text: fmt.Sprintf("Cleared the network buffer of session %q (%d requests).", h.SessionName(), n)}, nil
	}
	if !h.Exists() {
		return &Result{Text: fmt.Sprintf("No requests: session %q has not been used yet (requests are recorded from a tab's first use on).", h.SessionName())}, nil
	}
	if in.Action == "export" {
		x, err := h.Network().ExportHAR(browser.NetworkQuery{Filter: in.Filter, Type: in.Type, Status: in.Status, Method: in.Method, Tab: in.Tab})
		if err != nil {
			return nil, err
		}
		how := "URLs and headers redacted as the list shows them; no bodies"
		if h.Session().Policy().Options().NoRedact {
			how = "as recorded (--no-redact); no bodies"
		}
		return &Result{Text: fmt.Sprintf("Exported %d requests of session %q as HAR 1.2 (%s), %s\nSaved to %s", x.Requests, h.SessionName(), how, kb(x.Bytes), x.Path)}, nil
	}
	l, err := h.Network().List(browser.NetworkQuery{Filter: in.Filter, Type: in.Type, Status: in.Status, Method: in.Method, Tab: in.Tab, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	return &Result{Text: renderNetList(h.SessionName(), l)}, nil
})

// renderNetList writes a list: a header line, then one line per request,
// newest last.
func renderNetList(session string, l *browser.NetList) string {
	var b strings.Builder
	dropped := ""
	if l.Dropped > 0 {
		dropped = fmt.Sprintf("; %s older dropped: the buffer keeps the newest %d", commas(l.Dropped), browser.NetworkCap)
	}
	switch {
	case l.Buffered == 0:
		fmt.Fprintf(&b, "No requests recorded in session %q%s (recording starts with a tab's first use; clear empties it).", session, dropped)
		return b.String()
	case l.Matched == 0:
		fmt.Fprintf(&b, "No request matches (%s recorded in session %q%s).", commas(l.Buffered), session, dropped)
		return b.String()
	}
	what := "requests"
	if l.Filtered {
		what = "matching requests"
	}
	if len(l.Requests) < l.Matched {
		fmt.Fprintf(&b, "Newest %d of %s %s", len(l.Requests), commas(l.Matched), what)
	} else {
		fmt.Fprintf(&b, "%s %s", commas(l.Matched), what)
	}
	if l.Filtered || len(l.Requests) < l.Matched {
		fmt.Fprintf(&b, " (%s recorded%s)", commas(l.Buffered), dropped)
	} else if dropped != "" {
		fmt.Fprintf(&b, " (%s)", strings.TrimPrefix(dropped, "; "))
	}
	oneTab := l.Tabs == 1
	if oneTab {
		fmt.Fprintf(&b, " in tab %s", l.Requests[0].Tab)
	}
	b.WriteString(", oldest first; browser_network get with an id shows one in full:")
	for _, r := range l.Requests {
		b.WriteString("\n" + netLine(r, !oneTab))
	}
	return b.String()
}

// netLine is one request on one line: id, [tab,] method, status, type,
// URL, time and size.
func netLine(r browser.NetRequest, tab bool) string {
	parts := []string{r.ID}
	if tab {
		parts = append(parts, r.Tab)
	}
	parts = append(parts, r.Method, netStatus(r))
	if r.Type != "" {
		parts = append(parts, r.Type)
	}
	parts = append(parts, cutURL(r.URL, 200))
	if r.Pending {
		parts = append(parts, "for "+netDuration(r.Duration))
	} else {
		parts = append(parts, netDuration(r.Duration))
	}
	if r.Decoded > 0 {
		parts = append(parts, netSize(r.Decoded))
	} else if r.Encoded > 0 && r.Failed == "" {
		parts = append(parts, netSize(r.Encoded)+" transferred")
	}
	if r.Cache != "" {
		parts = append(parts, "("+r.Cache+")")
	}
	return strings.Join(parts, " ")
}

// netStatus is a request's outcome in a word or two. A response's status
// wins over how its body ended: a script answered 404, whose body the
// browser then drops, is 404, not canceled.
func netStatus(r browser.NetRequest) string {
	switch {
	case r.Blocked != "":
		return "blocked(" + r.Blocked + ")"
	case r.Status > 0 && r.Redirect == "" && (r.Canceled || r.Failed != ""):
		if r.Canceled || r.Status >= 400 {
			return fmt.Sprint(r.Status)
		}
		return fmt.Sprintf("%d failed(%s)", r.Status, r.Failed)
	case r.Canceled:
		return "canceled"
	case r.Failed != "":
		return "failed(" + r.Failed + ")"
	case r.Redirect != "":
		return fmt.Sprintf("%d→%s", r.Status, r.Redirect)
	case r.Status > 0:
		return fmt.Sprint(r.Status)
	case r.Pending:
		return "pending"
	}
	return "done" // finished without a status: served from memory
}

// renderRequest writes one request in full.
func renderRequest(d *browser.NetDetail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\n", d.ID, d.Method, d.URL)
	facts := []string{}
	if d.Type != "" {
		facts = append(facts, d.Type)
	}
	facts = append(facts, "tab "+d.Tab, "started "+d.Start.Format("15:04:05.000"))
	if d.Pending {
		facts = append(facts, "pending for "+netDuration(d.Duration))
	} else {
		facts = append(facts, "took "+netDuration(d.Duration))
	}
	if d.Initiator != "" {
		facts = append(facts, "initiator "+d.Initiator)
	}
	b.WriteString(strings.Join(facts, " · ") + "\n")

	switch {
	case d.Blocked != "":
		fmt.Fprintf(&b, "Blocked by the browser: %s (%s)\n", d.Blocked, d.Failed)
	case d.Canceled:
		fmt.Fprintf(&b, "Canceled (%s)\n", d.Failed)
	case d.Failed != "":
		fmt.Fprintf(&b, "Failed: %s\n", d.Failed)
	}
	if d.Status > 0 {
		resp := []string{strings.TrimSpace(fmt.Sprintf("%d %s", d.Status, d.StatusText))}
		if d.MIME != "" {
			resp = append(resp, d.MIME)
		}
		if d.Protocol != "" {
			resp = append(resp, d.Protocol)
		}
		if d.Remote != "" {
			resp = append(resp, "from "+d.Remote)
		}
		if d.Cache != "" {
			resp = append(resp, "("+d.Cache+")")
		}
		if d.Decoded > 0 {
			resp = append(resp, netSize(d.Decoded)+" body")
		}
		if d.Encoded > 0 {
			resp = append(resp, netSize(d.Encoded)+" transferred")
		}
		if d.Redirect != "" {
			resp = append(resp, "redirected: next hop "+d.Redirect)
		}
		b.WriteString("Response: " + strings.Join(resp, " · ") + "\n")
	}

	writeHeaders := func(title string, hs []browser.Header) {
		if len(hs) == 0 {
			return
		}
		b.WriteString("\n" + title + ":\n")
		for _, h := range hs {
			fmt.Fprintf(&b, "  %s: %s\n", h.Name, h.Value)
		}
	}
	if d.RawRequest {
		writeHeaders("Request headers", d.RequestHeaders)
	} else {
		// Without the ExtraInfo events only what the page set is known.
		writeHeaders("Request headers (as the page set them; cookies and others the browser adds not reported)", d.RequestHeaders)
	}
	if d.RequestBody != "" {
		fmt.Fprintf(&b, "\nRequest body (%s chars):\n%s\n", commas(d.RequestBodyLen), d.RequestBody)
		if n := len([]rune(d.RequestBody)); n < d.RequestBodyLen {
			fmt.Fprintf(&b, "… cut at %s of %s chars\n", commas(n), commas(d.RequestBodyLen))
		}
	}
	writeHeaders("Response headers", d.ResponseHeaders)

	b.WriteString("\n")
	kind := d.MIME
	if kind == "" {
		kind = "no type"
	}
	switch {
	case d.NoBody != "":
		b.WriteString("No response body: " + d.NoBody)
	case d.Saved != "":
		size := netSize(int64(d.BodyBytes))
		if d.BodyChars > 0 {
			size = fmt.Sprintf("%s chars, %s", commas(d.BodyChars), size)
		}
		fmt.Fprintf(&b, "Response body (%s, %s) saved to %s", kind, size, d.Saved)
	case d.BodyBinary:
		fmt.Fprintf(&b, "Response body: binary (%s, %s), not shown; save: true writes it to a file", kind, netSize(int64(d.BodyBytes)))
	case d.BodyBytes == 0:
		b.WriteString("Response body: empty")
	case d.Body == "" && d.Offset > 0:
		fmt.Fprintf(&b, "Response body: offset %s is past its end (%s chars)", commas(d.Offset), commas(d.BodyChars))
	default:
		fmt.Fprintf(&b, "Response body (%s, %s chars):\n%s", kind, commas(d.BodyChars), d.Body)
		if d.Next > 0 || d.Offset > 0 {
			end := d.BodyChars
			if d.Next > 0 {
				end = d.Next
			}
			fmt.Fprintf(&b, "\n… chars %s–%s of %s", commas(d.Offset), commas(end), commas(d.BodyChars))
			if d.Next > 0 {
				fmt.Fprintf(&b, "; offset=%d continues, or save: true writes the whole body to a file", d.Next)
			}
		}
		if d.Clamped > 0 {
			fmt.Fprintf(&b, "\n(max_chars %s lowered to %s)", commas(d.Clamped), commas(browser.MaxSnapshotChars))
		}
	}
	return b.String()
}

// cutURL shortens a long URL for a list line, keeping its start and end.
func cutURL(u string, n int) string {
	r := []rune(u)
	if len(r) <= n {
		return u
	}
	return string(r[:n-41]) + "…" + string(r[len(r)-40:])
}

func netDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1 ms"
	case d < 10*time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func netSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
