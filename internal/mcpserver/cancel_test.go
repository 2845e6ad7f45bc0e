package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// notifications/cancelled stops the call's page work: the browser gives up
// the navigation's request, and the next call on the session is answered.
func TestCancelledNavigationStops(t *testing.T) {
	t.Parallel()
	slow := backendtest.NewStuckServer(t)
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})

	cctx, cancel := context.WithCancel(ctx)
	slow.CancelWhenStarted(cancel)
	if _, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": slow.URL + "/"}}); err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	select {
	case <-slow.Aborted:
	case <-time.After(backendtest.Timeout(5 * time.Second)):
		t.Error("the cancelled navigation's request is still open")
	}
	nctx, ncancel := context.WithTimeout(ctx, backendtest.Timeout(15*time.Second))
	defer ncancel()
	snap := mustCall(t, nctx, cs, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, "Basic page") {
		t.Errorf("after the cancel, the snapshot is not of the page before:\n%s", snap)
	}
}
