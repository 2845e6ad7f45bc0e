package flow

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

// Executor checks and runs the tools of a flow's steps, on the session and
// tab the flow holds.
type Executor interface {
	// Check checks a tool's arguments exactly as the tool's own call would,
	// without running anything; ErrNoTool or ErrNotEnabled (wrapped) when
	// the tool cannot run.
	Check(tool string, args map[string]any) error
	// Takes reports whether tool has an argument named arg.
	Takes(tool, arg string) bool
	// Run runs tool with args (saved values put in) for the step numbered
	// step (1-based): an executor that keeps something per step (the
	// element a step acted on) knows which.
	Run(ctx context.Context, step int, tool string, args map[string]any) (Output, error)
	// Capture reads the page after a failure: its URL, title and a compact
	// snapshot of at most maxChars characters.
	Capture(ctx context.Context, maxChars int) (Capture, error)
}

// Output is what a step's tool returned.
type Output struct {
	Text string
	// Value is what save_as keeps when it is not the trimmed Text (a
	// read's content without its header); nil: Text.
	Value *string
	// Raw is the executor's own result, handed back untouched.
	Raw any
}

// Capture is the page after a failure.
type Capture struct {
	URL      string
	Title    string
	Snapshot string
}

// Text is text the flow has bounded itself (the captured snapshot, at most
// CaptureMaxChars): a diagnosis value of this type is not cut again to the
// generic bound of diagnosis strings.
type Text string

// Outcomes of a step.
const (
	OutcomeOK      = "ok"
	OutcomeFailed  = "failed"
	OutcomeSkipped = "skipped"
)

// Entry is one step of a trace.
type Entry struct {
	Index    int
	Do       string
	Label    string // the step as run: "action click e12"
	Outcome  string
	Code     toolerr.Code // failed or skipped: the error's code
	Ms       int64
	Attempts int    // 2 when retried
	Result   string // short: at most ResultMaxChars
	Saved    string // save_as name, when a value was saved
	Value    string // the saved value
	Output   Output // the tool's output (ok steps)
}

// Line is the entry as one trace line: `3 action click e12 — ok 140 ms`.
func (e Entry) Line() string {
	s := fmt.Sprintf("%d %s — %s", e.Index, e.Label, e.Outcome)
	if e.Code != "" {
		s += " " + string(e.Code)
	}
	s += fmt.Sprintf(" %d ms", e.Ms)
	if e.Attempts > 1 {
		s += " (retried)"
	}
	if e.Saved != "" {
		s += fmt.Sprintf(" → $%s = %s", e.Saved, shorten(strings.ReplaceAll(e.Value, "\n", " "), 80))
	}
	return s
}

// Trace is what a run did: one entry per step that started, and the error
// that stopped it (nil when every step ran).
type Trace struct {
	Entries []Entry
	Steps   int // steps in the plan
	Ms      int64
	Err     *toolerr.Error // the failing step's error, with the trace (and capture) in its diagnosis
}

// Progress is told of each step's start and of the end: done steps of
// total, and a message such as "step 3/6: action click e12".
type Progress func(done, total int, msg string)

// toolGrace is how much longer than a step's timeout_ms the context of a
// step lasts when its tool takes timeout_ms itself: the tool's own timeout
// error (TARGET_NOT_FOUND after waiting for the element) is clearer than
// the context's.
const toolGrace = 2 * time.Second

// captureTime is what a run keeps of the call's time for reading the page
// after a failure.
const captureTime = 5 * time.Second

