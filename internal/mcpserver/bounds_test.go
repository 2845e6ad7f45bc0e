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

// browser_find's answer is bounded like every other: the pattern it echoes
// (a 1 MB text), a huge text node that matches (cut with "…(+N chars)"),
// and many long matches (the lines that fit, and how many more matched).
func TestFindIsBounded(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 120*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/form.html", "snapshot": "none"})
	out, _ := call(t, ctx, cs, "browser_find", map[string]any{"text": strings.Repeat("Q", 1<<20)})
	if len(out) > 5_000 {
		t.Errorf("a 1 MB text pattern: the answer is %d chars", len(out))
	}
	mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": `for (let i = 0; i < 300; i++) document.body.append(Object.assign(document.createElement("p"), {textContent: "W".repeat(400) + i}));
document.body.append(Object.assign(document.createElement("p"), {textContent: "Z".repeat(5 << 20)})); "ok"`})
	huge := mustCall(t, ctx, cs, "browser_find", map[string]any{"text": "ZZZZ", "limit": 1})
	if len(huge) > 5_000 || !strings.Contains(huge, "…(+") {
		t.Errorf("a 5 MB text node: the answer is %d chars:\n%.300s", len(huge), huge)
	}
	many := mustCall(t, ctx, cs, "browser_find", map[string]any{"text": "WWWW", "limit": 1000})
	if len(many) > 22_000 || !strings.Contains(many, "# 300 match(es)") || !strings.Contains(many, "shown; narrow the search") {
		t.Errorf("300 long matches: the answer is %d chars:\n%.300s", len(many), many)
	}
}
