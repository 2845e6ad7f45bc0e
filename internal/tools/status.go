package tools

import (
	"context"
	"encoding/json"
)

// StatusIn is browser_status's input: nothing.
type StatusIn struct{}

var statusTool = Def(Tool{
	Name:        "browser_status",
	Description: "webpilot's backend, browser, sessions and configuration.",
	Annotations: Annotations{ReadOnly: true},
	Group:       GroupCore,
	Hold:        HoldNothing,
}, func(ctx context.Context, h *Held, _ StatusIn) (*Result, error) {
	out := map[string]any{
		"backend":  h.BackendInfo(),
		"sessions": h.SessionNames(),
	}
	for k, v := range h.Status() {
		out[k] = v
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return &Result{Text: string(b)}, nil
})
