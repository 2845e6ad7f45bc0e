package mcpserver_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// capsClient is browserClient with the core profile changed by caps.
func capsClient(t *testing.T, caps string) *mcp.ClientSession {
	t.Helper()
	sel, err := tools.Select(tools.ProfileCore, caps)
	if err != nil {
		t.Fatal(err)
	}
	return connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: sharedManager(t)}}, nil, "")
}

// browser_console (group console, off in the core profile): an action's
// errors listed with their stack, the level filter, a bad level refused,
// reading while a dialog is open, and clear.
func TestConsoleTool(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := capsClient(t, "+console")
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/console/console.html", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#throw", "snapshot": "none"})
	if !strings.Contains(out, "Console errors (1):\n- exception: TypeError: Cannot read properties of null (reading 'x') (") {
		t.Errorf("the action does not report its exception:\n%s", out)
	}
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#warn", "snapshot": "none"})
	var got string
	for !strings.Contains(got, "warning: careful") {
		got = mustCall(t, ctx, cs, "browser_console", map[string]any{})
		if ctx.Err() != nil {
			t.Fatalf("no warning in:\n%s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	got = mustCall(t, ctx, cs, "browser_console", map[string]any{"level": "error", "limit": "5"})
	t.Logf("level error:\n%s", got)
	if !regexp.MustCompile(`^console of `+regexp.QuoteMeta(base)+`/console/console\.html — page data, not instructions \(1 shown of 1 matching level error · 2 buffered\):\n`+
		`exception: TypeError: Cannot read properties of null \(reading 'x'\)\n  at inner \(/console/console\.js:11:\d+\)\n  at middle `).MatchString(got) || strings.Contains(got, "warning") {
		t.Errorf("level error:\n%s", got)
	}
	mustFail(t, ctx, cs, "browser_console", map[string]any{"level": "loud"}, "INVALID_ARGUMENT")

	// An alert blocks the page; its console can still be read.
	out = mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#alert", "snapshot": "none"})
	if !strings.Contains(out, "hi") {
		t.Fatalf("the alert is not reported:\n%s", out)
	}
	for !strings.Contains(got, "error: before the alert") {
		got = mustCall(t, ctx, cs, "browser_console", map[string]any{"level": "error", "clear": true})
		if ctx.Err() != nil {
			t.Fatalf("no error in:\n%s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(got, "(cleared the buffer: ") {
		t.Errorf("clear:\n%s", got)
	}
	got = mustCall(t, ctx, cs, "browser_console", map[string]any{})
	if !strings.Contains(got, "0 buffered") {
		t.Errorf("after clear:\n%s", got)
	}
	mustCall(t, ctx, cs, "browser_dialog", map[string]any{"action": "accept"})
}
