package tools

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StatusIn is browser_status's input: nothing.
type StatusIn struct{}

func (r *registry) status() {
	add(r, &mcp.Tool{
		Name:        "browser_status",
		Description: "webpilot's backend, browser, sessions and configuration.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Browser status"},
	}, func(ctx context.Context, _ StatusIn) (*Result, error) {
		m := r.d.Manager
		out := map[string]any{
			"backend":    m.Backend().Info(),
			"sessions":   m.SessionNames(),
			"tool_count": len(r.defs),
		}
		if r.d.Status != nil {
			for k, v := range r.d.Status() {
				out[k] = v
			}
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, err
		}
		return &Result{Text: string(b)}, nil
	})
}
