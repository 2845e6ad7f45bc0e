package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// FieldIn is one field of browser_fill_form.
type FieldIn struct {
	LocatorIn
	Value  string   `json:"value,omitempty" jsonschema:"checkbox/radio: true or false"`
	Secret string   `json:"secret,omitempty" jsonschema:"secret name, not value"`
	Values []string `json:"values,omitempty" jsonschema:"options or files"`
	Type   string   `json:"type,omitempty" jsonschema:"default: the element's" enum:"textbox,checkbox,radio,select,date,file"`
}

// FillFormIn is browser_fill_form's input.
type FillFormIn struct {
	Fields   []FieldIn `json:"fields" jsonschema:"each a target with value, secret or values"`
	Submit   string    `json:"submit,omitempty" jsonschema:"form: requestSubmit; event: Enter key" enum:"none,form,event,both"`
	Snapshot string    `json:"snapshot,omitempty" enum:"none,diff,compact"`
	Session  string    `json:"session,omitempty"`
	Tab      string    `json:"tab,omitempty"`
}

var fillFormTool = Def(Tool{
	Name:        "browser_fill_form",
	Description: "Fill many fields in one call, each read back; stops at a failure; optionally submits.",
	Annotations: Annotations{Destructive: ptr(true), OpenWorld: ptr(true)},
	Group:       GroupForms,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in FillFormIn) (*Result, error) {
	f := browser.FormFill{Submit: in.Submit}
	for i, fd := range in.Fields {
		ff := browser.FormField{Target: fd.target(), Value: fd.Value, Values: fd.Values, Type: fd.Type}
		if fd.Secret != "" {
			if fd.Value != "" {
				return nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: fmt.Sprintf("field %d: give value or secret, not both", i+1),
					Hint: "secret names a value the user declared; value is text you write yourself"}
			}
			sec, err := h.Secret(fd.Secret)
			if err != nil {
				return nil, err
			}
			ff.Value, ff.Guard = sec.Value, sec.Check
		}
		f.Fields = append(f.Fields, ff)
	}
	f.Roots = func() []string { return h.Roots(ctx) }
	res, err := h.FillForm(ctx, f)
	if err != nil {
		return nil, err
	}
	text := describeForm(res)
	if res.Dialog != nil {
		if res.Stopped != "" {
			stopped := fmt.Sprintf("Stopped at %s when the dialog opened", res.Stopped)
			if len(res.Skipped) > 0 {
				stopped += "; not filled: " + strings.Join(res.Skipped, ", ")
			}
			text.note("%s", stopped)
		}
		if in.Submit != "" && in.Submit != "none" && !res.Submitted {
			text.note("The form was not submitted.")
		}
	}
	return &Result{Text: text.String(), Notes: text.notes, Dialog: res.Dialog, Snapshot: inlineMode(in.Snapshot)}, nil
})

// describeForm is the text of a form fill's result: the fields as they
// read back, the submit, and what it set off (as an action's: inputNotes).
func describeForm(res *browser.FormResult) *resultText {
	b := &resultText{}
	b.printf("Filled %d field(s), each read back:", len(res.Completed))
	for _, c := range res.Completed {
		name := c.Ref
		if name == "" {
			name = c.Field
		}
		b.printf("\n- %s = %q", browser.Echo(name), browser.Echo(c.Value))
	}
	switch {
	case res.Submit == browser.SubmitNone:
	case res.SubmitVerified:
		b.printf("\nSubmitted (%s): verified", res.Submit)
	case res.Submitted:
		b.printf("\nSubmitted (%s): sent, but no submit event or navigation was seen", res.Submit)
	}
	if res.Navigated {
		b.note("Navigated: %s → %s — %q", res.URLBefore, res.URLAfter, res.Title)
	}
	inputNotes(b, res.Downloads, res.ConsoleErrors, res.ConsoleErrorCount, res.Note)
	newTabNotes(b, res.NewTabs)
	return b
}
