package flow

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/text"
	"github.com/webpilot-mcp/webpilot/internal/toolerr"
	"github.com/webpilot-mcp/webpilot/internal/vars"
)

// Limits of a flow (DESIGN.md).
const (
	// MaxSteps is the most steps one flow may have.
	MaxSteps = 20
	// RecommendedSteps is the length a flow should keep to: the tool's
	// description recommends it, nothing enforces it.
	RecommendedSteps = 8
	// DefaultBudget is a flow's time budget when budget_ms is not given.
	DefaultBudget = 30 * time.Second
	// MaxBudget is the largest budget_ms.
	MaxBudget = 120 * time.Second
	// MaxStepTimeout is the largest timeout_ms of a step.
	MaxStepTimeout = 120 * time.Second
	// CaptureMaxChars bounds the snapshot captured after a failure.
	CaptureMaxChars = 6_000
	// ResultMaxChars bounds the result text of one step in a trace.
	ResultMaxChars = 300
	// MaxNameLen bounds a save_as name.
	MaxNameLen = vars.MaxNameLen
)

// Kinds are the step kinds, in DESIGN.md's order.
// tabs (browser_tabs: select, new) is webpilot's addition, for a recipe
// that goes on in a tab the page opened.
var Kinds = []string{"navigate", "snapshot", "find", "action", "fill_form", "wait", "read", "collect", "back", "screenshot", "tabs"}

// ToolFor is the tool a step kind runs: browser_<kind>, and
// browser_navigate for back (with go: back).
func ToolFor(kind string) string {
	if kind == "back" {
		return "browser_navigate"
	}
	return "browser_" + kind
}

// The fields of a step that belong to the flow, not to the step's tool.
const (
	fieldDo       = "do"
	fieldSaveAs   = "save_as"
	fieldRetry    = "retry"
	fieldOptional = "optional"
	fieldTimeout  = "timeout_ms"
	fieldNth      = "nth"
)

// Step is one checked step.
type Step struct {
	Index    int    // 1-based
	Do       string // the step kind
	Tool     string // the tool it runs (ToolFor)
	Args     map[string]any
	SaveAs   string
	Retry    int
	Optional bool
	Timeout  time.Duration // 0: the tool's own
	Nth      int           // find: which match, 1-based; 0: the only one
}

// Label is the step as a trace names it: its kind and the argument that
// says most about it (an action's kind and target, a URL), with args its
// arguments as run.
func (s Step) Label(args map[string]any) string {
	str := func(k string) string { v, _ := args[k].(string); return v }
	target := func() string {
		for _, k := range []string{"ref", "selector", "text"} {
			if v := str(k); v != "" {
				if k == "ref" {
					return v
				}
				return fmt.Sprintf("%s %q", k, v)
			}
		}
		if r := str("role"); r != "" {
			if n := str("name"); n != "" {
				return fmt.Sprintf("%s %q", r, n)
			}
			return r
		}
		return ""
	}
	parts := []string{s.Do}
	switch s.Do {
	case "navigate":
		parts = append(parts, str("url")+str("go"))
	case "action":
		parts = append(parts, str("action"), target())
		if k := str("key"); k != "" {
			parts = append(parts, k)
		}
	case "find":
		for _, k := range []string{"role", "name", "text"} {
			if v := str(k); v != "" {
				parts = append(parts, fmt.Sprintf("%s %q", k, v))
			}
		}
	case "fill_form":
		if f, ok := args["fields"].([]any); ok {
			parts = append(parts, fmt.Sprintf("%d field(s)", len(f)))
		}
	case "read":
		parts = append(parts, str("what"), target())
	case "collect":
		parts = append(parts, str("selector"))
	case "snapshot":
		parts = append(parts, str("mode"))
	}
	out := strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " ")
	return shorten(out, 120)
}

// Plan is a checked flow: its steps and how it runs.
type Plan struct {
	Steps   []Step
	Budget  time.Duration
	Capture bool // read the page after a failure
}

