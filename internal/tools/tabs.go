package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// TabsIn is browser_tabs's input.
type TabsIn struct {
	Action  string `json:"action" jsonschema:"what to do" enum:"list,new,select,close"`
	Tab     string `json:"tab,omitempty" jsonschema:"tab id, t1, t2, … (select, close)"`
	Match   string `json:"match,omitempty" jsonschema:"select: part of the tab's URL or title, or /regex/ (instead of tab)"`
	URL     string `json:"url,omitempty" jsonschema:"new: URL to open"`
	Session string `json:"session,omitempty"`
}

// Check refuses select without exactly one of tab and match, match with
// anything but select, and a URL for anything but new.
func (in TabsIn) Check() error {
	if in.Action == "select" && (in.Tab == "") == (in.Match == "") {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "select needs tab or match (one of them)",
			Hint: "tab is an id from browser_tabs list (t1, t2, …); match is part of the tab's URL or title, or /regex/"}
	}
	if in.Match != "" && in.Action != "select" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "match goes with action select", Hint: "browser_tabs select with match picks a tab by URL or title"}
	}
	if in.URL != "" && in.Action != "new" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "url goes with action new", Hint: "use browser_navigate to load a URL in an existing tab"}
	}
	return nil
}

var tabsTool = Def(Tool{
	Name:        "browser_tabs",
	Description: "List, open, select or close the session's tabs (popups join it).",
	Annotations: Annotations{Destructive: ptr(true)},
	Group:       GroupTabs,
	Hold:        HoldSession,
}, func(ctx context.Context, h *Held, in TabsIn) (*Result, error) {
	switch in.Action {
	case "new":
		t, err := h.NewTab(ctx)
		if err != nil {
			return nil, err
		}
		if in.URL == "" {
			return &Result{Text: fmt.Sprintf("Opened tab %s (now current).", t.ID)}, nil
		}
		nav, err := h.Navigate(ctx, in.URL, 0)
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Opened tab %s (now current): %s — %q", t.ID, nav.URL, nav.Title),
			Tab: t, Snapshot: browser.ModeCompact}, nil
	case "select":
		var t *browser.Tab
		var err error
		if in.Match != "" {
			t, err = h.SelectTabMatching(ctx, in.Match)
		} else {
			t, err = h.SelectTab(ctx, in.Tab)
		}
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Tab %s is current.", t.ID), Tab: t}, nil
	case "close":
		id := in.Tab
		if id == "" {
			t, err := h.CurrentTab(ctx)
			if err != nil {
				return nil, err
			}
			id = t.ID
		}
		if err := h.CloseTab(ctx, id); err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Closed tab %s.", id)}, nil
	}
	tabs, err := h.ListTabs(ctx)
	if err != nil {
		return nil, err
	}
	return &Result{Text: renderTabs(h.SessionName(), tabs)}, nil
})

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
		if t.Opener != "" {
			fmt.Fprintf(&b, " (opened by %s)", t.Opener)
		}
	}
	return b.String()
}