// Run runs the plan's steps in order with x. A failing required step (or
// the budget running out) stops it: the trace's Err is that step's error
// with the trace so far in its diagnosis and, when the plan says so, the
// page captured.
func (p *Plan) Run(ctx context.Context, x Executor, progress Progress) *Trace {
	if progress == nil {
		progress = func(int, int, string) {}
	}
	start := time.Now()
	deadline := start.Add(p.Budget)
	if d, ok := ctx.Deadline(); ok && d.Add(-captureTime).Before(deadline) {
		deadline = d.Add(-captureTime)
	}
	tr := &Trace{Steps: len(p.Steps)}
	vars := map[string]string{}
	n := len(p.Steps)
	finish := func(err *toolerr.Error) *Trace {
		tr.Ms = time.Since(start).Milliseconds()
		if err != nil {
			if err.Diagnosis == nil {
				err.Diagnosis = map[string]any{}
			}
			err.Diagnosis["trace"] = tr.diagnosis()
			if p.Capture {
				err.Diagnosis["capture"] = capture(ctx, x)
			}
			tr.Err = err
			progress(len(tr.Entries), n, fmt.Sprintf("stopped at step %d/%d: %s", len(tr.Entries), n, err.Code))
			return tr
		}
		progress(n, n, fmt.Sprintf("done: %d/%d steps", n, n))
		return tr
	}
	for _, s := range p.Steps {
		args, err := s.resolve(vars)
		label := s.Label(s.Args)
		if err == nil {
			label = s.Label(args)
		}
		progress(s.Index-1, n, fmt.Sprintf("step %d/%d: %s", s.Index, n, label))
		e := Entry{Index: s.Index, Do: s.Do, Label: label}
		began := time.Now()
		var be *toolerr.Error
		if err != nil {
			be, _ = toolerr.As(err)
		} else if !time.Now().Before(deadline) {
			be = budgetError(p, s)
		} else {
			var out Output
			var value string
			for e.Attempts = 1; ; e.Attempts++ {
				out, value, be = p.runStep(ctx, x, s, args, deadline)
				if be == nil || e.Attempts > s.Retry || !retryable(be) || !time.Now().Before(deadline) {
					break
				}
			}
			if be == nil {
				e.Output = out
				e.Result = shorten(strings.TrimSpace(out.Text), ResultMaxChars)
				if s.SaveAs != "" {
					vars[s.SaveAs] = value
					e.Saved, e.Value = s.SaveAs, value
				}
			}
		}
		e.Ms = time.Since(began).Milliseconds()
		if be != nil && be.Code == toolerr.CodeTimeout && !time.Now().Before(deadline) && !errors.Is(be, ErrBudget) {
			// The step's tool timed out as the budget ran out: say so.
			detail := strings.TrimPrefix(be.Message, stepName(s.Index, s.Do)+": ")
			be = budgetError(p, s)
			be.Message += " (" + detail + ")"
		}
		msg := ""
		if be != nil {
			msg = shorten(strings.TrimPrefix(be.Message, stepName(s.Index, s.Do)+": "), ResultMaxChars)
		}
		switch {
		case be == nil:
			e.Outcome = OutcomeOK
		case be.Code == toolerr.CodeTimeout && !time.Now().Before(deadline):
			// The budget ran out: that stops even an optional step.
			e.Outcome, e.Code, e.Result = OutcomeFailed, be.Code, msg
			tr.Entries = append(tr.Entries, e)
			return finish(be)
		case s.Optional:
			e.Outcome, e.Code, e.Result = OutcomeSkipped, be.Code, msg
		default:
			e.Outcome, e.Code, e.Result = OutcomeFailed, be.Code, msg
			tr.Entries = append(tr.Entries, e)
			return finish(be)
		}
		tr.Entries = append(tr.Entries, e)
	}
	return finish(nil)
}

// runStep runs one attempt of step s within its timeout and the budget, and
// reads the value it saves.
func (p *Plan) runStep(ctx context.Context, x Executor, s Step, args map[string]any, deadline time.Time) (Output, string, *toolerr.Error) {
	stepDeadline := deadline
	if s.Timeout > 0 {
		limit := s.Timeout
		if x.Takes(s.Tool, fieldTimeout) {
			// The tool keeps the timeout itself and says what it waited
			// for; the context is the backstop.
			limit += toolGrace
		}
		if end := time.Now().Add(limit); end.Before(deadline) {
			stepDeadline = end
		}
	}
	sctx, cancel := context.WithDeadline(ctx, stepDeadline)
	defer cancel()
	out, err := x.Run(sctx, s.Index, s.Tool, s.callArgs(args, x))
	if err != nil {
		if _, ok := toolerr.As(err); !ok && (errors.Is(err, context.DeadlineExceeded) || sctx.Err() != nil && ctx.Err() == nil) {
			if !time.Now().Before(deadline) {
				return out, "", budgetError(p, s)
			}
			return out, "", stepError(s, &toolerr.Error{Code: toolerr.CodeTimeout, Message: fmt.Sprintf("took longer than its timeout_ms of %d", s.Timeout.Milliseconds()),
				Hint: "raise the step's timeout_ms, or add retry: 1"}, toolerr.CodeTimeout)
		}
		if ctx.Err() != nil {
			return out, "", stepError(s, &toolerr.Error{Code: toolerr.CodeTimeout, Message: "the call ended while this step ran: " + ctx.Err().Error(),
				Hint: "check the page with browser_snapshot before running the rest"}, toolerr.CodeTimeout)
		}
		return out, "", stepError(s, err, toolerr.CodeInternal)
	}
	value := strings.TrimSpace(out.Text)
	if out.Value != nil {
		value = strings.TrimSpace(*out.Value)
	}
	if s.Do == "find" && (s.SaveAs != "" || s.Nth > 0) {
		ref, be := pick(s, out.Text)
		if be != nil {
			return out, "", be
		}
		value = ref
	}
	return out, value, nil
}

