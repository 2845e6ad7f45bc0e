package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// TargetIn names an element: exactly one of ref, selector, text, or role
// (with name), optionally within a container and in a frame.
type TargetIn struct {
	Ref      string `json:"ref,omitempty" jsonschema:"element ref from browser_snapshot (e.g. e3, f1e2)"`
	Selector string `json:"selector,omitempty" jsonschema:"CSS selector (must match one element)"`
	Text     string `json:"text,omitempty" jsonschema:"visible text of the element (substring, case-insensitive; /re/ allowed)"`
	Role     string `json:"role,omitempty" jsonschema:"ARIA role, e.g. button, link, textbox, checkbox"`
	Name     string `json:"name,omitempty" jsonschema:"with role: accessible name (substring; /re/ allowed)"`
	Exact    bool   `json:"exact,omitempty" jsonschema:"text or name must match whole, case-sensitive"`
	Within   string `json:"within,omitempty" jsonschema:"only inside this element: a ref or CSS selector"`
	Frame    string `json:"frame,omitempty" jsonschema:"inside this iframe: its ref or CSS selector"`
}

func (tg TargetIn) target() browser.Target {
	return browser.Target{Ref: strings.TrimSpace(tg.Ref), Selector: tg.Selector, Text: tg.Text, Role: strings.TrimSpace(tg.Role),
		Name: tg.Name, Exact: tg.Exact, Within: strings.TrimSpace(tg.Within), Frame: strings.TrimSpace(tg.Frame)}
}

// ActionIn is browser_action's input.
type ActionIn struct {
	Action string `json:"action" jsonschema:"what to do" enum:"click,dblclick,right_click,hover,focus,check,uncheck,type,fill,clear,select,press,scroll"`
	TargetIn
	Value     string          `json:"value,omitempty" jsonschema:"text for fill (replaces, verified) or type (appends, as key presses)"`
	Values    []string        `json:"values,omitempty" jsonschema:"select: option values or labels (several for a multiple select)"`
	Key       string          `json:"key,omitempty" jsonschema:"press: a key or combo, e.g. Enter, Tab, Control+A"`
	Direction string          `json:"direction,omitempty" jsonschema:"scroll: the page, or the target container" enum:"up,down,left,right,top,bottom"`
	Expect    *browser.Expect `json:"expect,omitempty" jsonschema:"what should hold afterwards (text, selector, url, title); met makes the outcome verified"`
	Snapshot  string          `json:"snapshot,omitempty" jsonschema:"what to return afterwards: diff (default), compact or none" enum:"none,diff,compact"`
	Session   string          `json:"session,omitempty" jsonschema:"agent session (default: this client's)"`
	Tab       string          `json:"tab,omitempty" jsonschema:"tab id (default: the session's current tab)"`
	TimeoutMs int             `json:"timeout_ms,omitempty" jsonschema:"how long to wait for the element to be actionable, in ms (default 10000)"`
}

func (r *registry) action() {
	add(r, &mcp.Tool{
		Name: "browser_action",
		Description: "Act on the page like a user, with trusted input: click, dblclick, right_click, hover, focus, check/uncheck, " +
			"fill/clear (verified), type (key presses), select options, press a key, scroll. Target by ref (from browser_snapshot), " +
			"selector, text, or role+name. Waits until the element is actionable; returns what changed.",
		Annotations: &mcp.ToolAnnotations{Title: "Act", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, func(ctx context.Context, in ActionIn) (*Result, error) {
		a := browser.Action{Kind: in.Action, Target: in.target(), Value: in.Value, Values: in.Values, Key: in.Key,
			Direction: in.Direction, Expect: in.Expect, Timeout: timeout(in.TimeoutMs)}
		if in.Expect != nil && *in.Expect == (browser.Expect{}) {
			a.Expect = nil
		}
		if in.Key != "" && in.Action != "press" {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no key", Hint: `use {"action":"press","key":"Enter"} for keys`}
		}
		if in.Action == "press" && in.Value != "" {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "press takes key, not value", Hint: `use {"action":"type","value":"text"} to type text`}
		}
		if len(in.Values) > 0 && in.Action != "select" {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no values", Hint: "values are for select"}
		}
		if in.Direction != "" && in.Action != "scroll" {
			return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no direction", Hint: "direction is for scroll"}
		}
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			t, err := s.ReadyTab(ctx, in.Tab)
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
			if res.Dialog != nil {
				out = &Result{Text: describeAction(in, res) + notes(t) + dialogText(res.Dialog)}
				return nil
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
		if res.MatchLevel != "" && res.MatchLevel != "exact" {
			b.WriteString(" (" + res.MatchLevel + ")")
		}
	case !in.target().Empty():
		b.WriteString(" " + in.target().Describe())
	}
	if in.Action == "press" {
		b.WriteString(" " + in.Key)
	}
	fmt.Fprintf(&b, ": %s (%s input)", res.Outcome, res.InputMode)
	switch in.Action {
	case "fill", "type", "clear":
		if res.Value != "" || res.Outcome == "verified" {
			fmt.Fprintf(&b, "; value now %q", res.Value)
		}
	case "select":
		fmt.Fprintf(&b, "; selected %q", res.Value)
	}
	if res.ExpectMet {
		b.WriteString("; expect met")
	}
	if res.ExpectFailed != "" {
		b.WriteString("\nExpect NOT met: " + res.ExpectFailed)
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
