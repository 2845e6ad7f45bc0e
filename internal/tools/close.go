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
	n := len(h.TabIDs())
	if err := h.CloseTabs(ctx); err != nil {
		return nil, err
	}
	return &Result{Text: fmt.Sprintf("Closed %d tab(s) of session %q.", n, h.SessionName())}, nil
})
