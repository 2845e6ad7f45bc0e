package mcpserver_test

import (
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

// browser_eval and browser_frames through the MCP layer: the result's
// first line names the frame, a long value says where it was cut, an
// exception is INVALID_ARGUMENT, and the frame id browser_frames prints is
// taken by browser_eval.
func TestEvalAndFramesTools(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/eval/main.html", "snapshot": "none"})
	out := mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": "appState.user"})
	if out != "main frame "+base+"/eval/main.html\n\"ada\"" {
		t.Errorf("browser_eval:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "browser_eval", map[string]any{"function": "(a, b) => a * b", "args": []any{6, 7}})
	if !strings.HasSuffix(out, "\n42") {
		t.Errorf("browser_eval with a function:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": "big", "max_chars": 100})
	if !strings.Contains(out, "… cut at 100 of 50,002 chars") {
		t.Errorf("a long value does not say where it was cut:\n%.300s", out)
	}
	body := mustFail(t, ctx, cs, "browser_eval", map[string]any{"expression": "throw new TypeError('bad input')"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "TypeError: bad input") {
		t.Errorf("exception message: %s", body.Error.Message)
	}
	mustFail(t, ctx, cs, "browser_eval", map[string]any{"expression": "1", "function": "() => 1"}, "INVALID_ARGUMENT")
	mustFail(t, ctx, cs, "browser_eval", map[string]any{"expression": "for (;;) {}", "timeout_ms": 300}, "TIMEOUT")

	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/eval/frames.html", "snapshot": "none"})
	frames := mustCall(t, ctx, cs, "browser_frames", map[string]any{})
	lines := strings.Split(frames, "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "main "+base+"/eval/frames.html") || !strings.HasPrefix(lines[2], " e") ||
		!strings.Contains(lines[2], " f1 in main "+base+"/eval/child.html?who=same (origin "+base+")") || !strings.Contains(lines[2], `name="same"`) {
		t.Fatalf("browser_frames:\n%s", frames)
	}
	id := strings.Fields(lines[2])[0]
	out = mustCall(t, ctx, cs, "browser_eval", map[string]any{"expression": "who", "frame": id})
	if out != "frame f1 "+base+"/eval/child.html?who=same\n\"same\"" {
		t.Errorf("browser_eval in frame %s:\n%s", id, out)
	}
}

// --caps -eval takes browser_eval out of tools/list (browser_frames stays)
// and a call to it is answered with the flag that switches it on.
func TestCapsWithoutEval(t *testing.T) {
	sel, err := tools.Select("core", "-eval")
	if err != nil {
		t.Fatal(err)
	}
	cs := connectServer(t, mcpserver.Options{Tools: sel, Deps: &tools.Deps{Manager: browser.NewManager(browser.Options{Backend: idleBackend(t)})}}, nil, "")
	ctx := backendtest.Context(t, 20*time.Second)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if slices.Contains(names, "browser_eval") || !slices.Contains(names, "browser_frames") {
		t.Errorf("tools/list under --caps -eval = %v", names)
	}
	// A call to it says what switches it on (issue 28, 3).
	body := mustFail(t, ctx, cs, "browser_eval", map[string]any{"expression": "1"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "browser_eval is off") || !strings.Contains(body.Error.Hint, "--caps +eval") {
		t.Errorf("browser_eval under --caps -eval: %+v", body.Error)
	}
	// A name that is no tool of webpilot's stays a protocol error.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_teleport", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "browser_teleport") {
		t.Errorf("an unknown tool: %v", err)
	}
}
