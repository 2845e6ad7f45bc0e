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
		Description: "Report webpilot's state: backend, browser path and version, profile, sessions, tool count and configuration with where each value came from.",
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
