package tools

import (
	"context"
	"encoding/json"
)

// StatusIn is browser_status's input: nothing. The recent actions listed
// are those of the caller's session (the one its calls run in when they
// name none).
type StatusIn struct{}

var statusTool = Def(Tool{
	Name:        "browser_status",
	Description: "Backend, browser, sessions, config, recent actions.",
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
	if h.env.Recent != nil {
		// What the session did lately, newest last: an agent whose context
		// was reset picks up from here.
		out["recent_actions"] = map[string]any{"session": h.SessionName(), "actions": h.env.Recent(h.SessionName())}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return &Result{Text: string(b)}, nil
})
