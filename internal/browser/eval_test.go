package browser_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
)

// run runs browser_eval's code on the current tab.
func (e *env) run(o browser.EvalOptions) (*browser.EvalResult, error) {
	var res *browser.EvalResult
	err := e.do(func(ctx context.Context, h *browser.Held) error {

		var err error
		res, err = h.Eval(ctx, o)
		return err
	})
	return res, err
}

// mustRun is run for code that must succeed.
func (e *env) mustRun(o browser.EvalOptions) *browser.EvalResult {
	e.t.Helper()
	res, err := e.run(o)
	if err != nil {
		e.t.Fatalf("eval %+v: %v", o, err)
	}
	return res
}

// Code runs in the page's own world: it sees the page's globals, awaits
// promises, and calls functions with args.
func TestEvalPageWorld(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")

	res := e.mustRun(browser.EvalOptions{Expression: "appState"})
	if res.Value != `{"user":"ada","items":[1,2,3]}` || res.Frame != "main frame" || !strings.HasSuffix(res.URL, "/eval/main.html") || res.Cut() {
		t.Errorf("appState = %+v", res)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "later('x')"})
	if res.Value != `"later x"` {
		t.Errorf("a promise gave %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "const n = await later(1); n.length"})
	if res.Value != "7" {
		t.Errorf("top-level await gave %s", res.Value)
	}
	// A name declared by one evaluation can be declared again by the next.
	e.mustRun(browser.EvalOptions{Expression: "let again = 1; again"})
	e.mustRun(browser.EvalOptions{Expression: "let again = 2; again"})

	res = e.mustRun(browser.EvalOptions{Function: "(a, b) => a.n + b.length", Args: []any{map[string]any{"n": 40}, "ab"}})
	if res.Value != "42" {
		t.Errorf("function with args gave %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Function: "async (sel) => { await later(0); return [...document.querySelectorAll(sel)].map(li => li.textContent) } // a comment", Args: []any{"li"}})
	if res.Value != `["one","two","three"]` {
		t.Errorf("async function gave %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "void 0"})
	if res.Value != "undefined" {
		t.Errorf("undefined gave %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "[NaN, 10n, Symbol('s'), () => 1]"})
	if res.Value != `["NaN","10n","Symbol(s)","function (anonymous)"]` {
		t.Errorf("values JSON cannot hold gave %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "const o = {name: 'o'}; o.self = o; o"})
	if res.Value != `{"name":"o","self":"[circular]"}` {
		t.Errorf("a cycle gave %s", res.Value)
	}
}

// A DOM node is described, not lost or refused.
func TestEvalDescribesNodes(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	res := e.mustRun(browser.EvalOptions{Expression: "document.getElementById('x')"})
	if res.Value != `"HTMLDivElement div#x.box.wide \"Hello box\""` {
		t.Errorf("a node gave %s", res.Value)
	}
	res = e.mustRun(browser.EvalOptions{Expression: "({first: document.querySelector('li'), all: document.querySelectorAll('li').length})"})
	if res.Value != `{"first":"HTMLLIElement li \"one\"","all":3}` {
		t.Errorf("a node in an object gave %s", res.Value)
	}
}

// A value over max_chars is cut, and the result says how long it was.
func TestEvalCapped(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	res := e.mustRun(browser.EvalOptions{Expression: "big"})
	if !res.Cut() || res.Length != 50002 || len(res.Value) != browser.EvalMaxChars || res.MaxChars != browser.EvalMaxChars {
		t.Errorf("a 50,000-char string: cut %v, length %d, %d chars returned", res.Cut(), res.Length, len(res.Value))
	}
	res = e.mustRun(browser.EvalOptions{Expression: "big.slice(0, 100)", MaxChars: 20})
	if !res.Cut() || res.Length != 102 || res.Value != `"xxxxxxxxxxxxxxxxxxx` {
		t.Errorf("max_chars 20: %+v", res)
	}
}

// An exception is INVALID_ARGUMENT with its text and line.
func TestEvalException(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	_, err := e.run(browser.EvalOptions{Expression: "const a = 1;\nthrow new Error('boom here')"})
	be := wantCode(t, err, browser.CodeInvalidArgument)
	if !strings.Contains(be.Message, "Error: boom here") || !strings.Contains(be.Message, "line 2") || be.Hint == "" {
		t.Errorf("exception: %q (hint %q)", be.Message, be.Hint)
	}
	_, err = e.run(browser.EvalOptions{Function: "async () => { await later(1); return missing.x }"})
	be = wantCode(t, err, browser.CodeInvalidArgument)
	if !strings.Contains(be.Message, "ReferenceError: missing is not defined") {
		t.Errorf("a rejected promise: %q", be.Message)
	}
	_, err = e.run(browser.EvalOptions{Function: "(a) => a +"})
	be = wantCode(t, err, browser.CodeInvalidArgument)
	if !strings.Contains(be.Message, "SyntaxError") {
		t.Errorf("a syntax error: %q", be.Message)
	}
	for _, o := range []browser.EvalOptions{{}, {Expression: "1", Function: "() => 1"}, {Expression: "1", Args: []any{1}}} {
		_, err := e.run(o)
		wantCode(t, err, browser.CodeInvalidArgument)
	}
}

// Code that runs past timeout_ms is TIMEOUT and is stopped: the page
// answers afterwards.
func TestEvalTimeout(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	_, err := e.run(browser.EvalOptions{Expression: "for (;;) {}", Timeout: 300 * time.Millisecond})
	be := wantCode(t, err, browser.CodeTimeout)
	if !strings.Contains(be.Message, "stopped") {
		t.Errorf("timeout: %q", be.Message)
	}
	_, err = e.run(browser.EvalOptions{Function: "(n) => { while (n) {} }", Args: []any{1}, Timeout: 300 * time.Millisecond})
	wantCode(t, err, browser.CodeTimeout)
	_, err = e.run(browser.EvalOptions{Expression: "await new Promise(() => {})", Timeout: 300 * time.Millisecond})
	wantCode(t, err, browser.CodeTimeout)
	res := e.mustRun(browser.EvalOptions{Expression: "appState.user", Timeout: backendtest.Timeout(5 * time.Second)})
	if res.Value != `"ada"` {
		t.Errorf("after the stopped loop: %s", res.Value)
	}
	if got := e.snapshot(browser.ModeCompact); !strings.Contains(got, "Hello box") {
		t.Errorf("snapshot after the stopped loop:\n%s", got)
	}
}

// Code that opens a dialog reports DIALOG_OPEN; once it is answered the
// page answers again. Code that navigates still returns its value.
func TestEvalDialogAndNavigation(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	_, err := e.run(browser.EvalOptions{Expression: "alert('from eval'); 1"})
	if be := wantCode(t, err, browser.CodeDialogOpen); !strings.Contains(be.Message, "from eval") {
		t.Errorf("dialog: %s", be.Message)
	}
	if err := e.do(func(ctx context.Context, h *browser.Held) error {

		_, err := h.Dialogs().Answer(ctx, true, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if res := e.mustRun(browser.EvalOptions{Expression: "appState.items.length"}); res.Value != "3" {
		t.Errorf("after the dialog: %s", res.Value)
	}
	res := e.mustRun(browser.EvalOptions{Expression: "location.href = '/eval/frames.html'; 'bye'"})
	if res.Value != `"bye"` {
		t.Errorf("code that navigates: %+v", res)
	}
}

// Lengths are counted in characters (code points), as Go counts them: an
// astral character (an emoji, two UTF-16 units) is one, a value under
// max_chars is not reported cut, and a cut never splits a character.
func TestEvalCutCountsCharacters(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	for _, tc := range []struct {
		expr   string
		max    int
		value  string
		length int
		cut    bool
	}{
		{expr: `"hi 😀"`, value: `"hi 😀"`, length: 6},
		{expr: `({a: "😀😀", b: "𝄞"})`, max: 18, value: `{"a":"😀😀","b":"𝄞"}`, length: 18},
		{expr: `"😀".repeat(10)`, max: 5, value: `"😀😀😀😀`, length: 12, cut: true},
		{expr: `"😀".repeat(10)`, max: 2, value: `"😀`, length: 12, cut: true},
		{expr: `"a😀".repeat(3)`, max: 3, value: `"a😀`, length: 8, cut: true},
	} {
		res := e.mustRun(browser.EvalOptions{Expression: tc.expr, MaxChars: tc.max})
		if res.Value != tc.value || res.Length != tc.length || res.Cut() != tc.cut || res.AtLeast {
			t.Errorf("%s (max_chars %d): value %q, length %d (at least %v), cut %v; want %q, %d, cut %v",
				tc.expr, tc.max, res.Value, res.Length, res.AtLeast, res.Cut(), tc.value, tc.length, tc.cut)
		}
		if !utf8.ValidString(res.Value) || strings.ContainsRune(res.Value, utf8.RuneError) {
			t.Errorf("%s (max_chars %d): a character was split: %q", tc.expr, tc.max, res.Value)
		}
	}
}

// A huge array (of numbers, of strings) is walked only as far as
// max_chars needs: the result is cut, says its length is at least a
// number near max_chars (not the whole value's), and the page answers
// afterwards.
func TestEvalHugeArrayBounded(t *testing.T) {
	e := newEnv(t, browser.Options{})
	e.navigate("/eval/main.html")
	long := backendtest.Timeout(30 * time.Second)
	for _, tc := range []struct {
		expr, prefix string
	}{
		{expr: "Array.from({length: 5e6}, (_, i) => i)", prefix: "[0,1,2,3,4,5,6,7,8,9,10,11,"},
		{expr: "Array.from({length: 2e6}, (_, i) => 'item ' + i)", prefix: `["item 0","item 1","item 2",`},
		{expr: "({rows: Array.from({length: 1e6}, (_, i) => ({i}))})", prefix: `{"rows":[{"i":0},{"i":1},`},
		{expr: "new Map(Array.from({length: 1e6}, (_, i) => [i, 'v' + i]))", prefix: `{"Map":[[0,"v0"],[1,"v1"],`},
	} {
		res := e.mustRun(browser.EvalOptions{Expression: tc.expr, MaxChars: 100, Timeout: long})
		if !res.Cut() || !res.AtLeast || res.Length <= 100 || res.Length > 1000 {
			t.Errorf("%s: cut %v, length %d (at least %v); want cut at least a few hundred", tc.expr, res.Cut(), res.Length, res.AtLeast)
		}
		if len([]rune(res.Value)) != 100 || !strings.HasPrefix(res.Value, tc.prefix) {
			t.Errorf("%s: value %q", tc.expr, res.Value)
		}
	}
	// A value just over max_chars that was walked whole has its exact
	// length.
	res := e.mustRun(browser.EvalOptions{Expression: "Array.from({length: 30}, (_, i) => i)", MaxChars: 50})
	if !res.Cut() || res.AtLeast || res.Length != 81 || res.Value != "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19" {
		t.Errorf("30 numbers: %+v", res)
	}
	if res := e.mustRun(browser.EvalOptions{Expression: "appState.user"}); res.Value != `"ada"` {
		t.Errorf("after the huge arrays: %s", res.Value)
	}
}
