package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// Values that do not fit an argument's type or range (1e300 for an int, -1
// for an offset, 1.5 for an integer, a string for an object) come back as
// INVALID_ARGUMENT bodies that name the argument and what it takes, before
// any browser work. Before, 1e300 reached the decoder and came back as its
// raw error, without a code.
func TestArgumentRanges(t *testing.T) {
	b := idleBackend(t)
	cs := connect(t, &tools.Deps{Manager: browser.NewManager(browser.Options{Backend: b})})
	ctx := backendtest.Context(t, 20*time.Second)
	for _, c := range []struct {
		name, tool, args string
		mentions         []string // the message must hold each
		suggestion       string   // one suggestion must hold this ("" for none)
	}{
		{"1e300 for max_chars", "browser_snapshot", `{"max_chars":1e300}`, []string{"max_chars", "from 1 to 1000000", "1e+300"}, `"max_chars": 1000000`},
		{"max_chars over the cap", "browser_snapshot", `{"max_chars":1000001}`, []string{"max_chars", "from 1 to 1000000"}, `"max_chars": 1000000`},
		{"max_chars 0", "browser_snapshot", `{"max_chars":0}`, []string{"max_chars", "from 1 to 1000000"}, `"max_chars": 1`},
		{"negative max_chars", "browser_snapshot", `{"max_chars":-1}`, []string{"max_chars", "from 1 to 1000000", "-1"}, `"max_chars": 1`},
		{"1e400 for max_chars", "browser_snapshot", `{"max_chars":1e400}`, []string{"max_chars", "from 1 to 1000000", "1e400"}, ""},
		{"max_chars as a huge string", "browser_snapshot", `{"max_chars":"1e300"}`, []string{"max_chars", "from 1 to 1000000"}, `"max_chars": 1000000`},
		{"1.5 for max_chars", "browser_snapshot", `{"max_chars":1.5}`, []string{"max_chars", "an integer", "1.5"}, `"max_chars": 2`},
		{"negative offset", "browser_snapshot", `{"offset":-1}`, []string{"offset", "from 0 to 10000000"}, `"offset": 0`},
		{"offset 1e19", "browser_snapshot", `{"offset":1e19}`, []string{"offset", "from 0 to 10000000"}, ""},
		{"timeout_ms over 2 minutes", "browser_navigate", `{"url":"http://127.0.0.1/","timeout_ms":120001}`, []string{"timeout_ms", "from 1 to 120000"}, `"timeout_ms": 120000`},
		{"negative timeout_ms", "browser_action", `{"action":"click","ref":"e1","timeout_ms":-5}`, []string{"timeout_ms", "from 1 to 120000"}, ""},
		{"1e300 for timeout_ms", "browser_action", `{"action":"click","ref":"e1","timeout_ms":1e300}`, []string{"timeout_ms", "from 1 to 120000"}, ""},
		{"limit 1e10", "browser_find", `{"text":"a","limit":1e10}`, []string{"limit", "from 1 to 1000"}, ""},
		{"quality 101", "browser_screenshot", `{"quality":101}`, []string{"quality", "from 1 to 100"}, `"quality": 100`},
		{"string for an object", "browser_action", `{"action":"click","ref":"e1","expect":"done"}`, []string{"expect", "an object", "text", `"done"`}, ""},
		{"string for an array", "browser_fill_form", `{"fields":"name=x"}`, []string{"fields", "an array of objects"}, ""},
		{"number for a string inside an array", "browser_fill_form", `{"fields":[{"ref":"e1","value":3}]}`, []string{"fields[0].value", "a string", "3"}, ""},
		{"object for a string", "browser_navigate", `{"url":{"href":"x"}}`, []string{"url", "a string"}, ""},
		{"value outside the enum", "browser_snapshot", `{"mode":"interactiv"}`, []string{"mode", "one of", `"compact"`, `"interactiv"`}, `"mode": "interactive"`},
		{"a typo of an action", "browser_action", `{"action":"clik","ref":"e1"}`, []string{"action", "one of", `"clik"`}, `"action": "click"`},
		{"mistyped name", "browser_snapshot", `{"max_char":100}`, []string{"unknown argument", "max_char"}, "max_chars"},
		{"mistyped nested name", "browser_action", `{"action":"click","ref":"e1","expect":{"txt":"x"}}`, []string{"unknown argument", "expect.txt"}, "text"},
		{"mistyped name in a list", "browser_wait", `{"conditions":[{"selectr":"#a"}]}`, []string{"unknown argument", "selectr"}, "selector"},
		{"missing required", "browser_action", `{"ref":"e1"}`, []string{"missing required argument action", "one of"}, `"action": "click"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			if !res.IsError {
				t.Fatalf("want an INVALID_ARGUMENT body, got success: %s", text(res))
			}
			out := structuredJSON(t, res)
			var body errorBody
			if json.Unmarshal([]byte(out), &body) != nil || body.Error.Code != "INVALID_ARGUMENT" {
				t.Fatalf("want an INVALID_ARGUMENT body, got isError=%v %s", res.IsError, out)
			}
			for _, m := range c.mentions {
				if !strings.Contains(body.Error.Message, m) {
					t.Errorf("message %q does not hold %q", body.Error.Message, m)
				}
			}
			if body.Error.Hint == "" || body.Error.Suggestions == nil {
				t.Errorf("no hint or no suggestions array: %s", out)
			}
			if c.suggestion != "" && !strings.Contains(strings.Join(body.Error.Suggestions, "\n"), c.suggestion) {
				t.Errorf("suggestions %q do not hold %q", body.Error.Suggestions, c.suggestion)
			}
			// A value outside an enum: the values once, the nearest first
			// among the suggestions and in the hint (issue 28, 3).
			if strings.Contains(c.name, "enum") || strings.Contains(c.name, "typo") {
				want := strings.SplitN(c.suggestion, ": ", 2)[1]
				if len(body.Error.Suggestions) == 0 || body.Error.Suggestions[0] != c.suggestion || !strings.Contains(body.Error.Hint, "did you mean "+want) {
					t.Errorf("not the nearest first: %+v", body.Error)
				}
				if all := text(res); len(all) > 400 || strings.Count(all, `"compact"`)+strings.Count(all, `"dblclick"`) > 1 {
					t.Errorf("the values are listed more than once (%d chars):\n%s", len(all), all)
				}
			}
		})
	}
	if b.Info().Running {
		t.Error("a refused call started the browser")
	}
}

// Session names are at most 64 letters, digits and - _ . : @; anything else
// is INVALID_ARGUMENT with a hint and a valid name to use instead, on every
// tool that takes a session, before any browser work.
func TestSessionNames(t *testing.T) {
	b := idleBackend(t)
	m := browser.NewManager(browser.Options{Backend: b})
	cs := connect(t, &tools.Deps{Manager: m})
	ctx := backendtest.Context(t, 20*time.Second)
	for _, c := range []struct{ name, session, suggestion string }{
		{"65 characters", strings.Repeat("a", 65), strings.Repeat("a", 64)},
		{"a megabyte", strings.Repeat("s", 1<<20), strings.Repeat("s", 64)},
		{"a space", "my session", "my-session"},
		{"a slash", "../etc", "..-etc"},
		{"a newline", "a\nb", "a-b"},
		{"non-ASCII letters", "sesión", "sesi-n"},
		{"a NUL", "a\x00", "a-"},
	} {
		for _, tool := range []string{"browser_snapshot", "browser_close", "browser_tabs"} {
			args := map[string]any{"session": c.session}
			if tool == "browser_tabs" {
				args["action"] = "list"
			}
			body := mustFail(t, ctx, cs, tool, args, "INVALID_ARGUMENT")
			if !strings.Contains(body.Error.Message, "session") || !strings.Contains(body.Error.Message, "64") {
				t.Errorf("%s %s: message %q does not name session and the limit", c.name, tool, body.Error.Message)
			}
			if len(body.Error.Message) > 400 {
				t.Errorf("%s %s: the message repeats the whole name (%d bytes)", c.name, tool, len(body.Error.Message))
			}
			if len(body.Error.Suggestions) != 1 || !strings.Contains(body.Error.Suggestions[0], `"`+c.suggestion+`"`) {
				t.Errorf("%s %s: suggestions %q, want %q", c.name, tool, body.Error.Suggestions, c.suggestion)
			}
		}
	}
	// An empty name given is refused, not taken for the default (issue 28, 6).
	for _, empty := range []string{"", "  "} {
		if body := mustFail(t, ctx, cs, "browser_snapshot", map[string]any{"session": empty}, "INVALID_ARGUMENT"); body.Error.Message != "session is empty" {
			t.Errorf("session %q: %q", empty, body.Error.Message)
		}
	}
	if names := m.SessionNames(); len(names) > 0 {
		t.Errorf("refused names made sessions: %q", names)
	}
	// Valid names pass: the longest, and each allowed character.
	for _, name := range []string{strings.Repeat("z", 64), "agent-1_b.c:d@e", "X"} {
		out, isErr := call(t, ctx, cs, "browser_close", map[string]any{"session": name})
		if isErr || !strings.Contains(out, name) {
			t.Errorf("session %q refused: %s", name, out)
		}
	}
	if b.Info().Running {
		t.Error("a session check started the browser")
	}
}
