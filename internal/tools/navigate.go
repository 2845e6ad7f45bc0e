package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// NavigateIn is browser_navigate's input.
type NavigateIn struct {
	URL       string `json:"url,omitempty" jsonschema:"URL to open"`
	Go        string `json:"go,omitempty" jsonschema:"instead of url" enum:"back,forward,reload"`
	Snapshot  string `json:"snapshot,omitempty" jsonschema:"returned after loading" enum:"none,compact,diff"`
	Session   string `json:"session,omitempty" jsonschema:"agent session"`
	Tab       string `json:"tab,omitempty" jsonschema:"tab id (default: current)"`
	TimeoutMs int    `json:"timeout_ms,omitempty" jsonschema:"ms" minimum:"1" maximum:"120000"`
}

func (r *registry) navigate() {
	add(r, &mcp.Tool{
		Name:        "browser_navigate",
		Description: "Open a URL (or go back, forward, reload) and wait for the load; returns status, title and a snapshot.",
		Annotations: &mcp.ToolAnnotations{Title: "Navigate", OpenWorldHint: ptr(true), DestructiveHint: ptr(false)},
	}, func(ctx context.Context, in NavigateIn) (*Result, error) {
		if (in.URL == "") == (in.Go == "") {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "pass exactly one of url or go",
				Hint: `{"url": "https://example.com"} or {"go": "back"}`}
		}
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			t, err := s.ReadyTab(ctx, in.Tab)
			cleared := ""
			if be, ok := browser.AsError(err); ok && be.Code == browser.CodeOriginBlocked {
				// The tab showed a refused page and was cleared: going
				// elsewhere is what the agent asks anyway.
				cleared = "\nNote: " + be.Message + "; webpilot cleared it."
				t, err = s.Tab(ctx, in.Tab)
			}
			if err != nil {
				return err
			}
			var nav browser.NavResult
			if in.URL != "" {
				nav, err = s.Navigate(ctx, t, in.URL, timeout(in.TimeoutMs))
			} else {
				nav, err = s.History(ctx, t, in.Go, timeout(in.TimeoutMs))
			}
			if err != nil {
				return err
			}
			text := fmt.Sprintf("Loaded %s — %q", browser.Echo(nav.URL), browser.Echo(nav.Title))
			if nav.Status != 0 {
				text += fmt.Sprintf(" (HTTP %d)", nav.Status)
			}
			mode := in.Snapshot
			if mode == "" {
				mode = browser.ModeCompact
			}
			out = &Result{Text: text + cleared + notes(t) + inlineSnapshot(ctx, s, t, mode)}
			return nil
		})
		return out, err
	})
}
