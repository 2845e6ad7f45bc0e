package tools

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// NavigateIn is browser_navigate's input.
type NavigateIn struct {
	URL       string `json:"url,omitempty" jsonschema:"URL to open"`
	Go        string `json:"go,omitempty" jsonschema:"instead of url" enum:"back,forward,reload"`
	Snapshot  string `json:"snapshot,omitempty" enum:"none,compact,diff"`
	Session   string `json:"session,omitempty"`
	Tab       string `json:"tab,omitempty"`
	TimeoutMs int    `json:"timeout_ms,omitempty" minimum:"1" maximum:"120000"`
	// AllowNavigation lets a tab the user opened (browser_tabs bind) leave
	// its page.
	AllowNavigation bool `json:"allow_navigation,omitempty" jsonschema:"needed to leave a bound tab's page"`
}

// Check refuses both or neither of url and go.
func (in NavigateIn) Check() error {
	if (in.URL == "") == (in.Go == "") {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "pass exactly one of url or go",
			Hint: `{"url": "https://example.com"} or {"go": "back"}`}
	}
	return nil
}

var navigateTool = Def(Tool{
	Name:        "browser_navigate",
	Description: "Open a URL (or go back, forward, reload) and wait for the load; returns a snapshot.",
	Annotations: Annotations{OpenWorld: ptr(true), Destructive: ptr(false)},
	Group:       GroupCore,
	Hold:        HoldTabToLeave,
}, func(ctx context.Context, h *Held, in NavigateIn) (*Result, error) {
	var nav browser.NavResult
	var err error
	if t := h.Tab(); t != nil && t.Bound() && in.Go != "reload" && !in.AllowNavigation {
		return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("tab %s is the user's tab (bound): webpilot does not take it to another page unasked", t.ID),
			Hint: "pass allow_navigation: true if the user wants this tab to leave its page, or open your own tab with browser_tabs new"}
	}
	if in.URL != "" {
		nav, err = h.Navigate(ctx, in.URL, timeout(in.TimeoutMs))
	} else {
		nav, err = h.History(ctx, in.Go, timeout(in.TimeoutMs))
	}
	if err != nil {
		return nil, err
	}
	mode := in.Snapshot
	if mode == "" {
		mode = browser.ModeCompact
	}
	// The snapshot's header says the title and the URL: the reply says
	// them itself only when no snapshot follows.
	text := "Loaded"
	if mode == "none" {
		text = fmt.Sprintf("Loaded %s — %q", browser.Echo(h.ShowURL(nav.URL)), browser.Echo(nav.Title))
		// (a snapshot is likely next: the page is read while the agent
		// reads this)
		h.Session().ReadAhead(h.Tab())
	}
	if nav.Status != 0 {
		text += fmt.Sprintf(" (HTTP %d)", nav.Status)
	}
	return &Result{Text: text, Snapshot: mode, Redirected: in.URL != "" && redirected(in.URL, nav.URL)}, nil
})

// redirected says whether a navigation to asked was sent to a sign-in
// page: it ended on another host or path (the scheme, a "www.", a default
// port and a trailing slash aside) whose address reads as one (login,
// signin, auth, sso, session, account).
func redirected(asked, got string) bool {
	a, err1 := url.Parse(asked)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || a.Host == "" || g.Host == "" {
		return false
	}
	host := func(u *url.URL) string { return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") }
	path := func(u *url.URL) string { return strings.TrimSuffix(u.Path, "/") }
	if host(a) == host(g) && path(a) == path(g) {
		return false
	}
	return signInAddress.MatchString(g.Hostname() + g.Path)
}

// signInAddress matches the host and path of a sign-in page.
var signInAddress = regexp.MustCompile(`(?i)(^|[^a-z])(log-?in|sign-?in|auth|sso|session|accounts?)([^a-z]|$)`)
