package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// ActionIn is browser_action's input.
type ActionIn struct {
	Action    string `json:"action" jsonschema:"what to do" enum:"click,fill,type,press"`
	Ref       string `json:"ref,omitempty" jsonschema:"target element by ref from browser_snapshot (e.g. e3)"`
	Selector  string `json:"selector,omitempty" jsonschema:"target element by CSS selector (must match exactly one)"`
	Value     string `json:"value,omitempty" jsonschema:"text for fill (replaces) or type (appends, as key presses)"`
	Key       string `json:"key,omitempty" jsonschema:"key for press, e.g. Enter, Tab, ArrowDown, Control+A"`
	Snapshot  string `json:"snapshot,omitempty" jsonschema:"what to return afterwards: diff (default), compact or none" enum:"none,diff,compact"`
	Session   string `json:"session,omitempty" jsonschema:"agent session (default: this client's)"`
	Tab       string `json:"tab,omitempty" jsonschema:"tab id (default: the session's current tab)"`
	TimeoutMs int    `json:"timeout_ms,omitempty" jsonschema:"how long to wait for the element to be actionable, in ms (default 10000)"`
}

func (r *registry) action() {
	add(r, &mcp.Tool{
		Name: "browser_action",
		Description: "Act on the page like a user: click, fill (replace a field's value, verified), type (key presses) or press a key. " +
			"Target by ref (from browser_snapshot) or CSS selector. Waits until the element is actionable; returns what changed.",
		Annotations: &mcp.ToolAnnotations{Title: "Act", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, func(ctx context.Context, in ActionIn) (*Result, error) {
		a := browser.Action{Kind: in.Action, Target: browser.Target{Ref: in.Ref, Selector: in.Selector},
			Value: in.Value, Key: in.Key, Timeout: timeout(in.TimeoutMs)}
		switch in.Action {
		case "fill", "type":
			if in.Key != "" {
				return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes value, not key", Hint: `use {"action":"press","key":"Enter"} for keys`}
			}
		case "press":
			if in.Value != "" {
				return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "press takes key, not value", Hint: `use {"action":"type","value":"text"} to type text`}
			}
		}
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			t, err := s.Tab(ctx, in.Tab)
			if err != nil {
				return err
			}
			res, err := s.Act(ctx, t, a)
			if err != nil {
				return err
			}
			mode := in.Snapshot
			if mode == "" {
				mode = browser.ModeDiff
			}
			out = &Result{Text: describeAction(in, res) + notes(t) + inlineSnapshot(ctx, s, t, mode)}
			return nil
		})
		return out, err
	})
}

func describeAction(in ActionIn, res *browser.ActionResult) string {
	var b strings.Builder
	b.WriteString(in.Action)
	switch {
	case res.Ref != "":
		b.WriteString(" " + res.Ref)
	case in.Selector != "":
		fmt.Fprintf(&b, " %q", in.Selector)
	}
	if in.Action == "press" {
		b.WriteString(" " + in.Key)
	}
	fmt.Fprintf(&b, ": %s (%s input)", res.Outcome, res.InputMode)
	if in.Action == "fill" || in.Action == "type" {
		if res.Value != "" || res.Outcome == "verified" {
			fmt.Fprintf(&b, "; value now %q", res.Value)
		}
	}
	if res.Navigated {
		fmt.Fprintf(&b, "\nNavigated to %s — %q", res.URL, res.Title)
	}
	if res.Note != "" {
		b.WriteString("\nNote: " + res.Note)
	}
	for _, t := range res.NewTabs {
		fmt.Fprintf(&b, "\nOpened tab %s: %s — %q (joined the session; browser_tabs select to switch)", t.ID, t.URL, t.Title)
	}
	return b.String()
}
