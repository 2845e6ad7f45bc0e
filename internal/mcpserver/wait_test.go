package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// browser_wait through MCP: a met condition is one line naming it; a
// timeout is an isError body with a diagnosis per condition.
func TestWaitTool(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/wait/tiers.html?mode=ok", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_wait", map[string]any{"conditions": []any{
		map[string]any{"selector": "#spinner", "state": "hidden", "tier": 1},
		map[string]any{"text": "Result one"},
	}})
	if !strings.HasPrefix(out, `Condition 1 (tier 0: text "Result one") met after `) {
		t.Errorf("wait result:\n%s", out)
	}

	body := mustFail(t, ctx, cs, "browser_wait", map[string]any{"timeout_ms": 500, "conditions": []any{
		map[string]any{"text": "Never there"},
		map[string]any{"url": "*/done*", "tier": 1},
	}}, "TIMEOUT")
	conds, _ := body.Diagnosis["conditions"].([]any)
	if len(conds) != 2 || body.Diagnosis["snapshot"] == nil || body.Diagnosis["url"] == nil {
		t.Fatalf("diagnosis lacks conditions, snapshot or url: %v", body.Diagnosis)
	}
	for i, c := range conds {
		m, _ := c.(map[string]any)
		if m["seen"] == nil || m["try"] == nil {
			t.Errorf("condition %d: no seen or try: %v", i, m)
		}
	}

	mustFail(t, ctx, cs, "browser_wait", map[string]any{"conditions": []any{map[string]any{}}}, "INVALID_ARGUMENT")
}
