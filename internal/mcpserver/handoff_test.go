package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// browser_handoff through MCP: arguments checked, a headless launched
// browser refused, and elsewhere the wait reported by progress
// notifications until its condition ends it.
func TestHandoffTool(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	sel, err := tools.Select(tools.ProfileCore, "+handoff")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var progress []string
	cs := connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: sharedManager(t)}}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params.Message)
		}}, "")
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"})
	mustFail(t, ctx, cs, "browser_handoff", map[string]any{"message": strings.Repeat("x", 301)}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_handoff", map[string]any{"message": "Sign in", "timeout_ms": 900001}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_handoff", map[string]any{"message": "Sign in", "until": map[string]any{"time_ms": -1}}, "INVALID_ARGUMENT")
	if backendtest.Kind() == "launch" {
		e := mustFail(t, ctx, cs, "browser_handoff", map[string]any{"message": "Sign in", "until": map[string]any{"time_ms": 100}}, "INVALID_ARGUMENT")
		if !strings.Contains(e.Error.Message, "headless") || !strings.Contains(e.Error.Hint, "--headed") {
			t.Errorf("headless refusal: %+v", e)
		}
		return
	}
	p := &mcp.CallToolParams{Name: "browser_handoff", Arguments: map[string]any{"message": "Take a look", "until": map[string]any{"time_ms": 5600}}}
	p.SetProgressToken("handoff-1")
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("handoff: %v %s", err, textOf(res))
	}
	out := textOf(res)
	if !strings.HasPrefix(out, "The hand-off ended after 5 s: 5600 ms passed.") || !strings.Contains(out, "/basic.html") || !strings.Contains(out, "What changed while the user had the tab follows; refs from before it may be stale.") {
		t.Errorf("handoff result: %s", out)
	}
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for {
		mu.Lock()
		got := append([]string(nil), progress...)
		mu.Unlock()
		if len(got) > 0 && got[0] == "waiting for the user (5 s)" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress: %q, want one after 5 s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
