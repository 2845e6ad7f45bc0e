package tools

import (
	"context"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// SnapshotIn is browser_snapshot's input.
type SnapshotIn struct {
	Mode     string `json:"mode,omitempty" jsonschema:"interactive: refs only; diff: changes" enum:"compact,full,interactive,diff"`
	MaxChars int    `json:"max_chars,omitempty" minimum:"1" maximum:"1000000"`
	Offset   int    `json:"offset,omitempty" minimum:"0" maximum:"10000000"`
	Scope    string `json:"scope,omitempty" jsonschema:"subtree: ref or selector"`
	Session  string `json:"session,omitempty"`
	Tab      string `json:"tab,omitempty"`
}

// Check refuses negative numbers.
func (in SnapshotIn) Check() error {
	if in.MaxChars < 0 || in.Offset < 0 {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "max_chars and offset must not be negative",
			Hint: "omit max_chars for the default (20000); offset comes from a cut snapshot's continuation line"}
	}
	return nil
}

var snapshotTool = Def(Tool{
	Name:        "browser_snapshot",
	Description: "The page as text, with refs (e3) on what can be acted on.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupCore,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in SnapshotIn) (*Result, error) {
	if in.MaxChars == 0 {
		in.MaxChars = SnapshotMaxChars
	}
	snap, err := h.Snapshot(ctx, browser.SnapshotOptions{Mode: in.Mode, MaxChars: in.MaxChars, Offset: in.Offset, Scope: scopeLocator(in.Scope)})
	if err != nil {
		return nil, err
	}
	// (what waits for a person: the server leads the result with a note)
	return &Result{Text: snap.Text, Human: snap.Human}, nil
})

// scopeLocator reads a scope: a ref such as e3 or f1e3, else a CSS selector.
func scopeLocator(scope string) browser.Locator {
	scope = strings.TrimSpace(scope)
	if browser.IsRef(scope) {
		return browser.Locator{Ref: scope}
	}
	return browser.Locator{Selector: scope}
}

// FindIn is browser_find's input.
type FindIn struct {
	Text    string `json:"text,omitempty"`
	Role    string `json:"role,omitempty"`
	Name    string `json:"name,omitempty"`
	Limit   int    `json:"limit,omitempty" default:"20" minimum:"1" maximum:"1000"`
	Within  string `json:"within,omitempty"`
	Session string `json:"session,omitempty"`
	Tab     string `json:"tab,omitempty"`
}

// Check refuses a negative limit.
func (in FindIn) Check() error {
	if in.Limit < 0 {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "limit must not be negative", Hint: "omit limit for 20 matches"}
	}
	return nil
}

var findTool = Def(Tool{
	Name:        "browser_find",
	Description: "Find elements by text, role or name: their snapshot lines with refs.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupCore,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in FindIn) (*Result, error) {
	text, err := h.Find(ctx, browser.FindOptions{Text: in.Text, Role: in.Role, Name: in.Name, Limit: in.Limit, Within: in.Within})
	if err != nil {
		return nil, err
	}
	return &Result{Text: text}, nil
})
