package tools

import (
	"context"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// LocatorIn names an element: exactly one of ref, selector, text, or role
// (with name), optionally within a container and in a frame.
type LocatorIn struct {
	Ref      string `json:"ref,omitempty"`
	Selector string `json:"selector,omitempty"`
	Text     string `json:"text,omitempty"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Exact    bool   `json:"exact,omitempty"`
	Within   string `json:"within,omitempty"`
	Frame    string `json:"frame,omitempty"`
}

func (tg LocatorIn) target() browser.Locator {
	return browser.Locator{Ref: strings.TrimSpace(tg.Ref), Selector: tg.Selector, Text: tg.Text, Role: strings.TrimSpace(tg.Role),
		Name: tg.Name, Exact: tg.Exact, Within: strings.TrimSpace(tg.Within), Frame: strings.TrimSpace(tg.Frame)}
}

// ActionIn is browser_action's input.
type ActionIn struct {
	Action string `json:"action" enum:"click,dblclick,right_click,hover,focus,check,uncheck,type,fill,clear,select,press,scroll,upload,drag"`
	LocatorIn
	Value      string          `json:"value,omitempty" jsonschema:"fill/type text"`
	Secret     string          `json:"secret,omitempty" jsonschema:"secret name, not value"`
	Values     []string        `json:"values,omitempty" jsonschema:"select: option values or labels"`
	Key        string          `json:"key,omitempty" jsonschema:"press: key or combo, e.g. Control+A"`
	Direction  string          `json:"direction,omitempty" enum:"up,down,left,right,top,bottom"`
	Files      []string        `json:"files,omitempty" jsonschema:"upload: file paths"`
	ToRef      string          `json:"to_ref,omitempty" jsonschema:"drag: onto this ref"`
	ToSelector string          `json:"to_selector,omitempty" jsonschema:"drag: onto this selector"`
	Expect     *browser.Expect `json:"expect,omitempty" jsonschema:"must hold afterwards: text, selector, url, title"`
	InputMode  string          `json:"input_mode,omitempty" jsonschema:"auto: DOM events if invisible" enum:"auto,cdp,dom"`
	Snapshot   string          `json:"snapshot,omitempty" enum:"none,diff,compact"`
	Session    string          `json:"session,omitempty"`
	Tab        string          `json:"tab,omitempty"`
	TimeoutMs  int             `json:"timeout_ms,omitempty" minimum:"1" maximum:"120000"`
}

// Check refuses arguments that belong to another action.
func (in ActionIn) Check() error {
	if len(in.Files) > 0 && in.Action != "upload" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no files", Hint: "files are for upload"}
	}
	if (in.ToRef != "" || in.ToSelector != "") && in.Action != "drag" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no drop target", Hint: "to_ref and to_selector are for drag"}
	}
	if in.ToRef != "" && in.ToSelector != "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "give to_ref or to_selector, not both"}
	}
	if in.Key != "" && in.Action != "press" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no key", Hint: `use {"action":"press","key":"Enter"} for keys`}
	}
	if in.Action == "press" && in.Value != "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "press takes key, not value", Hint: `use {"action":"type","value":"text"} to type text`}
	}
	if len(in.Values) > 0 && in.Action != "select" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no values", Hint: "values are for select"}
	}
	if in.Direction != "" && in.Action != "scroll" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no direction", Hint: "direction is for scroll"}
	}
	if in.Secret != "" && in.Action != "fill" && in.Action != "type" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " takes no secret", Hint: "secret is for fill and type"}
	}
	if (in.Action == "fill" || in.Action == "type") && in.Value == "" && in.Secret == "" {
		// Filling "" would report a verified empty field: a no-op or a
		// value that went missing on the way.
		hint := `give the text as value (or a declared secret as secret); to empty a field use {"action":"clear"}`
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: in.Action + " needs a value", Hint: hint}
	}
	if in.Secret != "" && in.Value != "" {
		return &browser.Error{Code: browser.CodeInvalidArgument, Message: "give value or secret, not both",
			Hint: "secret names a value the user declared; value is text you write yourself"}
	}
	return nil
}

var actionTool = Def(Tool{
	Name:        "browser_action",
	Description: "Act on an element as a user would, once it is actionable; returns the outcome and a diff.",
	Annotations: Annotations{Destructive: ptr(true), OpenWorld: ptr(true)},
	Group:       GroupCore,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in ActionIn) (*Result, error) {
	a := browser.Action{Kind: in.Action, Target: in.target(), Value: in.Value, Values: in.Values, Key: in.Key,
		Direction: in.Direction, Files: in.Files, To: browser.Locator{Ref: strings.TrimSpace(in.ToRef), Selector: in.ToSelector},
		Expect: in.Expect, InputMode: in.InputMode, Timeout: timeout(in.TimeoutMs), SnapshotNext: inlineMode(in.Snapshot) != "none"}
	if in.Action == "upload" {
		a.Roots = h.Roots(ctx)
	}
	if in.Secret != "" {
		sec, err := h.Secret(in.Secret)
		if err != nil {
			return nil, err
		}
		a.Value, a.Guard = sec.Value, sec.Check
	}
	if in.Expect != nil && *in.Expect == (browser.Expect{}) {
		a.Expect = nil
	}
	res, err := h.Act(ctx, a)
	if err != nil {
		return nil, err
	}
	text := describeAction(in, res)
	return &Result{Text: text.String(), Notes: text.notes, Dialog: res.Dialog, Snapshot: inlineMode(in.Snapshot)}, nil
})

// inlineMode is the inline snapshot after an action: diff unless asked.
func inlineMode(mode string) string {
	if mode == "" {
		return browser.ModeDiff
	}
	return mode
}

func describeAction(in ActionIn, res *browser.ActionResult) *resultText {
	b := &resultText{}
	b.printf("%s", in.Action)
	switch {
	case res.Ref != "":
		b.printf(" %s", res.Ref)
		if res.MatchLevel != "" && res.MatchLevel != "exact" {
			b.printf(" (%s)", res.MatchLevel)
		}
	case !in.target().Empty():
		b.printf(" %s", browser.Echo(in.target().Describe()))
	}
	if in.Action == "press" {
		b.printf(" %s", browser.Echo(in.Key))
	}
	// The input mode is said when it is not the usual trusted (cdp) input.
	b.printf(": %s", res.Outcome)
	if res.InputMode != "" && res.InputMode != browser.InputCDP {
		b.printf(" (%s input)", res.InputMode)
	}
	switch in.Action {
	case "fill", "type", "clear":
		if res.Value != "" || res.Outcome == "verified" {
			b.printf("; value %q", browser.Echo(res.Value))
		}
	case "select":
		b.printf("; selected %q", browser.Echo(res.Value))
	case "upload":
		b.printf("; the input holds %s", browser.Echo(res.Value))
	}
	if res.ExpectMet {
		b.printf("; expect met")
	}
	actionNotes(b, res)
	return b
}

// actionNotes are the notes of an action's result: expect, navigation,
// downloads, console errors, notes, new tabs.
func actionNotes(b *resultText, res *browser.ActionResult) {
	if res.ExpectFailed != "" {
		b.note("Expect NOT met: %s", browser.Echo(res.ExpectFailed))
	}
	if res.Navigated {
		b.note("Navigated to %s — %q", res.URL, res.Title)
	}
	inputNotes(b, res.Downloads, res.ConsoleErrors, res.ConsoleErrorCount, res.Note)
	newTabNotes(b, res.NewTabs)
}

// inputNotes are the notes of what an input set off beside its page (an
// action's, a form fill's): downloads, console errors, the note.
func inputNotes(b *resultText, downloads []browser.Download, errs []browser.ConsoleEntry, n int, note string) {
	for _, d := range downloads {
		b.note("Download: %s", d.String())
	}
	consoleText(b, errs, n)
	if note != "" {
		b.note("Note: %s", note)
	}
}

// newTabNotes are the notes of the tabs an input opened.
func newTabNotes(b *resultText, tabs []browser.TabView) {
	for _, t := range tabs {
		if t.Loading {
			b.note("Opened tab %s: %s — still loading its first page; it joins the session once that is in (browser_tabs select %s waits for it)", t.ID, t.URL, t.ID)
			continue
		}
		b.note("Opened tab %s: %s — %q (joined the session; browser_tabs select to switch)", t.ID, t.URL, t.Title)
	}
}

// consoleText lists the console errors an action caused; its first line
// is a note.
func consoleText(b *resultText, errs []browser.ConsoleEntry, n int) {
	if n == 0 {
		return
	}
	b.note("Console errors (%d):", n)
	for _, e := range errs {
		b.printf("\n- %s", e.String())
	}
	if n > len(errs) {
		b.printf("\n- … %d more", n-len(errs))
	}
}
