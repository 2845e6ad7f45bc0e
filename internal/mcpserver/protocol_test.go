package mcpserver_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// An unknown tool is a protocol fault: a JSON-RPC error, not a tool result.
func TestUnknownToolIsProtocolError(t *testing.T) {
	b := idleBackend(t)
	cs := connect(t, &tools.Deps{Manager: browser.NewManager(browser.Options{Backend: b})})
	ctx := backendtest.Context(t, 10*time.Second)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_teleport", Arguments: map[string]any{}})
	if err == nil {
		t.Fatalf("unknown tool: want a JSON-RPC error, got a result (isError=%v): %s", res.IsError, text(res))
	}
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("unknown tool: error %v (%T) is not a JSON-RPC error", err, err)
	}
	if werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "browser_teleport") {
		t.Errorf("unknown tool: got JSON-RPC error %d %q, want %d naming the tool", werr.Code, werr.Message, jsonrpc.CodeInvalidParams)
	}
	// The session survives the fault.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list after the fault: %v", err)
	}
	if b.Info().Running {
		t.Error("an unknown tool started the browser")
	}
}

// Arguments that do not fit the schema are refused before any browser work,
// with INVALID_ARGUMENT, a hint and a message naming the problem.
func TestBadArguments(t *testing.T) {
	b := idleBackend(t)
	cs := connect(t, &tools.Deps{Manager: browser.NewManager(browser.Options{Backend: b})})
	ctx := backendtest.Context(t, 20*time.Second)
	for _, c := range []struct {
		name     string
		tool     string
		args     map[string]any
		mentions string // the message must name this
	}{
		{"missing required action", "browser_action", map[string]any{"ref": "e1"}, "action"},
		{"action outside the enum", "browser_action", map[string]any{"action": "explode", "ref": "e1"}, "action"},
		{"string that is no integer", "browser_snapshot", map[string]any{"max_chars": "abc"}, "max_chars"},
		{"float for integer", "browser_snapshot", map[string]any{"max_chars": 2.5}, "max_chars"},
		{"boolean for string", "browser_navigate", map[string]any{"url": true}, "url"},
		{"object for integer", "browser_navigate", map[string]any{"url": "http://127.0.0.1/", "timeout_ms": map[string]any{"a": 1}}, "timeout_ms"},
		{"unknown property", "browser_snapshot", map[string]any{"bogus": 1}, "bogus"},
		{"unknown property", "browser_status", map[string]any{"depth": 2}, "depth"},
		{"neither url nor go", "browser_navigate", map[string]any{}, "url"},
		{"both url and go", "browser_navigate", map[string]any{"url": "http://127.0.0.1/", "go": "back"}, "url"},
		{"go outside the enum", "browser_navigate", map[string]any{"go": "sideways"}, "go"},
		{"key for fill", "browser_action", map[string]any{"action": "fill", "selector": "#in", "key": "Enter"}, "key"},
		{"value for press", "browser_action", map[string]any{"action": "press", "value": "x"}, "value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := mustFail(t, ctx, cs, c.tool, c.args, "INVALID_ARGUMENT")
			if !strings.Contains(body.Error.Message, c.mentions) {
				t.Errorf("message %q does not mention %q", body.Error.Message, c.mentions)
			}
		})
	}
	// Arguments that are not an object. (No hint yet: only the code.)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot", Arguments: []any{1}})
	if err != nil || !res.IsError || !strings.HasPrefix(text(res), "INVALID_ARGUMENT: ") {
		t.Errorf("array arguments: want INVALID_ARGUMENT, got %v %s", err, textOf(res))
	}
	// Negative numbers are out of the advertised range.
	for _, args := range []map[string]any{{"max_chars": -1}, {"offset": "-5"}} {
		body := mustFail(t, ctx, cs, "browser_snapshot", args, "INVALID_ARGUMENT")
		if !strings.Contains(body.Error.Message, "must be an integer from") {
			t.Errorf("browser_snapshot %v: message %q does not give the range", args, body.Error.Message)
		}
	}
	if b.Info().Running {
		t.Error("a refused call started the browser")
	}
}

// Values sent as strings for integer parameters are coerced before
// validation, and the call works.
func TestCoercedArguments(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	out := mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/long.html", "snapshot": "none", "timeout_ms": "20000"})
	if !strings.Contains(out, "Long page") {
		t.Fatalf("navigate: %s", out)
	}
	first := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"max_chars": "500", "offset": "0"})
	if !strings.Contains(first, "Paragraph 1:") {
		t.Errorf("snapshot with max_chars \"500\": no first paragraph:\n%s", first)
	}
	if strings.Contains(first, "Paragraph 300:") {
		t.Errorf("snapshot with max_chars \"500\" was not cut:\n%.2000s", first)
	}
	// The same call with real integers gives the same page.
	second := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"max_chars": 500, "offset": 0})
	if stripIDs(first) != stripIDs(second) {
		t.Errorf("coerced and typed arguments differ:\n--- \"500\"\n%s\n--- 500\n%s", first, second)
	}
	// A padded number and a whole float in a string are integers too.
	mustCall(t, ctx, cs, "browser_snapshot", map[string]any{"max_chars": " 500 ", "offset": "10.0"})
}

// stripIDs drops the snapshot id (s1, s2, …) from the header, which differs
// between two snapshots of the same page.
func stripIDs(s string) string {
	return snapshotID.ReplaceAllString(s, "(s#")
}

var snapshotID = regexp.MustCompile(`\(s\d+`)
