package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// A failed call's text reads like a result (issue 28, 3): CODE: message on
// one line, the hint, the suggestions nearest first, the diagnosis one key a
// line; ParseErrorText reads the first line back, and the JSON of earlier
// versions.
func TestErrorText(t *testing.T) {
	e := &browser.Error{Code: browser.CodeAmbiguousTarget, Message: "2 elements match button \"Save\"\n(in the page)", Hint: "act on one of these refs",
		Suggestions: []string{`button e3 "Save" (in "Draft")`, `button e9 "Save" (in "Profile")`},
		Diagnosis:   map[string]any{"url": "http://ex.com/", "count": 2, "snapshot": "# Page\nbutton e3"}}
	want := "AMBIGUOUS_TARGET: 2 elements match button \"Save\" (in the page)\n" +
		"Hint: act on one of these refs\n" +
		"Suggestions:\n- button e3 \"Save\" (in \"Draft\")\n- button e9 \"Save\" (in \"Profile\")\n" +
		"Diagnosis:\ncount: 2\nsnapshot:\n# Page\nbutton e3\nurl: http://ex.com/"
	if got := ErrorText(e); got != want {
		t.Errorf("ErrorText:\n%s\nwant:\n%s", got, want)
	}
	for text, code := range map[string]string{
		want: "AMBIGUOUS_TARGET",
		`{"error":{"code":"TIMEOUT","message":"slow"}}`:                           "TIMEOUT",
		"# Page\nbutton e3":                                                       "",
		"Note: the daemon restarted.\n\n{\"error\":{\"code\":\"TAB_NOT_FOUND\"}}": "TAB_NOT_FOUND",
	} {
		if got, _, _ := ParseErrorText(text); got != code {
			t.Errorf("ParseErrorText(%.30q) = %q, want %q", text, got, code)
		}
	}
}

// The trace records a failure's code and message from the error itself,
// as the agent read them: bounded, on one line.
func TestOutcomeFromTheError(t *testing.T) {
	be := &browser.Error{Code: browser.CodeStaleRef, Message: "ref e7\nis gone: " + strings.Repeat("x", 3000), Hint: "snapshot again"}
	out := errorResult(be)
	text, ok, code, msg := outcome(out, be)
	if ok || code != "STALE_REF" || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "ref e7 is gone") || !strings.Contains(msg, "chars)") {
		t.Errorf("outcome = %v, %q, %q", ok, code, msg)
	}
	if wantCode, wantMsg, parsed := ParseErrorText(text); !parsed || wantCode != code || wantMsg != msg {
		t.Errorf("outcome %q %q, the text reads %q %q", code, msg, wantCode, wantMsg)
	}
	if _, ok, code, _ := outcome(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil); !ok || code != "" {
		t.Errorf("a success reads as failed: %q", code)
	}
}
