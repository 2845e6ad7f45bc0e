package tools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// SnapshotIn is browser_snapshot's input.
type SnapshotIn struct {
	Mode     string `json:"mode,omitempty" jsonschema:"default compact; interactive: refs only; diff: changes" enum:"compact,full,interactive,diff"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"default 20000" minimum:"1" maximum:"1000000"`
	Offset   int    `json:"offset,omitempty" jsonschema:"continue a cut snapshot here" minimum:"0" maximum:"10000000"`
	Scope    string `json:"scope,omitempty" jsonschema:"subtree: ref or selector"`
	Session  string `json:"session,omitempty" jsonschema:"agent session"`
	Tab      string `json:"tab,omitempty" jsonschema:"tab id (default: current)"`
}

func (r *registry) snapshot() {
	add(r, &mcp.Tool{
		Name:        "browser_snapshot",
		Description: "The page as text, with refs (e3) on what can be acted on. Long pages continue with offset.",
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
	Text    string `json:"text,omitempty" jsonschema:"text (/re/i ok)"`
	Role    string `json:"role,omitempty" jsonschema:"role, e.g. button"`
	Name    string `json:"name,omitempty" jsonschema:"accessible name (/re/i ok)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 20" minimum:"1" maximum:"1000"`
	Session string `json:"session,omitempty" jsonschema:"agent session"`
	Tab     string `json:"tab,omitempty" jsonschema:"tab id (default: current)"`
}

func (r *registry) find() {
	add(r, &mcp.Tool{
		Name:        "browser_find",
		Description: "Find elements by text, role and/or name: their snapshot lines with refs, without a whole snapshot.",
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
