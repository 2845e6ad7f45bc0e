package tools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CloseIn is browser_close's input.
type CloseIn struct {
	Session string `json:"session,omitempty" jsonschema:"agent session"`
}

func (r *registry) close() {
	add(r, &mcp.Tool{
		Name:        "browser_close",
		Description: "Close the tabs this session opened.",
		Annotations: &mcp.ToolAnnotations{Title: "Close session tabs", DestructiveHint: ptr(true), IdempotentHint: true},
	}, func(ctx context.Context, in CloseIn) (*Result, error) {
		name := in.Session
		if name == "" {
			name = r.d.DefaultSession
		}
		s, ok := r.d.Manager.Lookup(name)
		if !ok {
			return &Result{Text: fmt.Sprintf("Session %q has no tabs; nothing to close.", name)}, nil
		}
		var n int
		err := s.Do(ctx, func(ctx context.Context) error {
			n = len(s.TabIDs())
			return s.CloseTabs(ctx)
		})
		if err != nil {
			return nil, err
		}
		return &Result{Text: fmt.Sprintf("Closed %d tab(s) of session %q.", n, s.Name())}, nil
	})
}
