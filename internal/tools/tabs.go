package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// TabsIn is browser_tabs's input.
type TabsIn struct {
	Action  string `json:"action" jsonschema:"what to do" enum:"list,new,select,close"`
	Tab     string `json:"tab,omitempty" jsonschema:"tab id, t1, t2, … (select, close)"`
	Match   string `json:"match,omitempty" jsonschema:"select: part of the tab's URL or title, or /regex/ (instead of tab)"`
	URL     string `json:"url,omitempty" jsonschema:"new: URL to open"`
	Session string `json:"session,omitempty" jsonschema:"agent session"`
}

func (r *registry) tabs() {
	add(r, &mcp.Tool{
		Name:        "browser_tabs",
		Description: "List, open, select or close the session's tabs (popups join it).",
		Annotations: &mcp.ToolAnnotations{Title: "Tabs", DestructiveHint: ptr(true)},
	}, func(ctx context.Context, in TabsIn) (*Result, error) {
		switch in.Action {
		case "select":
			if (in.Tab == "") == (in.Match == "") {
				return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "select needs tab or match (one of them)", Hint: "tab is an id from browser_tabs list (t1, t2, …); match is part of the tab's URL or title, or /regex/"}
			}
		case "new", "list", "close":
			if in.Match != "" {
				return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "match goes with action select", Hint: "browser_tabs select with match picks a tab by URL or title"}
			}
		}
		if in.URL != "" && in.Action != "new" {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "url goes with action new", Hint: "use browser_navigate to load a URL in an existing tab"}
		}
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			switch in.Action {
			case "new":
				t, err := s.NewTab(ctx)
				if err != nil {
					return err
				}
				text := fmt.Sprintf("Opened tab %s (now current).", t.ID)
				if in.URL != "" {
					nav, err := s.Navigate(ctx, t, in.URL, 0)
					if err != nil {
						return err
					}
					text = fmt.Sprintf("Opened tab %s (now current): %s — %q", t.ID, nav.URL, nav.Title)
					text += notes(t) + inlineSnapshot(ctx, s, t, browser.ModeCompact)
				}
				out = &Result{Text: text}
				return nil
			case "select":
				var t *browser.Tab
				var err error
				if in.Match != "" {
					t, err = s.SelectTabMatching(ctx, in.Match)
				} else {
					t, err = s.SelectTab(ctx, in.Tab)
				}
				if err != nil {
					return err
				}
				out = &Result{Text: fmt.Sprintf("Tab %s is current.", t.ID) + notes(t)}
				return nil
			case "close":
				id := in.Tab
				if id == "" {
					t, err := s.CurrentTab(ctx)
					if err != nil {
						return err
					}
					id = t.ID
				}
				if err := s.CloseTab(ctx, id); err != nil {
					return err
				}
				out = &Result{Text: fmt.Sprintf("Closed tab %s.", id)}
				return nil
			}
			tabs, err := s.ListTabs(ctx)
			if err != nil {
				return err
			}
			out = &Result{Text: renderTabs(s.Name(), tabs)}
			return nil
		})
		return out, err
	})
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
		if t.Opener != "" {
			fmt.Fprintf(&b, " (opened by %s)", t.Opener)
		}
	}
	return b.String()
}
