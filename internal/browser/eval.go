package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/runtime"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
)

// evalResultJS turns browser_eval's value into capped JSON text in the
// page's world (see the file).
//
//go:embed eval.js
var evalResultJS string

// EvalMaxChars is browser_eval's default max_chars; MaxEvalChars is the
// most it returns at once.
const (
	EvalMaxChars = 10_000
	MaxEvalChars = 100_000
)

// evalGroup holds the remote objects of one evaluation; released after it.
const evalGroup = "webpilot-eval"

// EvalOptions is browser_eval's request: exactly one of Expression (a
// JavaScript expression or script; its last value is the result) and
// Function (a function's source, called with Args), in the frame named by
// Frame (the ref or selector of an iframe element; "" for the main frame).
type EvalOptions struct {
	Expression string
	Function   string
	Args       []any
	Frame      string
	Timeout    time.Duration // 0: the action timeout
	MaxChars   int           // 0: EvalMaxChars
}

// EvalResult is what the code gave: its value as JSON text (capped), and
// where it ran.
type EvalResult struct {
	// Frame names the frame: "main frame", or "frame f1" (its key, as in
	// the refs of its elements).
	Frame string
	URL   string // the frame's URL ("" when the code navigated it away)
	// Value is the value as JSON ("undefined" for none), at most MaxChars
	// characters of it (code points, never cut inside one); Length is the
	// whole length, in the same characters.
	Value  string
	Length int
	// AtLeast says the value was too big to be walked whole: Length is
	// then a lower bound (the value is at least that long).
	AtLeast bool
	// MaxChars is the cap applied (after lowering to MaxEvalChars).
	MaxChars int
	// Lowered is the max_chars asked for when it was lowered (0 if not).
	Lowered int
}

// Cut says the value was longer than what is returned.
func (r *EvalResult) Cut() bool { return r.AtLeast || r.Length > len([]rune(r.Value)) }

// Eval runs the agent's code in the page's own (main) world of the tab's
// main frame or of a frame, awaiting a promise it returns, and returns its
// value. An exception is INVALID_ARGUMENT with its text and line; code
// still running at the timeout is TIMEOUT, and is stopped in the page.
func (h *Held) Eval(ctx context.Context, o EvalOptions) (*EvalResult, error) {
	s, t := h.s, h.t
	if err := o.Check(); err != nil {
		return nil, err
	}
	return untilAnswered(ctx, t, func(ctx context.Context) (*EvalResult, error) {
		return reader{s}.eval(ctx, t, o)
	})
}

// Check refuses options that contradict each other: both or neither of
// Expression and Function, Args without Function, negative numbers.
func (o EvalOptions) Check() error {
	hasExpr, hasFn := strings.TrimSpace(o.Expression) != "", strings.TrimSpace(o.Function) != ""
	switch {
	case hasExpr == hasFn:
		return &Error{Code: CodeInvalidArgument, Message: "give exactly one of expression and function",
			Hint: `e.g. {"expression":"document.title"} or {"function":"(sel) => document.querySelectorAll(sel).length","args":["a"]}`}
	case hasExpr && len(o.Args) > 0:
		return &Error{Code: CodeInvalidArgument, Message: "args go with function, not expression",
			Hint: `pass {"function":"(a, b) => …","args":[…]}`}
	case o.MaxChars < 0 || o.Timeout < 0:
		return &Error{Code: CodeInvalidArgument, Message: "max_chars and timeout_ms must not be negative"}
	}
	return nil
}

func (rd reader) eval(ctx context.Context, t *Tab, o EvalOptions) (*EvalResult, error) {
	s := rd.s
	res := &EvalResult{Frame: "main frame", MaxChars: o.MaxChars}
	if res.MaxChars == 0 {
		res.MaxChars = EvalMaxChars
	}
	if res.MaxChars > MaxEvalChars {
		res.Lowered, res.MaxChars = res.MaxChars, MaxEvalChars
	}
	var w frameWorld
	if o.Frame == "" {
		mainID, err := t.page.mainFrameID(ctx)
		if err != nil {
			return nil, backendError("read the page", err)
		}
		w = frameWorld{sess: t.page, frameID: mainID}
	} else {
		cw, cf, err := t.finder().targetWorld(ctx, strings.TrimSpace(o.Frame))
		t.releaseObjects(ctx)
		if err != nil {
			return nil, err
		}
		w, res.Frame = cw, "frame "+cf.key
	}
	code := o.Expression
	if code == "" {
		args, err := json.Marshal(o.Args)
		if err != nil || o.Args == nil {
			args = []byte("[]")
		}
		// The function's source on lines of its own, so that a line
		// number in an exception is the line of the agent's source, and a
		// closing line comment does not swallow the call.
		code = "(\n" + o.Function + "\n)(..." + string(args) + ")"
	}
	timeout := or(o.Timeout, s.pol.opts.ActionTimeout)
	for attempt := 0; ; attempt++ {
		pc, err := pageContextOf(ctx, w)
		if err != nil {
			return nil, err
		}
		err = rd.evalIn(ctx, w, pc, code, o.Function != "", timeout, res)
		if attempt == 0 && isContextGone(err) {
			// The frame's document changed under the cached context.
			w.sess.worlds.dropMain(w.frameID, pc)
			continue
		}
		return res, err
	}
}

