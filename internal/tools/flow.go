package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/flow"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/text"
	"unicode/utf8"
)

// FlowIn is browser_flow's input. A step is an object: do (the step kind)
// and that tool's own arguments, plus the flow's fields save_as, retry,
// optional, timeout_ms and nth (see package flow).
type FlowIn struct {
	Steps          []map[string]any `json:"steps" jsonschema:"{do: navigate snapshot find action fill_form wait read collect back screenshot tabs, …its args, save_as, retry, optional, timeout_ms, nth}; \"$name\": saved value"`
	BudgetMs       int              `json:"budget_ms,omitempty" default:"30000" minimum:"1" maximum:"120000"`
	OnErrorCapture *bool            `json:"on_error_capture,omitempty" default:"true"`
	Trace          bool             `json:"trace,omitempty" jsonschema:"HTML trace"`
	Session        string           `json:"session,omitempty"`
	Tab            string           `json:"tab,omitempty"`
}

// plan checks the flow on its own: limits, kinds, the flow's step fields,
// saved names.
func (in FlowIn) plan() (*flow.Plan, error) {
	return flow.Parse(in.Steps, in.BudgetMs, in.OnErrorCapture == nil || *in.OnErrorCapture)
}

// Check refuses a flow that is wrong on its own (too many steps, an unknown
// kind, retry 2, a $name never saved) before anything is held.
func (in FlowIn) Check() error {
	_, err := in.plan()
	return err
}

// Prepare checks each step's arguments as that step's tool would check its
// own call, before anything is held or run.
func (in FlowIn) Prepare(env *Env) error {
	p, err := in.plan()
	if err != nil {
		return err
	}
	return p.Check(&stepExec{env: env})
}

// Preparer is an input that checks itself further with the call's
// environment before the call holds anything (browser_flow checks each
// step's arguments with the server's own checks).
type Preparer interface {
	Prepare(env *Env) error
}

// ErrInactive is what Env.Decode returns for a tool the server does not
// serve (the profile and caps leave it out).
var ErrInactive = errors.New("tool not active")

var flowTool = Def(Tool{
	Name:        "browser_flow",
	Description: "Steps in one call (best ≤8); stops at a failure with trace and page.",
	Annotations: Annotations{}, // destructive and open-world: the defaults
	Group:       GroupFlow,
	Hold:        HoldTab,
}, func(ctx context.Context, h *Held, in FlowIn) (*Result, error) {
	p, err := in.plan()
	if err != nil {
		return nil, err
	}
	x := &stepExec{env: h.env, h: h, record: map[int]*browser.Candidates{}, recordFields: map[int][]*browser.Candidates{}}
	if err := p.Check(x); err != nil {
		return nil, err
	}
	release, gateNote, err := enterGate(ctx, h, planSite(ctx, h, p))
	if err != nil {
		return nil, err
	}
	defer release()
	if in.Trace {
		if x.trace, err = newFlowTrace(h); err != nil {
			return nil, err
		}
	}
	tr := p.Run(ctx, x, h.env.Progress)
	if tr.Err != nil {
		return nil, x.trace.told(tr.Err)
	}
	h.Heal().SetLastFlow(&browser.FlowRecord{Steps: in.Steps, Candidates: x.record, Fields: x.recordFields, BudgetMs: in.BudgetMs, At: time.Now()})
	res := flowResult(p, tr)
	res.Text = x.trace.note(res.Text)
	if gateNote != "" {
		res.Text += "\n" + gateNote
	}
	return res, nil
})

// planSite is the site a flow works on, for the site gate: that of its
// first step's URL when it starts by navigating, else that of the tab's
// page ("" for none, e.g. about:blank).
func planSite(ctx context.Context, h *Held, p *flow.Plan) string {
	if len(p.Steps) > 0 && p.Steps[0].Do == "navigate" {
		if u, ok := p.Steps[0].Args["url"].(string); ok && u != "" {
			return recipes.Site(u)
		}
	}
	u, err := h.Tab().URL(ctx)
	if err != nil {
		return ""
	}
	return recipes.Site(u)
}

// enterGate waits for a turn on the site in the site gate; the returned
// function ends it, and note says how long the run waited for its turn
// ("" when it did not). Without a gate or a site there is nothing to wait
// for.
func enterGate(ctx context.Context, h *Held, site string) (release func(), note string, err error) {
	if h.env.Gate == nil || site == "" {
		return func() {}, "", nil
	}
	start := time.Now()
	release, err = h.env.Gate.Enter(ctx, site, 0)
	if waited := time.Since(start); err == nil && waited >= gateNoted {
		note = fmt.Sprintf("Note: waited %.1f s at the site gate for %s (another run on the site had its turn first).", waited.Seconds(), site)
	}
	return release, note, err
}

// gateNoted is the shortest wait at the site gate a result mentions.
const gateNoted = 100 * time.Millisecond