// Parse checks a flow's steps on their own (count, kinds, the flow's fields
// of each step, saved names) and makes its plan; budgetMs 0 means the
// default budget. Each step's tool arguments are checked by Plan.Check.
// Errors are INVALID_ARGUMENT naming the step and the field.
func Parse(steps []map[string]any, budgetMs int, capture bool) (*Plan, error) {
	if len(steps) == 0 {
		return nil, invalid(0, "", "steps is empty: give at least one step", `e.g. [{"do":"navigate","url":"https://example.com"},{"do":"snapshot"}]`)
	}
	if len(steps) > MaxSteps {
		return nil, invalid(0, "", fmt.Sprintf("a flow takes at most %d steps; got %d", MaxSteps, len(steps)),
			fmt.Sprintf("split it into flows of up to %d steps (%d or fewer are best): a failure then costs less", MaxSteps, RecommendedSteps))
	}
	budget := DefaultBudget
	if budgetMs != 0 {
		budget = time.Duration(budgetMs) * time.Millisecond
	}
	if budget <= 0 || budget > MaxBudget {
		return nil, invalid(0, "", fmt.Sprintf("budget_ms must be from 1 to %d; got %d", MaxBudget.Milliseconds(), budgetMs),
			"leave budget_ms out for 30000, or split the flow")
	}
	p := &Plan{Budget: budget, Capture: capture}
	saved := map[string]bool{}
	for i, raw := range steps {
		s, err := parseStep(i+1, raw)
		if err != nil {
			return nil, err
		}
		var unknown error
		walkStrings(s.Args, func(v string) string {
			for _, name := range varsIn(v) {
				if !saved[name] && unknown == nil {
					unknown = invalid(s.Index, s.Do, fmt.Sprintf("$%s is not saved by an earlier step", name),
						fmt.Sprintf(`save it first with "save_as": %q on an earlier step, or write $$ for a literal $`, name))
				}
			}
			return v
		})
		if unknown != nil {
			return nil, unknown
		}
		if s.SaveAs != "" {
			saved[s.SaveAs] = true
		}
		p.Steps = append(p.Steps, s)
	}
	return p, nil
}

// parseStep reads one step: its kind, the flow's fields, and the rest as
// the tool's arguments.
func parseStep(i int, raw map[string]any) (Step, error) {
	s := Step{Index: i, Args: map[string]any{}}
	do, ok := raw[fieldDo].(string)
	if _, has := raw[fieldDo]; !has {
		return s, invalid(i, "", "missing do: the step kind", "do is one of "+strings.Join(Kinds, ", "))
	}
	if !ok || !slices.Contains(Kinds, do) {
		return s, invalid(i, "", fmt.Sprintf("unknown step kind %s", show(raw[fieldDo])), "do is one of "+strings.Join(Kinds, ", "))
	}
	s.Do, s.Tool = do, ToolFor(do)
	for k, v := range raw {
		var err error
		switch k {
		case fieldDo:
		case fieldSaveAs:
			name, ok := v.(string)
			if !ok || !validName(name) {
				err = invalid(i, do, fmt.Sprintf("save_as must be a name of letters, digits and _ (not starting with a digit, at most %d); got %s", MaxNameLen, show(v)),
					`e.g. "save_as": "item", then "$item" in a later step`)
			}
			s.SaveAs = name
		case fieldRetry:
			n, ok := integer(v)
			if !ok || n < 0 || n > 1 {
				err = invalid(i, do, fmt.Sprintf("retry must be 0 or 1; got %s", show(v)), "retry: 1 runs a failed step once more; flows have no loops")
			}
			s.Retry = n
		case fieldOptional:
			b, ok := boolean(v)
			if !ok {
				err = invalid(i, do, fmt.Sprintf("optional must be true or false; got %s", show(v)), "optional: true marks a failed step skipped and goes on")
			}
			s.Optional = b
		case fieldTimeout:
			n, ok := integer(v)
			if !ok || n < 1 || n > int(MaxStepTimeout.Milliseconds()) {
				err = invalid(i, do, fmt.Sprintf("timeout_ms must be an integer from 1 to %d; got %s", MaxStepTimeout.Milliseconds(), show(v)),
					"leave timeout_ms out for the tool's own timeout")
			}
			s.Timeout = time.Duration(n) * time.Millisecond
		case fieldNth:
			n, ok := integer(v)
			switch {
			case do != "find":
				err = invalid(i, do, "nth is for find steps only", `use nth on a find step with save_as, then "$name" here`)
			case !ok || n < 1 || n > 1000:
				err = invalid(i, do, fmt.Sprintf("nth must be an integer from 1 to 1000 (which match); got %s", show(v)), `e.g. "nth": 2 for the second match`)
			}
			s.Nth = n
		case "session", "tab":
			err = invalid(i, do, k+" belongs to the flow, not to a step", "every step runs on the flow's session and tab; give "+k+" to browser_flow")
		default:
			s.Args[k] = v
		}
		if err != nil {
			return s, err
		}
	}
	if do == "back" {
		if _, ok := s.Args["url"]; ok {
			return s, invalid(i, do, "back takes no url", `use {"do":"navigate","url":…} to open a URL`)
		}
		if _, ok := s.Args["go"]; ok {
			return s, invalid(i, do, "back takes no go", `back is navigate with go: back; use {"do":"navigate","go":"forward"} for others`)
		}
		s.Args["go"] = "back"
	}
	return s, nil
}

