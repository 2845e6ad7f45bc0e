package tools

import (
	"context"
	"fmt"
)

// CloseIn is browser_close's input.
type CloseIn struct {
	Session string `json:"session,omitempty"`
}

var closeTool = Def(Tool{
	Name:        "browser_close",
	Description: "Close the tabs this session opened.",
	Annotations: Annotations{Destructive: ptr(true), Idempotent: true},
	Group:       GroupCore,
	Hold:        HoldExistingSession,
}, func(ctx context.Context, h *Held, _ CloseIn) (*Result, error) {
	if !h.Exists() {
		return &Result{Text: fmt.Sprintf("Session %q has no tabs; nothing to close.", h.SessionName())}, nil
	}
	n, bound := len(h.Tabs().IDs()), 0
	if tabs, err := h.Tabs().List(ctx); err == nil {
		for _, t := range tabs {
			if t.Bound {
				bound++
			}
		}
	}
	if err := h.Tabs().CloseAll(ctx); err != nil {
		return nil, err
	}
	text := fmt.Sprintf("Closed %d tab(s) of session %q.", n-bound, h.SessionName())
	if bound > 0 {
		text += fmt.Sprintf(" Released %d bound tab(s) of the user: detached, left open.", bound)
	}
	return &Result{Text: text}, nil
})
