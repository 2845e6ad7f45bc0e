package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// What an agent sends is not echoed back whole: a 5 MB value or URL comes
// back as a short result or error.
func TestResultsDoNotEchoHugeInput(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 120*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/form.html", "snapshot": "none"})

	huge := strings.Repeat("x", 5<<20)
	// A fill big enough to show the echo (a 5 MB one only takes longer to
	// type into the page).
	big := strings.Repeat("y", 256<<10)
	out, isErr := call(t, ctx, cs, "browser_action", map[string]any{"action": "fill", "selector": "#bio", "value": big, "snapshot": "none", "timeout_ms": 60000})
	if isErr || !strings.Contains(out, "verified") {
		t.Errorf("fill 256 KB: isError %v:\n%.300s", isErr, out)
	}
	if len(out) > 10_000 {
		t.Errorf("fill 256 KB: the result is %d chars", len(out))
	}

	for _, u := range []string{"https://example.com/" + huge, "not a url " + huge} {
		out, isErr = call(t, ctx, cs, "browser_navigate", map[string]any{"url": u, "snapshot": "none"})
		if !isErr {
			t.Errorf("navigate to a 5 MB URL: no error:\n%.300s", out)
		}
		if len(out) > 10_000 {
			t.Errorf("navigate to a 5 MB URL: the error is %d chars", len(out))
		}
	}
	// A 5 MB text target that matches nothing.
	body := mustFail(t, ctx, cs, "browser_action", map[string]any{"action": "click", "text": huge, "timeout_ms": 500}, "TARGET_NOT_FOUND")
	if len(body.Error.Message) > 2_000 {
		t.Errorf("a 5 MB text target: the message is %d chars", len(body.Error.Message))
	}
}
