package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// DialogIn is browser_dialog's input.
type DialogIn struct {
	Action  string  `json:"action" jsonschema:"accept (OK) or dismiss (Cancel)" enum:"accept,dismiss"`
	Text    *string `json:"text,omitempty" jsonschema:"prompt answer"`
	Session string  `json:"session,omitempty" jsonschema:"agent session"`
	Tab     string  `json:"tab,omitempty" jsonschema:"tab id (default: current)"`
}

func (r *registry) dialog() {
	add(r, &mcp.Tool{
		Name:        "browser_dialog",
		Description: "Answer the page's open dialog (alert, confirm, prompt, leave page).",
		Annotations: &mcp.ToolAnnotations{Title: "Answer dialog", DestructiveHint: ptr(true)},
	}, func(ctx context.Context, in DialogIn) (*Result, error) {
		s := r.session(in.Session)
		var out *Result
		err := s.Do(ctx, func(ctx context.Context) error {
			t, err := s.Tab(ctx, in.Tab)
			if err != nil {
				return err
			}
			d, err := s.AnswerDialog(ctx, t, in.Action == "accept", in.Text)
			if err != nil {
				return err
			}
			verb := "Dismissed"
			if in.Action == "accept" {
				verb = "Accepted"
			}
			text := fmt.Sprintf("%s the %s dialog %q", verb, d.Type, d.Message)
			if in.Text != nil && in.Action == "accept" {
				text += fmt.Sprintf(" with %q", *in.Text)
			}
			out = &Result{Text: text + "." + notes(t)}
			return nil
		})
		return out, err
	})
}

// dialogText tells the agent about a dialog an action opened.
func dialogText(d *browser.DialogView) string {
	return fmt.Sprintf("\nA %s dialog opened and waits for an answer: %q. Answer it with browser_dialog (accept or dismiss); until then other calls report DIALOG_OPEN.", d.Type, d.Message)
}
