package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// CDPIn is browser_cdp's input.
type CDPIn struct {
	Method  string         `json:"method" jsonschema:"Domain.method, e.g. DOM.getDocument"`
	Params  map[string]any `json:"params,omitempty" jsonschema:"the command's parameters"`
	Session string         `json:"session,omitempty"`
	Tab     string         `json:"tab,omitempty"`
}

var cdpTool = Def(Tool{
	Name:        "browser_cdp",
	Description: "Send one raw Chrome DevTools Protocol command to the tab (allow-listed domains); returns its result as JSON.",
	Annotations: Annotations{Destructive: ptr(true), OpenWorld: ptr(true)},
	Group:       GroupCDP,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in CDPIn) (*Result, error) {
	var params json.RawMessage
	if in.Params != nil {
		b, err := json.Marshal(in.Params)
		if err != nil {
			return nil, fmt.Errorf("browser_cdp: encoding params: %w", err)
		}
		params = b
	}
	res, err := h.RawCDP(ctx, in.Method, params, h.Roots(ctx))
	if err != nil {
		return nil, err
	}
	text := &resultText{}
	text.printf("%s on %s\n%s", in.Method, res.URL, res.JSON)
	if res.Path != "" {
		text.note("Note: the result is %d characters; the first %d are shown, the whole is saved to %s.", res.Total, len(res.JSON), res.Path)
	}
	return &Result{Text: text.String(), Notes: text.notes}, nil
})