// flowResult is a flow that ran to its end: the trace, then what the find,
// read and collect steps returned and the notes of the others, then the
// final page when the last step is a snapshot. The last screenshot's image
// comes along, and the inline snapshot when the last step asked for one.
func flowResult(p *flow.Plan, tr *flow.Trace) *Result {
	res := &Result{}
	var b strings.Builder
	skipped := 0
	for _, e := range tr.Entries {
		if e.Outcome == flow.OutcomeSkipped {
			skipped++
		}
	}
	fmt.Fprintf(&b, "Flow done: %d step(s) in %d ms", len(tr.Entries), tr.Ms)
	if skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", skipped)
	}
	for _, e := range tr.Entries {
		b.WriteString("\n" + e.Line())
	}
	last := len(tr.Entries) - 1
	for i, e := range tr.Entries {
		r, _ := e.Output.Raw.(*Result)
		if r == nil {
			continue
		}
		if r.Image != nil {
			res.Image = r.Image
		}
		if r.Dialog != nil {
			res.Dialog = r.Dialog
		}
		switch {
		case e.Do == "find" || e.Do == "read" || e.Do == "collect" || e.Do == "wait" || e.Do == "snapshot" && i == last:
			fmt.Fprintf(&b, "\n\n[%d %s]\n%s", e.Index, e.Do, cutOutput(strings.TrimSpace(r.Text), FlowStepMaxChars))
		default:
			for _, n := range r.Notes {
				fmt.Fprintf(&b, "\n[%d %s] %s", e.Index, e.Do, browser.Echo(n))
			}
		}
	}
	// (none: the flow left its tab on a page all the same, which the
	// server checks for what waits for a person)
	res.Snapshot = "none"
	if last >= 0 && tr.Entries[last].Outcome == flow.OutcomeOK {
		if mode, ok := p.Steps[last].Args["snapshot"].(string); ok && tr.Entries[last].Do != "snapshot" {
			res.Snapshot = mode
		}
	}
	res.Text = cutOutput(b.String(), FlowMaxChars)
	return res
}

// A flow's result is bounded: each step's output, then the whole.
const (
	FlowStepMaxChars = InlineSnapshotMaxChar // a find, read, collect, wait or final snapshot step's output
	FlowMaxChars     = SnapshotMaxChars      // the whole result
)

// cutOutput cuts text to max runes at a line end when there is one, saying
// how much is left out and how to read it.
func cutOutput(s string, max int) string {
	part, more := text.Head(s, max)
	if more == 0 {
		return s
	}
	if i := strings.LastIndexByte(part, '\n'); i > len(part)/2 {
		more += utf8.RuneCountInString(part[i:])
		part = part[:i]
	}
	return part + fmt.Sprintf("\n… %d more chars left out of the flow's result: run that step alone (with offset) to read them", more)
}

// stepExec runs a flow's steps through the tool table, on the flow's held
// session and tab.
type stepExec struct {
	env *Env
	h   *Held // nil while only checking
	// record, when set, gets the candidates of the element each targeting
	// step acts on, described just before it acts (for recipe_save).
	record map[int]*browser.Candidates
	// recordFields, when set, gets those of each field of a fill_form step.
	recordFields map[int][]*browser.Candidates
	// before, when set, runs before a step's tool, with its decoded input
	// (recipe_run relocates the step's element with it).
	before func(ctx context.Context, step int, in any) (any, error)
	// trace, when set, records each step run (browser_flow's trace).
	trace *flowTrace
}

// targeted is a step input with one target element (browser_action,
// browser_read).
type targeted interface{ target() browser.Locator }