// evalIn runs code in the page context pc of frame w and fills res.
func (rd reader) evalIn(ctx context.Context, w frameWorld, pc pageContext, code string, fn bool, timeout time.Duration, res *EvalResult) error {
	// The page's thread stops a running script at the timeout and
	// answers; rctx, a moment later, is for what it cannot stop (a
	// promise that never settles, or code after an await).
	rctx, cancel := context.WithTimeout(ctx, timeout+evalGrace)
	defer cancel()
	start := time.Now()
	fail := func(doing string, err error) error {
		switch {
		case errors.Is(context.Cause(ctx), errDialogOpened):
			// The code opened a dialog: it waits for the answer
			// (untilAnswered reports DIALOG_OPEN).
		case rctx.Err() != nil && ctx.Err() == nil:
			stopScript(rctx, w.sess, err)
			return evalTimeout(timeout)
		case ctx.Err() != nil:
			stopScript(ctx, w.sess, err)
		case time.Since(start) >= timeout && !isContextGone(err) && !errors.Is(err, cdp.ErrDetached) && !errors.Is(err, cdp.ErrClosed):
			// The page stopped the code at the evaluation's timeout (it
			// answers with an internal error).
			return evalTimeout(timeout)
		}
		return backendError(doing, err)
	}
	p := runtime.EvaluateParams{
		Expression: code, UniqueContextID: pc.unique, ObjectGroup: evalGroup,
		AwaitPromise: new(true), UserGesture: new(true),
		// The page's thread stops the code itself at the timeout: the
		// only stop that also works over the bridge, where
		// Runtime.terminateExecution is refused.
		Timeout: runtime.TimeDelta(timeout.Milliseconds()),
		// REPL mode: top-level await, and let/const that can be declared
		// again by the next evaluation.
		ReplMode: new(!fn),
	}
	if pc.unique == "" {
		p.UniqueContextID, p.ContextID = "", pc.id
	}
	r, err := cdproto.Call(rctx, w.sess, runtime.Evaluate, p)
	if err != nil {
		return fail("run the code", err)
	}
	if r.Result != nil && r.Result.ObjectID != "" {
		defer releaseEval(ctx, w.sess)
	}
	if r.ExceptionDetails == nil && r.Result != nil && r.Result.Subtype == "promise" {
		// REPL mode awaits the code, not a promise it ends with.
		ar, err := cdproto.Call(rctx, w.sess, runtime.AwaitPromise, runtime.AwaitPromiseParams{PromiseObjectID: r.Result.ObjectID})
		if err != nil {
			return fail("run the code", err)
		}
		r.Result, r.ExceptionDetails = ar.Result, ar.ExceptionDetails
	}
	if d := r.ExceptionDetails; d != nil {
		return evalException(d, fn)
	}
	// The value, described as JSON in the same context.
	cp := runtime.CallFunctionOnParams{FunctionDeclaration: evalResultJS, ReturnByValue: new(true), ObjectGroup: evalGroup}
	maxArg, _ := json.Marshal(res.MaxChars)
	if r.Result != nil && r.Result.ObjectID != "" {
		cp.ObjectID = r.Result.ObjectID
		cp.Arguments = []*runtime.CallArgument{{Value: []byte("null")}, {Value: []byte("false")}, {Value: maxArg}}
	} else {
		arg := &runtime.CallArgument{}
		if r.Result != nil {
			arg.Value, arg.UnserializableValue = r.Result.Value, r.Result.UnserializableValue
		}
		cp.UniqueContextID, cp.ExecutionContextID = pc.unique, 0
		if pc.unique == "" {
			cp.ExecutionContextID = pc.id
		}
		cp.Arguments = []*runtime.CallArgument{arg, {Value: []byte("true")}, {Value: maxArg}}
	}
	cr, err := cdproto.Call(rctx, w.sess, runtime.CallFunctionOn, cp)
	if err != nil && isContextGone(err) && cp.ObjectID == "" {
		// The code navigated the frame away; its plain value is known.
		v := []rune(primitiveJSON(r.Result))
		res.Value, res.Length = string(v[:min(len(v), res.MaxChars)]), len(v)
		return nil
	}
	if err != nil {
		return fail("read the result", err)
	}
	if cr.ExceptionDetails != nil {
		return &Error{Code: CodeInvalidArgument, Message: "the result could not be read: " + firstLine(exceptionText(cr.ExceptionDetails)),
			Hint: "return plain data (strings, numbers, arrays, objects), e.g. el.textContent instead of el"}
	}
	var out struct {
		URL     string `json:"url"`
		Text    string `json:"text"`
		Len     int    `json:"len"`
		AtLeast bool   `json:"atLeast"`
	}
	if cr.Result == nil || json.Unmarshal(cr.Result.Value, &out) != nil {
		return fmt.Errorf("read the result: unexpected answer")
	}
	res.URL, res.Value, res.Length, res.AtLeast = out.URL, out.Text, out.Len, out.AtLeast
	return nil
}

