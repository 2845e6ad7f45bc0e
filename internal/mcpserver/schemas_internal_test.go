package mcpserver

import (
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// Every tool's input schema resolves. The server resolves a schema on the
// tool's first call, not at start; a schema that cannot be resolved would
// otherwise be found only by that call.
func TestSchemasResolve(t *testing.T) {
	s := New(Options{Tools: tools.Selection{Tools: tools.Table()}})
	if len(s.schemas) != len(tools.Table()) {
		t.Fatalf("%d schemas for %d tools", len(s.schemas), len(tools.Table()))
	}
	for name, resolve := range s.schemas {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: %v", name, p)
				}
			}()
			if resolve() == nil {
				t.Errorf("%s: no resolved schema", name)
			}
		}()
	}
}