// stepTool is the table entry named name.
func stepTool(name string) (Tool, bool) {
	for _, t := range Table() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// decode checks and decodes a step's arguments as the tool's own call
// would: through the server (Env.Decode: coercion, the schema, Check), or,
// outside a server, the tool's own Decode.
func (x *stepExec) decode(tool string, args map[string]any) (Tool, any, error) {
	t, ok := stepTool(tool)
	if !ok || (t.Hold < HoldTab && t.Name != tabsTool.Name) || t.Name == "browser_flow" {
		return Tool{}, nil, fmt.Errorf("%s: %w", tool, flow.ErrNoTool)
	}
	if x.env != nil && x.env.Decode != nil {
		in, err := x.env.Decode(tool, args)
		if errors.Is(err, ErrInactive) {
			return t, nil, fmt.Errorf("%s: %w", tool, flow.ErrNotEnabled)
		}
		return t, in, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return t, nil, &browser.Error{Code: browser.CodeInvalidArgument, Message: "arguments do not encode: " + err.Error()}
	}
	in, err := t.Decode(raw)
	return t, in, err
}

// errCheckOnly is what a StepChecker's Run and Capture return.
var errCheckOnly = errors.New("tools: a step checker only checks")

// StepChecker is a flow.Executor that only checks steps: their arguments as
// each step's tool checks its own call, with decode, the server's check and
// decoding of a tool's arguments (Env.Decode), and without a browser; Run
// and Capture fail. `webpilot recipe validate` checks recipes with it.
func StepChecker(decode func(tool string, args map[string]any) (any, error)) flow.Executor {
	return checkOnly{&stepExec{env: &Env{Decode: decode}}}
}

// checkOnly is a stepExec that never runs a step.
type checkOnly struct{ *stepExec }

// Run implements flow.Executor: it fails.
func (checkOnly) Run(context.Context, int, string, map[string]any) (flow.Output, error) {
	return flow.Output{}, errCheckOnly
}

// Capture implements flow.Executor: it fails.
func (checkOnly) Capture(context.Context, int) (flow.Capture, error) {
	return flow.Capture{}, errCheckOnly
}

// Check implements flow.Executor.
func (x *stepExec) Check(tool string, args map[string]any) error {
	_, _, err := x.decode(tool, args)
	return err
}

// Takes implements flow.Executor.
func (x *stepExec) Takes(tool, arg string) bool {
	t, ok := stepTool(tool)
	if !ok {
		return false
	}
	s, err := t.InputSchema()
	return err == nil && s.Properties[arg] != nil
}

// Run implements flow.Executor: the step's tool runs with the flow's Held.
func (x *stepExec) Run(ctx context.Context, step int, tool string, args map[string]any) (out flow.Output, err error) {
	if x.trace != nil {
		start := time.Now()
		defer func() {
			res, _ := out.Raw.(*Result)
			x.trace.step(ctx, x.h, tool, args, start, res, err)
		}()
	}
	t, in, err := x.decode(tool, args)
	if err != nil {
		return flow.Output{}, err
	}
	if t.Hold == HoldTab && x.h.Exists() {
		// A step before may have led the tab to another site: the person's
		// approval comes before this step reads or acts on it.
		if err := x.h.Person().Approve(ctx); err != nil {
			return flow.Output{}, err
		}
	}
	if x.before != nil {
		if in, err = x.before(ctx, step, in); err != nil {
			return flow.Output{}, err
		}
	}
	// Best effort: a target that does not resolve fails the step itself,
	// with the tool's own error.
	if tg, ok := in.(targeted); ok && x.record != nil {
		if loc := tg.target(); !loc.Empty() {
			if c, err := x.h.Heal().Describe(ctx, loc); err == nil {
				c.ByPlace = browser.Positional(loc.Selector)
				x.record[step] = c
			}
		}
	}
	if form, ok := in.(FillFormIn); ok && x.recordFields != nil {
		cs := make([]*browser.Candidates, len(form.Fields))
		for i, f := range form.Fields {
			if loc := f.target(); !loc.Empty() {
				if c, err := x.h.Heal().Describe(ctx, loc); err == nil {
					c.ByPlace = browser.Positional(loc.Selector)
					cs[i] = c
				}
			}
		}
		x.recordFields[step] = cs
	}
	res, err := t.Run(ctx, x.h, in)
	if err != nil {
		return flow.Output{}, err
	}
	if res == nil {
		res = &Result{}
	}
	return flow.Output{Text: res.Text, Value: res.Value, Raw: res}, nil
}

// Capture implements flow.Executor: the page's URL, title and compact
// snapshot.
func (x *stepExec) Capture(ctx context.Context, maxChars int) (flow.Capture, error) {
	snap, err := x.h.Snapshot(ctx, browser.SnapshotOptions{Mode: browser.ModeCompact, MaxChars: maxChars})
	if err != nil {
		return flow.Capture{}, err
	}
	return flow.Capture{URL: snap.URL, Title: snap.Title, Snapshot: snap.Text}, nil
}

// CallBudget is how long a call of tool may take when the tool has a time
// budget of its own, which replaces the server's per-call ceiling
// (browser_flow: budget_ms, default 30 s, at most 120 s; browser_handoff:
// timeout_ms, default 5 min, at most 15 min); ok is false for tools
// without one. args are the call's raw arguments, not yet checked.
func CallBudget(tool string, args json.RawMessage) (time.Duration, bool) {
	switch tool {
	case flowTool.Name:
		return msArg(args, "budget_ms", flow.DefaultBudget, flow.MaxBudget), true
	case handoffTool.Name:
		return msArg(args, "timeout_ms", browser.HandoffDefaultTimeout, browser.HandoffMaxTimeout), true
	case recipeRunTool.Name:
		// The recipe's own budget (at most this) is kept by the run.
		return flow.MaxBudget, true
	case openCLIRunTool.Name:
		// The run's own timeout, after a wait at the site gate (which
		// keeps its own bound).
		return msArg(args, "timeout_ms", OpenCLIDefaultTimeout, OpenCLIMaxTimeout) + recipes.MaxGateWait, true
	}
	return 0, false
}

// msArg reads a duration argument in milliseconds (a number, or a string
// some clients send) from raw arguments; def when missing or out of
// (0, max].
func msArg(args json.RawMessage, key string, def, max time.Duration) time.Duration {
	var a map[string]any
	_ = json.Unmarshal(args, &a)
	var ms float64
	switch v := a[key].(type) {
	case float64:
		ms = v
	case string:
		ms, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
	}
	d := time.Duration(ms) * time.Millisecond
	if d <= 0 || d > max {
		d = def
	}
	return d
}
