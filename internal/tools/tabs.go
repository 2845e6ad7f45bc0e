package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// TabsIn is browser_tabs's input.
type TabsIn struct {
	Action  string `json:"action,omitempty" enum:"list,new,select,close,bind,unbind"`
	Tab     string `json:"tab,omitempty" jsonschema:"bind: an id from list all"`
	Match   string `json:"match,omitempty" jsonschema:"select, bind: URL or title part, */glob* or /regex/"`
	URL     string `json:"url,omitempty" jsonschema:"new: URL to open"`
	All     bool   `json:"all,omitempty" jsonschema:"list: also user tabs to bind"`
	Context string `json:"context,omitempty" jsonschema:"new: in this named browser context (own cookies and storage)" group:"contexts"`
	Session string `json:"session,omitempty"`
}

// Check refuses select without exactly one of tab and match, match with
// anything but select, and a URL for anything but new.
func (in TabsIn) Check() error {
	if in.Action == "select" && (in.Tab == "") == (in.Match == "") {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "select needs tab or match (one of them)",
			Hint: "tab is an id from browser_tabs list (t1, t2, …); match is part of the tab's URL or title, or /regex/"}
	}
	if in.Action == "bind" && in.Tab != "" && in.Match != "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "bind takes tab or match, not both",
			Hint: "with neither, bind takes the tab the user is looking at"}
	}
	if in.Match != "" && in.Action != "select" && in.Action != "bind" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "match goes with action select or bind", Hint: "browser_tabs select with match picks a tab by URL or title"}
	}
	if in.All && in.Action != "list" && in.Action != "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "all goes with action list", Hint: "browser_tabs list with all: true also lists the user's tabs that bind can take"}
	}
	if in.Context != "" && in.Action != "new" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "context goes with action new", Hint: "a tab's context is chosen when it is opened; list shows each tab's"}
	}
	if in.URL != "" && in.Action != "new" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "url goes with action new", Hint: "use browser_navigate to load a URL in an existing tab"}
	}
	return nil
}

var tabsTool = Def(Tool{
	Name:        "browser_tabs",
	Description: "List, open, select, close the session's tabs (popups join); bind a user's tab.",
	Annotations: Annotations{Destructive: ptr(true)},
	Group:       GroupTabs,
	Hold:        HoldSession,
}, func(ctx context.Context, h *Held, in TabsIn) (*Result, error) {
	switch in.Action {
	case "new":
		var t *browser.Tab
		var err error
		where := ""
		if in.Context != "" {
			t, err = h.Tabs().NewIn(ctx, in.Context)
			where = fmt.Sprintf(" in context %q", in.Context)
		} else {
			t, err = h.Tabs().New(ctx)
		}
		if err != nil {
			return nil, err
		}
		if in.URL == "" {
			return &Result{Text: fmt.Sprintf("Opened tab %s%s (now current).", t.ID, where)}, nil
		}
		nav, err := h.Navigate(ctx, in.URL, 0)
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Opened tab %s%s (now current): %s — %q", t.ID, where, nav.URL, nav.Title),
			Tab: t, Snapshot: browser.ModeCompact}, nil
	case "select":
		var t *browser.Tab
		var err error
		if in.Match != "" {
			t, err = h.Tabs().SelectMatching(ctx, in.Match)
		} else {
			t, err = h.Tabs().Select(ctx, in.Tab)
		}
		if err != nil {
			return nil, err
		}
		// (none: the server tells what on its page waits for a person)
		return &Result{Text: fmt.Sprintf("Tab %s is current.", t.ID), Tab: t, Snapshot: "none"}, nil
	case "bind":
		t, err := h.Tabs().Bind(ctx, in.Tab, in.Match)
		if err != nil {
			return nil, err
		}
		url, title := "", ""
		if tabs, err := h.Tabs().List(ctx); err == nil {
			for _, v := range tabs {
				if v.ID == t.ID {
					url, title = v.URL, v.Title
				}
			}
		}
		return &Result{Text: fmt.Sprintf("Bound the user's tab as %s (now current): %s — %q. It stays open when released (close, unbind, browser_close); browser_navigate away from it needs allow_navigation.", t.ID, browser.Echo(url), browser.Echo(title)),
			Tab: t, Snapshot: browser.ModeCompact}, nil
	case "unbind":
		t, err := h.Tabs().Unbind(ctx, in.Tab)
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Released tab %s: detached, left open as the user has it.", t.ID)}, nil
	case "close":
		id := in.Tab
		if id == "" {
			t, err := h.Tabs().Current(ctx)
			if err != nil {
				return nil, err
			}
			id = t.ID
		}
		bound := false
		if tabs, err := h.Tabs().List(ctx); err == nil {
			for _, v := range tabs {
				bound = bound || (v.ID == id && v.Bound)
			}
		}
		if err := h.Tabs().Close(ctx, id); err != nil {
			return nil, err
		}
		if bound {
			return &Result{Text: fmt.Sprintf("Released tab %s (the user's tab: detached, left open).", id)}, nil
		}
		return &Result{Text: fmt.Sprintf("Closed tab %s.", id)}, nil
	}
	tabs, err := h.Tabs().List(ctx)
	if err != nil {
		return nil, err
	}
	text := renderTabs(h.SessionName(), tabs)
	if name := h.BrowserProfileName(); name != "" {
		text += "\nChrome profile: " + name
	}
	if in.All {
		user, err := h.Tabs().Bindable(ctx)
		if err != nil {
			return nil, err
		}
		text += "\n" + renderUserTabs(user)
	}
	return &Result{Text: text}, nil
})

func renderUserTabs(tabs []browser.TabView) string {
	if len(tabs) == 0 {
		return "No other tab to bind."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tab(s) the user opened (browser_tabs bind takes one by tab or match; > the user is looking at it):", len(tabs))
	for _, t := range tabs {
		mark := " "
		if t.Current {
			mark = ">"
		}
		fmt.Fprintf(&b, "\n%s %s %q %s", mark, t.ID, t.Title, t.URL)
	}
	return b.String()
}

func renderTabs(session string, tabs []browser.TabView) string {
	if len(tabs) == 0 {
		return fmt.Sprintf("Session %q has no tabs yet; browser_navigate or browser_tabs new opens one.", session)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tab(s) of session %q:", len(tabs), session)
	for _, t := range tabs {
		mark := " "
		if t.Current {
			mark = "*"
		}
		fmt.Fprintf(&b, "\n%s %s %q %s", mark, t.ID, t.Title, t.URL)
		if t.Bound {
			b.WriteString(" (bound: the user's tab)")
		}
		if t.Context != "" {
			fmt.Fprintf(&b, " (context %s)", t.Context)
		}
		if t.Opener != "" {
			fmt.Fprintf(&b, " (opened by %s)", t.Opener)
		}
		if t.Loading {
			b.WriteString(" (loading its first page)")
		}
	}
	return b.String()
}