// primitiveJSON is a value that is not an object (no object id) as JSON,
// with the values JSON cannot hold (NaN, bigint, undefined) as strings, as
// eval.js writes them.
func primitiveJSON(o *runtime.RemoteObject) string {
	switch {
	case o == nil || o.Type == "undefined":
		return "undefined"
	case o.UnserializableValue != "":
		return strconv.Quote(string(o.UnserializableValue))
	case len(o.Value) > 0:
		return string(o.Value)
	}
	return "null"
}

// releaseEval releases the evaluation's remote objects, briefly.
func releaseEval(ctx context.Context, sess cdp.Caller) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handleTimeout)
	defer cancel()
	_, _ = cdproto.Call(ctx, sess, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: evalGroup})
}

func evalTimeout(d time.Duration) *Error {
	return &Error{Code: CodeTimeout, Message: fmt.Sprintf("the code was still running after %s and was stopped", d.Round(time.Millisecond)),
		Hint: "check for endless loops or promises that never settle; allow more time with timeout_ms"}
}

// evalException is the agent's code's exception: INVALID_ARGUMENT with its
// first line and where it was thrown.
func evalException(d *runtime.ExceptionDetails, fn bool) *Error {
	msg := firstLine(exceptionText(d))
	if d.Exception != nil && d.Exception.Description == "" && len(d.Exception.Value) > 0 {
		msg = d.Text + " " + string(d.Exception.Value) // a thrown non-Error value
	}
	// Where in the agent's code (a script without a URL): the innermost
	// frame of the stack in it, else the exception's place (a syntax
	// error). REPL mode reports a thrown exception's place 1-based, the
	// stack 0-based.
	line, col, found := d.LineNumber, d.ColumnNumber, d.URL == "" && d.StackTrace == nil
	if d.StackTrace != nil {
		for _, cf := range d.StackTrace.CallFrames {
			if cf.URL == "" {
				line, col, found = cf.LineNumber, cf.ColumnNumber, true
				break
			}
		}
	}
	line++
	if fn {
		line-- // the function's source starts on the second line
	}
	where := ""
	if found && line >= 1 {
		where = fmt.Sprintf(" (line %d, column %d)", line, col+1)
	}
	return &Error{Code: CodeInvalidArgument, Message: "the code threw " + shorten(msg, 500) + where,
		Hint: "fix the code; it runs in the page's own JavaScript, so page globals are visible and the DOM is live"}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// evalGrace is the time past an evaluation's timeout that its call waits
// for the page to answer.
const evalGrace = 250 * time.Millisecond

// pageContextWait bounds the wait for a frame's page context to be
// reported (the event comes through the extension on the bridge, late on a
// busy machine); the wait ends as soon as it is.
const pageContextWait = 5 * time.Second

// pageContextOf is the page's own execution context in frame w. Tab
// sessions report contexts from the start; the session of an
// out-of-process frame reports them once Runtime is enabled there, which
// is done on first use.
func pageContextOf(ctx context.Context, w frameWorld) (pageContext, error) {
	c := w.sess.worlds
	if pc, ok := c.main(w.frameID); ok {
		return pc, nil
	}
	if !c.runtimeOn.Load() {
		if err := w.sess.Call(ctx, "Runtime.enable", nil, nil); err != nil {
			return pageContext{}, backendError("reach the frame", err)
		}
		c.runtimeOn.Store(true)
	}
	deadline := time.Now().Add(pageContextWait)
	for {
		if pc, ok := c.main(w.frameID); ok {
			return pc, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		sleep(ctx, 10)
	}
	if err := ctx.Err(); err != nil {
		return pageContext{}, backendError("reach the frame", err)
	}
	return pageContext{}, &Error{Code: CodeTargetNotFound, Message: "the frame's page has no JavaScript context yet",
		Hint: "wait for the frame to load (browser_frames lists it with its URL), then try again"}
}
