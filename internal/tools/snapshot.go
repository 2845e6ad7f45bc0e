package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// SnapshotIn is browser_snapshot's input.
type SnapshotIn struct {
	Mode     string `json:"mode,omitempty" jsonschema:"compact (default), full, interactive (refs and headings only) or diff (changes since the last snapshot)" enum:"compact,full,interactive,diff"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"cap on returned characters (default 20000)"`
	Offset   int    `json:"offset,omitempty" jsonschema:"continue a cut snapshot from this character"`
	Session  string `json:"session,omitempty" jsonschema:"agent session (default: this client's)"`
	Tab      string `json:"tab,omitempty" jsonschema:"tab id (default: the session's current tab)"`
}

func (r *registry) snapshot() {
	add(r, &mcp.Tool{
		Name: "browser_snapshot",
		Description: "Show the page as text: one line per element, with refs (e3) on what can be acted on. " +
			"Use a ref with browser_action. Long pages are cut with an offset to continue.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Snapshot"},
	}, func(ctx context.Context, in SnapshotIn) (*Result, error) {
		if in.MaxChars < 0 || in.Offset < 0 {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "max_chars and offset must not be negative",
				Hint: "omit max_chars for the default (20000); offset comes from a cut snapshot's continuation line"}
		}
		if in.MaxChars == 0 {
			in.MaxChars = SnapshotMaxChars
		}
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			t, err := s.Tab(ctx, in.Tab)
			if err != nil {
				return err
			}
			snap, err := s.Snapshot(ctx, t, browser.SnapshotOptions{Mode: in.Mode, MaxChars: in.MaxChars, Offset: in.Offset})
			if err != nil {
				return err
			}
			out = &Result{Text: snap.Text + notes(t)}
			return nil
		})
		return out, err
	})
}
