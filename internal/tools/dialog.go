package tools

import (
	"context"
	"fmt"
)

// DialogIn is browser_dialog's input.
type DialogIn struct {
	Action  string  `json:"action" jsonschema:"accept (OK) or dismiss (Cancel)" enum:"accept,dismiss"`
	Text    *string `json:"text,omitempty" jsonschema:"prompt answer"`
	Session string  `json:"session,omitempty"`
	Tab     string  `json:"tab,omitempty"`
}

var dialogTool = Def(Tool{
	Name:        "browser_dialog",
	Description: "Answer the page's open dialog (alert, confirm, prompt, leave page).",
	Annotations: Annotations{Destructive: ptr(true)},
	Group:       GroupDialogs,
	Hold:        HoldTabAsIs,
}, func(ctx context.Context, h *Held, in DialogIn) (*Result, error) {
	d, err := h.Dialogs().Answer(ctx, in.Action == "accept", in.Text)
	if err != nil {
		return nil, err
	}
	verb := "Dismissed"
	if in.Action == "accept" {
		verb = "Accepted"
	}
	text := fmt.Sprintf("%s the %s dialog %q", verb, d.Type, d.Message)
	if in.Text != nil && in.Action == "accept" {
		text += fmt.Sprintf(" with %q", *in.Text)
	}
	return &Result{Text: text + "."}, nil
})
