package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// The server lists only the selected tools, answers a call to another with
// the flag that switches it on, and browser_status names the active tools, profile and caps.
func TestToolSelection(t *testing.T) {
	sel, err := tools.Select("core", "-screenshot,-dialogs")
	if err != nil {
		t.Fatal(err)
	}
	b := idleBackend(t)
	srv := mcpserver.New(mcpserver.Options{Name: "webpilot", Version: "test", Tools: sel,
		Deps: &tools.Deps{Manager: browser.NewManager(browser.Options{Backend: b})}})
	if got := len(srv.Tools()); got != len(sel.Tools) {
		t.Errorf("server registered %d tools, want %d", got, len(sel.Tools))
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := backendtest.Context(t, 20*time.Second)
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "select-test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tl := range list.Tools {
		listed = append(listed, tl.Name)
	}
	want := sel.Names()
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("tools/list = %v, want %v", listed, want)
	}
	if body := mustFail(t, ctx, cs, "browser_screenshot", map[string]any{}, "INVALID_ARGUMENT"); !strings.Contains(body.Error.Hint, "--caps +screenshot") {
		t.Errorf("a call to an inactive tool: %+v", body.Error)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_status", Arguments: map[string]any{"verbose": true}})
	if err != nil || res.IsError {
		t.Fatalf("browser_status: %v %s", err, text(res))
	}
	var status struct {
		Profile   string   `json:"profile"`
		Caps      string   `json:"caps"`
		Tools     []string `json:"tools"`
		ToolCount int      `json:"tool_count"`
	}
	if err := json.Unmarshal([]byte(text(res)), &status); err != nil {
		t.Fatalf("browser_status: %v\n%s", err, text(res))
	}
	if status.Profile != "core" || status.Caps != "-screenshot,-dialogs" || !slices.Equal(status.Tools, sel.Names()) || status.ToolCount != len(sel.Tools) {
		t.Errorf("browser_status = %+v; want profile core, caps -screenshot,-dialogs, tools %v", status, sel.Names())
	}
	if b.Info().Running {
		t.Error("listing and status started the browser")
	}
}
