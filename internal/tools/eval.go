package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// EvalIn is browser_eval's input.
type EvalIn struct {
	Expression string `json:"expression,omitempty" jsonschema:"JS; await ok"`
	Function   string `json:"function,omitempty" jsonschema:"JS function of args"`
	Args       []any  `json:"args,omitempty" jsonschema:"for function"`
	Frame      string `json:"frame,omitempty"`
	MaxChars   int    `json:"max_chars,omitempty" default:"10000" minimum:"1" maximum:"1000000"`
	Session    string `json:"session,omitempty"`
	Tab        string `json:"tab,omitempty"`
	TimeoutMs  int    `json:"timeout_ms,omitempty" default:"10000" minimum:"1" maximum:"120000"`
}

// Check refuses both or neither of expression and function.
func (in EvalIn) Check() error {
	return in.options().Check()
}

func (in EvalIn) options() browser.EvalOptions {
	return browser.EvalOptions{Expression: in.Expression, Function: in.Function, Args: in.Args, Frame: strings.TrimSpace(in.Frame),
		Timeout: timeout(in.TimeoutMs), MaxChars: in.MaxChars}
}

var evalTool = Def(Tool{
	Name:        "browser_eval",
	Description: "Run JS in the page (its globals, the user's login); awaits promises; returns JSON.",
	Annotations: Annotations{Destructive: ptr(true), OpenWorld: ptr(true)},
	Group:       GroupEval,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in EvalIn) (*Result, error) {
	res, err := h.Eval(ctx, in.options())
	if err != nil {
		return nil, err
	}
	return &Result{Text: renderEval(res)}, nil
})

// renderEval is browser_eval's text: the frame and its URL, then the value
// as JSON, and a line saying where it was cut.
func renderEval(r *browser.EvalResult) string {
	var b strings.Builder
	url := r.URL
	if url == "" {
		url = "(navigated away by the code)"
	}
	fmt.Fprintf(&b, "%s %s\n%s", r.Frame, url, r.Value)
	if r.Cut() {
		of := ""
		if r.AtLeast {
			of = "at least "
		}
		fmt.Fprintf(&b, "\n… cut at %s of %s%s chars (max_chars", commas(len([]rune(r.Value))), of, commas(r.Length))
		if r.Lowered > 0 {
			fmt.Fprintf(&b, " %s lowered to %s", commas(r.Lowered), commas(r.MaxChars))
		}
		b.WriteString("): return less, e.g. a slice or the fields you need")
	}
	return b.String()
}

// commas formats n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
