package tools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// SnapshotIn is browser_snapshot's input.
type SnapshotIn struct {
	Mode     string `json:"mode,omitempty" jsonschema:"compact (default), full, interactive (refs and headings only) or diff (changes since the last snapshot)" enum:"compact,full,interactive,diff"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"cap on returned characters (default 20000)"`
	Offset   int    `json:"offset,omitempty" jsonschema:"continue a cut snapshot from this character"`
	Scope    string `json:"scope,omitempty" jsonschema:"only this element's subtree: a ref (e3) or a CSS selector"`
	Session  string `json:"session,omitempty" jsonschema:"agent session (default: this client's)"`
	Tab      string `json:"tab,omitempty" jsonschema:"tab id (default: the session's current tab)"`
}

func (r *registry) snapshot() {
	add(r, &mcp.Tool{
		Name: "browser_snapshot",
		Description: "Show the page as text: one line per element, with refs (e3; f1e3 inside frames) on what can be acted on. " +
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
			t, err := s.ReadyTab(ctx, in.Tab)
			if err != nil {
				return err
			}
			snap, err := s.Snapshot(ctx, t, browser.SnapshotOptions{Mode: in.Mode, MaxChars: in.MaxChars, Offset: in.Offset, Scope: scopeTarget(in.Scope)})
			if err != nil {
				return err
			}
			out = &Result{Text: snap.Text + notes(t)}
			return nil
		})
		return out, err
	})
}

// scopeTarget reads a scope: a ref such as e3 or f1e3, else a CSS selector.
func scopeTarget(scope string) browser.Target {
	scope = strings.TrimSpace(scope)
	if browser.IsRef(scope) {
		return browser.Target{Ref: scope}
	}
	return browser.Target{Selector: scope}
}

// FindIn is browser_find's input.
type FindIn struct {
	Text    string `json:"text,omitempty" jsonschema:"text in the element's name, value or content; /regex/ or /regex/i allowed"`
	Role    string `json:"role,omitempty" jsonschema:"role, e.g. button, link, textbox, heading"`
	Name    string `json:"name,omitempty" jsonschema:"accessible name; /regex/ or /regex/i allowed"`
	Limit   int    `json:"limit,omitempty" jsonschema:"matches shown (default 20)"`
	Session string `json:"session,omitempty" jsonschema:"agent session (default: this client's)"`
	Tab     string `json:"tab,omitempty" jsonschema:"tab id (default: the session's current tab)"`
}

func (r *registry) find() {
	add(r, &mcp.Tool{
		Name:        "browser_find",
		Description: "Search the live page by text, role and/or name; returns matching snapshot lines with refs and where they are, without a whole snapshot.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Find"},
	}, func(ctx context.Context, in FindIn) (*Result, error) {
		if in.Limit < 0 {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "limit must not be negative", Hint: "omit limit for 20 matches"}
		}
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			t, err := s.ReadyTab(ctx, in.Tab)
			if err != nil {
				return err
			}
			text, err := s.Find(ctx, t, browser.FindOptions{Text: in.Text, Role: in.Role, Name: in.Name, Limit: in.Limit})
			if err != nil {
				return err
			}
			out = &Result{Text: text + notes(t)}
			return nil
		})
		return out, err
	})
}