// ErrBudget is the cause (Error.Err) of the TIMEOUT of a flow whose budget
// ran out: errors.Is(err, ErrBudget) tells it from a step's own timeout.
var ErrBudget = errors.New("flow: budget ran out")

// budgetError is the TIMEOUT of a flow whose budget ran out in step s.
func budgetError(p *Plan, s Step) *toolerr.Error {
	return stepError(s, &toolerr.Error{Code: toolerr.CodeTimeout,
		Message: fmt.Sprintf("the flow's budget of %d ms ran out", p.Budget.Milliseconds()),
		Hint:    "raise budget_ms (at most 120000), or run the rest as another flow; check the page first",
		Err:     ErrBudget}, toolerr.CodeTimeout)
}

// retryable reports whether a failed step may run again: never after an
// outcome that may have taken effect, nor for bad arguments.
func retryable(e *toolerr.Error) bool {
	switch e.Code {
	case toolerr.CodeOutcomeUnknown, toolerr.CodeInvalidArgument, toolerr.CodeDialogOpen, toolerr.CodeOriginBlocked:
		return false
	}
	return true
}

// matchLine is a find result's line for an element with a ref:
// `button e7 "Buy"   (in main)`.
var matchLine = regexp.MustCompile(`^\S+ ((?:f\d+)?e\d+)(?: |$)`)

// pick is the ref a find step saves: match nth, or the only match.
func pick(s Step, text string) (string, *toolerr.Error) {
	var refs, lines []string
	for _, line := range strings.Split(text, "\n") {
		if m := matchLine.FindStringSubmatch(line); m != nil {
			refs = append(refs, m[1])
			lines = append(lines, line)
		}
	}
	fail := func(code toolerr.Code, msg, hint string, sugg []string) (string, *toolerr.Error) {
		return "", stepError(s, &toolerr.Error{Code: code, Message: msg, Hint: hint, Suggestions: sugg}, code)
	}
	switch {
	case len(refs) == 0:
		return fail(toolerr.CodeTargetNotFound, "found no element with a ref", "search with other text, role or name, or snapshot the page first", nil)
	case s.Nth > len(refs):
		return fail(toolerr.CodeTargetNotFound, fmt.Sprintf("nth %d is past the %d match(es)", s.Nth, len(refs)),
			"pick one of the matches listed", numbered(lines))
	case s.Nth > 0:
		return refs[s.Nth-1], nil
	case len(refs) > 1:
		return fail(toolerr.CodeAmbiguousTarget, fmt.Sprintf("found %d matches; say which with nth", len(refs)),
			`add "nth": N to the step (1 for the first), or narrow the search`, numbered(lines))
	}
	return refs[0], nil
}

// numbered lists matches as `"nth": 2 → button e7 "Buy"`.
func numbered(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf(`"nth": %d → %s`, i+1, l)
	}
	return out
}

// capture reads the page after a failure, within a few seconds of its own.
func capture(ctx context.Context, x Executor) map[string]any {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), captureTime)
	defer cancel()
	if d, ok := ctx.Deadline(); ok {
		cctx, cancel = context.WithDeadline(cctx, d)
		defer cancel()
	}
	c, err := x.Capture(cctx, CaptureMaxChars)
	out := map[string]any{"url": c.URL, "title": c.Title}
	if err != nil {
		out["error"] = err.Error()
		if be, ok := toolerr.As(err); ok {
			out["error"] = string(be.Code) + ": " + be.Message
		}
		return out
	}
	out["snapshot"] = Text(shorten(c.Snapshot, CaptureMaxChars))
	return out
}

// diagnosis is the trace as the error's diagnosis holds it.
func (tr *Trace) diagnosis() []any {
	out := make([]any, 0, len(tr.Entries))
	for _, e := range tr.Entries {
		m := map[string]any{"index": e.Index, "do": e.Do, "outcome": e.Outcome, "ms": e.Ms}
		if e.Result != "" {
			m["result"] = e.Result
		}
		if e.Code != "" {
			m["code"] = string(e.Code)
		}
		if e.Attempts > 1 {
			m["attempts"] = e.Attempts
		}
		if e.Saved != "" {
			m["saved"] = "$" + e.Saved
		}
		out = append(out, m)
	}
	return out
}