// ErrNoTool is what an Executor's Check returns (wrapped) for a tool that is
// not in the tool table: the step kind is unknown to this server.
var ErrNoTool = errors.New("no such tool")

// ErrNotEnabled is what an Executor's Check returns (wrapped) for a tool the
// selected profile and caps leave out.
var ErrNotEnabled = errors.New("tool not enabled")

// Check checks every step's tool arguments with x, as the tool's own call
// would check them, before anything runs: the first step's problem.
func (p *Plan) Check(x Executor) error {
	for _, s := range p.Steps {
		if err := s.check(x); err != nil {
			return err
		}
	}
	return nil
}

// CheckEach is Check going on past a problem: the problem of each step
// whose arguments do not check, in step order (none: nil).
func (p *Plan) CheckEach(x Executor) []error {
	var errs []error
	for _, s := range p.Steps {
		if err := s.check(x); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// check checks the step's tool arguments with x: an INVALID_ARGUMENT
// naming the step, or nil.
func (s Step) check(x Executor) error {
	err := x.Check(s.Tool, s.callArgs(s.Args, x))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNoTool):
		return invalid(s.Index, s.Do, fmt.Sprintf("unknown step kind %q: this server has no %s", s.Do, s.Tool),
			"use one of the step kinds whose tools browser_status lists")
	case errors.Is(err, ErrNotEnabled):
		return invalid(s.Index, s.Do, fmt.Sprintf("step kind %q needs %s, which the tool profile leaves out", s.Do, s.Tool),
			"enable its group with --caps, or do without this step")
	}
	return stepError(s, err, toolerr.CodeInvalidArgument)
}

// callArgs are the arguments the step's tool gets: args plus the step's
// timeout as the tool's own timeout_ms when it takes one, and a find's
// limit raised to reach nth.
func (s Step) callArgs(args map[string]any, x Executor) map[string]any {
	out := make(map[string]any, len(args)+1)
	for k, v := range args {
		out[k] = v
	}
	if s.Timeout > 0 && x.Takes(s.Tool, fieldTimeout) {
		out[fieldTimeout] = s.Timeout.Milliseconds()
	}
	if s.Do == "find" && s.Nth > 20 {
		if _, ok := out["limit"]; !ok {
			out["limit"] = s.Nth
		}
	}
	return out
}

// invalid is an INVALID_ARGUMENT about step i (0: the flow itself).
func invalid(i int, do, msg, hint string) *toolerr.Error {
	e := &toolerr.Error{Code: toolerr.CodeInvalidArgument, Message: msg, Hint: hint}
	if i > 0 {
		e.Message = stepName(i, do) + ": " + msg
		e.Diagnosis = map[string]any{"step": i}
		if do != "" {
			e.Diagnosis["do"] = do
		}
	}
	return e
}

func stepName(i int, do string) string {
	if do == "" {
		return fmt.Sprintf("step %d", i)
	}
	return fmt.Sprintf("step %d (%s)", i, do)
}

// stepError is err as the failure of step s: its code (code when err is not
// an agent error), its message prefixed with the step, its hint.
func stepError(s Step, err error, code toolerr.Code) *toolerr.Error {
	out := &toolerr.Error{Code: code, Message: err.Error(), Err: err}
	if code == toolerr.CodeInternal {
		// Not the agent's doing: the cause goes to the log (the server
		// logs an INTERNAL error's cause), the agent gets what a call that
		// failed this way gets.
		out.Message, out.Hint = "webpilot hit an internal error (details in its log)", "retry; if it keeps failing, run browser_status and report the log"
	}
	if be, ok := toolerr.As(err); ok {
		out = &toolerr.Error{Code: be.Code, Message: be.Message, Hint: be.Hint, Suggestions: be.Suggestions, Err: be.Err}
		if len(be.Diagnosis) > 0 {
			out.Diagnosis = map[string]any{"step_diagnosis": be.Diagnosis}
		}
	}
	out.Message = stepName(s.Index, s.Do) + ": " + out.Message
	if out.Diagnosis == nil {
		out.Diagnosis = map[string]any{}
	}
	out.Diagnosis["step"] = s.Index
	out.Diagnosis["do"] = s.Do
	return out
}

// validName reports whether s can be a save_as name (vars.ValidName).
func validName(s string) bool { return vars.ValidName(s) }

// integer reads a whole JSON number, or one sent as a string (some clients
// do), as the server's coercion does for top-level arguments.
func integer(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		return x, true
	case int64:
		f = float64(x)
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

func boolean(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(x)))
		return b, err == nil
	}
	return false, false
}

// show renders a sent value briefly, as JSON.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shorten(string(b), 60)
}

// shorten cuts s to n characters, with an ellipsis.
func shorten(s string, n int) string { return text.Cut(s, n) }
