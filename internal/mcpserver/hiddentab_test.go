package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// Two clients of one server, as two agents in the person's Chrome: B's
// new tab in the agent window sends A's to the background, where the page
// draws no frames. A Bootstrap 4 modal that starts fading in there (the
// real library) is still clicked through by A, and what the click did
// shows in A's next read; B goes on in its own tab.
func TestTwoClientsActInTheBackgroundOfEachOther(t *testing.T) {
	base := fixtures(t)
	m := browser.NewManager(browser.Options{Backend: backendtest.New(t), Approve: browser.ApproveAlways})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	sel, err := tools.Select(tools.ProfileFull, "+eval")
	if err != nil {
		t.Fatal(err)
	}
	srv := serveHTTPWith(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: m}}, mcpserver.HTTPOptions{})
	ctx := backendtest.Context(t, 2*time.Minute)
	a := namedClient(t, ctx, srv.base, "agent-a", nil)
	b := namedClient(t, ctx, srv.base, "agent-b", nil)

	mustCall(t, ctx, a, "browser_navigate", map[string]any{"url": base + "/real/bs4-modal.html"})
	mustCall(t, ctx, b, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	mustCall(t, ctx, b, "browser_tabs", map[string]any{"action": "new", "url": base + "/form.html"})
	// The modal starts fading in now, in A's tab, which the bridge has put
	// in the background.
	vis := mustCall(t, ctx, a, "browser_eval", map[string]any{"expression": `$('#logoutModal').modal('show'), document.visibilityState`})
	if backendtest.Kind() == "bridge" && !strings.Contains(vis, "hidden") {
		t.Fatalf("on the bridge B's new tab should hide A's; A's page says %s", vis)
	}
	// The agent gives the click 4 s: a page in the background would keep
	// the click's first mouse event waiting ~5 s for a frame, and the
	// fade from ending.
	timeout := backendtest.Timeout(4 * time.Second).Milliseconds()
	out := mustCall(t, ctx, a, "browser_action", map[string]any{"action": "click", "role": "link", "name": "Logout now", "exact": true, "timeout_ms": timeout})
	if !strings.Contains(out, "Signed out") {
		t.Errorf("A's click in its %s tab: the result does not show what it did:\n%s", vis, out)
	}
	if got := mustCall(t, ctx, a, "browser_read", map[string]any{"selector": "#status"}); !strings.Contains(got, "Signed out") {
		t.Errorf("A's page after the click: %s", got)
	}
	if got := mustCall(t, ctx, b, "browser_snapshot", map[string]any{}); !strings.Contains(got, "Sign up") {
		t.Errorf("B's tab after A's click: %s", got)
	}
}
