package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// browser_tabs bind through MCP: list all shows the user's tabs, bind by
// match answers with a snapshot, browser_navigate away from the bound tab
// needs allow_navigation, and browser_close leaves the tab open and
// detached.
func TestBindTool(t *testing.T) {
	base := fixtures(t)
	m := sharedManager(t)
	cs := connect(t, &tools.Deps{Manager: m})
	ctx := backendtest.Context(t, 60*time.Second)
	be := m.Backend()
	id, err := backendtest.OpenUserTab(ctx, be, base+"/form.html?who=bind-tool-user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backendtest.CloseUserTab(context.Background(), be, id) })

	list := ""
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); !strings.Contains(list, "bind-tool-user") && time.Now().Before(deadline); {
		list = mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list", "all": true})
	}
	if !strings.Contains(list, "tab(s) the user opened") || !strings.Contains(list, "bind-tool-user") {
		t.Fatalf("list all:\n%s", list)
	}
	var bound string
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		bound = mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "bind", "match": "bind-tool-user"})
		if strings.Contains(bound, "textbox e") || time.Now().After(deadline) {
			break
		}
		mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "unbind"}) // still loading: again
	}
	if !strings.Contains(bound, "Bound the user's tab as t") || !strings.Contains(bound, "textbox e") {
		t.Fatalf("bind:\n%s", bound)
	}
	if list := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"}); !strings.Contains(list, "(bound: the user's tab)") {
		t.Errorf("list does not mark the bound tab:\n%s", list)
	}
	body := mustFail(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Hint, "allow_navigation") {
		t.Errorf("refused navigation: hint %q does not name allow_navigation", body.Error.Hint)
	}
	mustFail(t, ctx, cs, "browser_navigate", map[string]any{"go": "back"}, "INVALID_ARGUMENT")
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"go": "reload", "snapshot": "none"})
	nav := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html?who=bind-tool-user", "allow_navigation": true, "snapshot": "none"})
	if !strings.Contains(nav, "Basic page") {
		t.Errorf("navigate with allow_navigation:\n%s", nav)
	}
	closed := mustCall(t, ctx, cs, "browser_close", map[string]any{})
	if !strings.Contains(closed, "Closed 0 tab(s)") || !strings.Contains(closed, "Released 1 bound tab(s)") {
		t.Errorf("browser_close: %s", closed)
	}
	var st backendtest.UserTab
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		if st, err = backendtest.DescribeUserTab(ctx, be, id); err != nil {
			t.Fatal(err)
		}
		if !st.Attached || time.Now().After(deadline) {
			break
		}
	}
	if !st.Open || st.Attached || !strings.Contains(st.URL, "/basic.html") {
		t.Errorf("after browser_close the user's tab is %+v; want open, detached, on basic.html", st)
	}
}
