package flow

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/webpilot-mcp/webpilot/internal/toolerr"
)

// steps builds n copies of a snapshot step.
func steps(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"do": "snapshot"}
	}
	return out
}

// Validation: every bad flow is INVALID_ARGUMENT naming the step and the
// field, before anything runs.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steps  []map[string]any
		budget int
		want   []string // in the message
	}{
		{"no steps", nil, 0, []string{"steps is empty"}},
		{"21 steps", steps(21), 0, []string{"at most 20 steps", "got 21"}},
		{"budget 200 s", steps(1), 200_000, []string{"budget_ms", "120000", "200000"}},
		{"negative budget", steps(1), -5, []string{"budget_ms"}},
		{"missing do", []map[string]any{{"url": "x"}}, 0, []string{"step 1", "missing do"}},
		{"unknown kind", []map[string]any{{"do": "snapshot"}, {"do": "teleport"}}, 0, []string{"step 2", `unknown step kind "teleport"`}},
		{"do not a string", []map[string]any{{"do": 3.0}}, 0, []string{"step 1", "unknown step kind 3"}},
		{"unknown $var", []map[string]any{{"do": "action", "action": "click", "ref": "$item"}}, 0, []string{"step 1 (action)", "$item is not saved"}},
		{"$var saved later", []map[string]any{{"do": "action", "action": "click", "ref": "$item"}, {"do": "find", "text": "x", "save_as": "item"}}, 0, []string{"step 1", "$item"}},
		{"$var in a nested field", []map[string]any{{"do": "fill_form", "fields": []any{map[string]any{"ref": "e1", "value": "hi $who"}}}}, 0, []string{"step 1 (fill_form)", "$who"}},
		{"retry 2", []map[string]any{{"do": "snapshot"}, {"do": "snapshot"}, {"do": "action", "action": "click", "ref": "e1", "retry": 2.0}}, 0, []string{"step 3 (action)", "retry must be 0 or 1", "got 2"}},
		{"retry text", []map[string]any{{"do": "snapshot", "retry": "often"}}, 0, []string{"step 1", "retry"}},
		{"nth on an action", []map[string]any{{"do": "action", "action": "click", "ref": "e1", "nth": 2.0}}, 0, []string{"step 1 (action)", "nth is for find"}},
		{"nth 0", []map[string]any{{"do": "find", "text": "x", "nth": 0.0}}, 0, []string{"step 1 (find)", "nth must be"}},
		{"nth 1.5", []map[string]any{{"do": "find", "text": "x", "nth": 1.5}}, 0, []string{"step 1 (find)", "nth must be"}},
		{"timeout 0", []map[string]any{{"do": "snapshot", "timeout_ms": 0.0}}, 0, []string{"step 1", "timeout_ms"}},
		{"timeout too long", []map[string]any{{"do": "snapshot", "timeout_ms": 500_000.0}}, 0, []string{"step 1", "timeout_ms", "120000"}},
		{"optional not a bool", []map[string]any{{"do": "snapshot", "optional": "maybe"}}, 0, []string{"step 1", "optional"}},
		{"bad save_as", []map[string]any{{"do": "find", "text": "x", "save_as": "my item"}}, 0, []string{"step 1 (find)", "save_as"}},
		{"save_as digit first", []map[string]any{{"do": "find", "text": "x", "save_as": "1st"}}, 0, []string{"save_as"}},
		{"session in a step", []map[string]any{{"do": "snapshot", "session": "other"}}, 0, []string{"step 1", "session belongs to the flow"}},
		{"tab in a step", []map[string]any{{"do": "snapshot", "tab": "t1"}}, 0, []string{"step 1", "tab belongs to the flow"}},
		{"back with a url", []map[string]any{{"do": "back", "url": "https://example.com"}}, 0, []string{"step 1 (back)", "back takes no url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.steps, tc.budget, true)
			be, ok := toolerr.As(err)
			if !ok {
				t.Fatalf("Parse = %v, want INVALID_ARGUMENT", err)
			}
			if be.Code != toolerr.CodeInvalidArgument {
				t.Errorf("code %s, want INVALID_ARGUMENT", be.Code)
			}
			for _, w := range tc.want {
				if !strings.Contains(be.Message, w) {
					t.Errorf("message %q lacks %q", be.Message, w)
				}
			}
			if be.Hint == "" {
				t.Errorf("no hint: %q", be.Message)
			}
		})
	}
}

// What a valid flow becomes.
func TestParse(t *testing.T) {
	p, err := Parse([]map[string]any{
		{"do": "navigate", "url": "https://example.com/$$5"},
		{"do": "find", "role": "button", "nth": "2", "save_as": "buy", "retry": 1.0, "timeout_ms": 500.0},
		{"do": "action", "action": "click", "ref": "$buy", "optional": true},
		{"do": "back"},
	}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Budget != DefaultBudget || p.Capture {
		t.Errorf("budget %v capture %v", p.Budget, p.Capture)
	}
	if len(p.Steps) != 4 {
		t.Fatalf("%d steps", len(p.Steps))
	}
	f := p.Steps[1]
	if f.Index != 2 || f.Tool != "browser_find" || f.Nth != 2 || f.SaveAs != "buy" || f.Retry != 1 || f.Timeout.Milliseconds() != 500 {
		t.Errorf("find step %+v", f)
	}
	for _, k := range []string{"do", "nth", "save_as", "retry", "timeout_ms"} {
		if _, ok := f.Args[k]; ok {
			t.Errorf("the flow's field %s left in the tool's arguments %v", k, f.Args)
		}
	}
	if !p.Steps[2].Optional {
		t.Errorf("step 3 not optional")
	}
	if b := p.Steps[3]; b.Tool != "browser_navigate" || b.Args["go"] != "back" {
		t.Errorf("back step %+v", b)
	}
	if len(steps(MaxSteps)) != MaxSteps {
		t.Fatal()
	}
	if _, err := Parse(steps(MaxSteps), int(MaxBudget.Milliseconds()), true); err != nil {
		t.Errorf("20 steps and a 120 s budget refused: %v", err)
	}
}

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"item": "e12", "name": "Ada", "n_2": "two"}
	for _, tc := range []struct{ in, want, err string }{
		{"$item", "e12", ""},
		{"hello $name!", "hello Ada!", ""},
		{"$name$item", "Adae12", ""},
		{"costs $$5 and $5", "costs $5 and $5", ""},
		{"$$item", "$item", ""},
		{"$$$item", "$e12", ""},
		{"trailing $", "trailing $", ""},
		{"$n_2.", "two.", ""},
		{"$ item", "$ item", ""},
		{"no dollars", "no dollars", ""},
		{"$missing", "", "$missing has no value"},
		{"ünï $name ✓", "ünï Ada ✓", ""},
	} {
		got, err := Substitute(tc.in, vars)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Substitute(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("Substitute(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if got := varsIn("a $x and $y, $$z, $1"); strings.Join(got, ",") != "x,y" {
		t.Errorf("varsIn = %v", got)
	}
}

// fakeExec runs steps from a script: fail[i] is how many times call i of a
// tool fails before it succeeds.
type fakeExec struct {
	calls   []string        // tool + args as run
	fails   map[int][]error // step (by call order of that step's label) → errors to return first
	texts   map[string]string
	noTool  map[string]bool
	off     map[string]bool
	checked []string
	block   bool // Run waits for its context
	capErr  error
	byStep  map[string]int
	steps   []int // the step number of each Run
}

func (f *fakeExec) Check(tool string, args map[string]any) error {
	switch {
	case f.noTool[tool]:
		return fmt.Errorf("%s: %w", tool, ErrNoTool)
	case f.off[tool]:
		return fmt.Errorf("%s: %w", tool, ErrNotEnabled)
	}
	if _, ok := args["bogus"]; ok {
		return &toolerr.Error{Code: toolerr.CodeInvalidArgument, Message: `unknown argument "bogus"`, Hint: "this takes only: …"}
	}
	return nil
}

func (f *fakeExec) Takes(tool, arg string) bool {
	return arg == "timeout_ms" && tool == "browser_action"
}

func (f *fakeExec) Run(ctx context.Context, step int, tool string, args map[string]any) (Output, error) {
	f.steps = append(f.steps, step)
	str := func(k string) string { v, _ := args[k].(string); return v }
	key := strings.TrimSpace(tool + " " + str("ref") + str("url") + str("text"))
	f.calls = append(f.calls, key)
	if f.block {
		<-ctx.Done()
		return Output{}, ctx.Err()
	}
	if errs := f.fails[len(f.calls)]; len(errs) > 0 {
		return Output{}, errs[0]
	}
	if txt, ok := f.texts[tool]; ok {
		if tool == "browser_read" {
			// as browser_read answers: a header line, then the content,
			// which is the value
			return Output{Text: "text of selector \"#status\" at https://x.test/ (11 chars):\n" + txt, Value: &txt}, nil
		}
		return Output{Text: txt}, nil
	}
	return Output{Text: "did " + key}, nil
}

func (f *fakeExec) Capture(ctx context.Context, maxChars int) (Capture, error) {
	if f.capErr != nil {
		return Capture{URL: "https://x.test/"}, f.capErr
	}
	return Capture{URL: "https://x.test/", Title: "X", Snapshot: strings.Repeat("line\n", 5000)}, nil
}

var notFound = &toolerr.Error{Code: toolerr.CodeTargetNotFound, Message: "no element matches", Hint: "snapshot"}

// Check names the step of a bad argument, and unknown or disabled tools.
func TestPlanCheck(t *testing.T) {
	p, err := Parse([]map[string]any{{"do": "snapshot"}, {"do": "snapshot"}, {"do": "action", "action": "click", "bogus": 1.0}}, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeExec{}
	be, _ := toolerr.As(p.Check(f))
	if be == nil || be.Code != toolerr.CodeInvalidArgument || !strings.HasPrefix(be.Message, `step 3 (action): unknown argument "bogus"`) || be.Diagnosis["step"] != 3 {
		t.Errorf("Check = %#v", be)
	}
	if len(f.calls) != 0 {
		t.Errorf("Check ran steps: %v", f.calls)
	}
	p, _ = Parse([]map[string]any{{"do": "wait"}}, 0, true)
	if be, _ := toolerr.As(p.Check(&fakeExec{noTool: map[string]bool{"browser_wait": true}})); be == nil || !strings.Contains(be.Message, `step 1 (wait): unknown step kind "wait"`) {
		t.Errorf("a step kind without its tool: %v", be)
	}
	if be, _ := toolerr.As(p.Check(&fakeExec{off: map[string]bool{"browser_wait": true}})); be == nil || be.Code != toolerr.CodeInvalidArgument || !strings.Contains(be.Message, "profile leaves out") {
		t.Errorf("a step kind whose tool is off: %v", be)
	}
}

// progressLog records progress and checks that it only grows.
type progressLog struct {
	t     *testing.T
	msgs  []string
	last  int
	total int
}

func (l *progressLog) report(done, total int, msg string) {
	if len(l.msgs) > 0 && done <= l.last {
		l.t.Errorf("progress went from %d to %d (%s)", l.last, done, msg)
	}
	l.last, l.total = done, total
	l.msgs = append(l.msgs, fmt.Sprintf("%d/%d %s", done, total, msg))
}

func TestRun(t *testing.T) {
	ctx := context.Background()
	find := "# 3 match(es) for role button on Shop — https://x.test/\n" +
		"button e4 \"Buy\"   (in main)\n## Also\nbutton f1e9 \"Buy too\"\nlink e7 \"Buy more\" → /more"

	t.Run("all ok with saved values", func(t *testing.T) {
		p, _ := Parse([]map[string]any{
			{"do": "navigate", "url": "https://x.test/"},
			{"do": "find", "role": "button", "nth": 2.0, "save_as": "pick"},
			{"do": "action", "action": "click", "ref": "$pick"},
			{"do": "read", "save_as": "said"},
			{"do": "fill_form", "fields": []any{map[string]any{"ref": "$pick", "value": "said: $said"}}},
		}, 0, true)
		f := &fakeExec{texts: map[string]string{"browser_find": find, "browser_read": "  Thanks!  "}}
		pl := &progressLog{t: t}
		tr := p.Run(ctx, f, pl.report)
		if tr.Err != nil {
			t.Fatalf("Err = %v", tr.Err)
		}
		if len(tr.Entries) != 5 || f.calls[2] != "browser_action f1e9" {
			t.Errorf("calls %q", f.calls)
		}
		if e := tr.Entries[1]; e.Saved != "pick" || e.Value != "f1e9" || !strings.Contains(e.Line(), "2 find role \"button\" — ok") || !strings.Contains(e.Line(), "$pick = f1e9") {
			t.Errorf("find entry %+v: %s", e, e.Line())
		}
		if e := tr.Entries[2]; e.Label != "action click f1e9" {
			t.Errorf("label %q", e.Label)
		}
		if tr.Entries[3].Value != "Thanks!" {
			t.Errorf("read saved %q", tr.Entries[3].Value)
		}
		if len(pl.msgs) != 6 || pl.msgs[2] != "2/5 step 3/5: action click f1e9" || pl.last != 5 || pl.total != 5 {
			t.Errorf("progress %q", pl.msgs)
		}
	})

	t.Run("a failing step stops the flow with the trace and the capture", func(t *testing.T) {
		p, _ := Parse([]map[string]any{
			{"do": "navigate", "url": "https://x.test/"},
			{"do": "snapshot"},
			{"do": "action", "action": "click", "text": "Nope"},
			{"do": "snapshot"},
		}, 0, true)
		f := &fakeExec{fails: map[int][]error{3: {notFound}}}
		pl := &progressLog{t: t}
		tr := p.Run(ctx, f, pl.report)
		if tr.Err == nil || tr.Err.Code != toolerr.CodeTargetNotFound || !strings.HasPrefix(tr.Err.Message, "step 3 (action): no element matches") || tr.Err.Hint != "snapshot" {
			t.Fatalf("Err = %#v", tr.Err)
		}
		if len(f.calls) != 3 {
			t.Errorf("ran %d steps, want 3", len(f.calls))
		}
		trace, _ := tr.Err.Diagnosis["trace"].([]any)
		if len(trace) != 3 || trace[0].(map[string]any)["outcome"] != "ok" || trace[1].(map[string]any)["outcome"] != "ok" || trace[2].(map[string]any)["outcome"] != "failed" || trace[2].(map[string]any)["code"] != "TARGET_NOT_FOUND" {
			t.Errorf("trace %v", trace)
		}
		c, _ := tr.Err.Diagnosis["capture"].(map[string]any)
		snap, _ := c["snapshot"].(Text)
		if c["url"] != "https://x.test/" || c["title"] != "X" || len([]rune(string(snap))) != CaptureMaxChars {
			t.Errorf("capture %v (%d chars)", c["url"], len(snap))
		}
		// Bounded keeps the capture whole: it is bounded here.
		if b := tr.Err.Bounded(); len([]rune(string(b.Diagnosis["capture"].(map[string]any)["snapshot"].(Text)))) != CaptureMaxChars {
			t.Errorf("the error's bounds cut the capture")
		}
		if pl.last != 3 || !strings.Contains(pl.msgs[len(pl.msgs)-1], "stopped at step 3/4") {
			t.Errorf("progress %q", pl.msgs)
		}
		p.Capture = false
		tr = p.Run(ctx, &fakeExec{fails: map[int][]error{3: {notFound}}}, nil)
		if _, ok := tr.Err.Diagnosis["capture"]; ok || tr.Err.Diagnosis["trace"] == nil {
			t.Errorf("on_error_capture false: diagnosis %v", tr.Err.Diagnosis)
		}
	})

	t.Run("a fault that is not the agent's is INTERNAL, its cause kept for the log", func(t *testing.T) {
		p, _ := Parse([]map[string]any{{"do": "snapshot"}}, 0, false)
		cause := errors.New("page walker: cdp: connection reset")
		tr := p.Run(ctx, &fakeExec{fails: map[int][]error{1: {cause}}}, nil)
		if tr.Err == nil || tr.Err.Code != toolerr.CodeInternal || strings.Contains(tr.Err.Message, "connection reset") || tr.Err.Hint == "" || !errors.Is(tr.Err, cause) {
			t.Errorf("Err = %#v", tr.Err)
		}
	})

	t.Run("an optional step is skipped", func(t *testing.T) {
		p, _ := Parse([]map[string]any{
			{"do": "action", "action": "click", "text": "Cookie banner", "optional": true},
			{"do": "snapshot"},
		}, 0, true)
		f := &fakeExec{fails: map[int][]error{1: {notFound}}}
		tr := p.Run(ctx, f, nil)
		if tr.Err != nil || len(tr.Entries) != 2 || tr.Entries[0].Outcome != OutcomeSkipped || tr.Entries[0].Code != toolerr.CodeTargetNotFound || tr.Entries[1].Outcome != OutcomeOK {
			t.Errorf("trace %+v err %v", tr.Entries, tr.Err)
		}
		if !strings.Contains(tr.Entries[0].Line(), "skipped TARGET_NOT_FOUND") {
			t.Errorf("line %q", tr.Entries[0].Line())
		}
	})

	t.Run("a value of a skipped step", func(t *testing.T) {
		p, _ := Parse([]map[string]any{
			{"do": "find", "text": "x", "save_as": "x", "optional": true},
			{"do": "action", "action": "click", "ref": "$x"},
		}, 0, true)
		tr := p.Run(ctx, &fakeExec{fails: map[int][]error{1: {notFound}}}, nil)
		if tr.Err == nil || tr.Err.Code != toolerr.CodeInvalidArgument || !strings.Contains(tr.Err.Message, "$x has no value") {
			t.Errorf("Err = %v", tr.Err)
		}
	})

	t.Run("retry 1 runs a failed step once more", func(t *testing.T) {
		p, _ := Parse([]map[string]any{
			{"do": "action", "action": "check", "text": "Agree", "retry": 1.0},
			{"do": "action", "action": "click", "text": "Never", "retry": 1.0},
		}, 0, true)
		f := &fakeExec{fails: map[int][]error{1: {notFound}, 3: {notFound}, 4: {notFound}}}
		tr := p.Run(ctx, f, nil)
		if len(f.calls) != 4 || tr.Entries[0].Outcome != OutcomeOK || tr.Entries[0].Attempts != 2 || !strings.Contains(tr.Entries[0].Line(), "(retried)") {
			t.Errorf("calls %q entries %+v", f.calls, tr.Entries)
		}
		if tr.Err == nil || tr.Entries[1].Attempts != 2 {
			t.Errorf("the second step failed twice: err %v entries %+v", tr.Err, tr.Entries)
		}
		// OUTCOME_UNKNOWN is never repeated.
		p, _ = Parse([]map[string]any{{"do": "action", "action": "click", "text": "Pay", "retry": 1.0}}, 0, true)
		f = &fakeExec{fails: map[int][]error{1: {&toolerr.Error{Code: toolerr.CodeOutcomeUnknown, Message: "?"}}}}
		if tr := p.Run(ctx, f, nil); len(f.calls) != 1 || tr.Err == nil || tr.Err.Code != toolerr.CodeOutcomeUnknown {
			t.Errorf("OUTCOME_UNKNOWN retried: calls %q err %v", f.calls, tr.Err)
		}
	})

	t.Run("find needs nth when several match", func(t *testing.T) {
		p, _ := Parse([]map[string]any{{"do": "find", "role": "button", "save_as": "b"}}, 0, true)
		tr := p.Run(ctx, &fakeExec{texts: map[string]string{"browser_find": find}}, nil)
		if tr.Err == nil || tr.Err.Code != toolerr.CodeAmbiguousTarget || len(tr.Err.Suggestions) != 3 || !strings.Contains(tr.Err.Suggestions[1], `"nth": 2 → button f1e9 "Buy too"`) {
			t.Errorf("Err = %#v", tr.Err)
		}
		p, _ = Parse([]map[string]any{{"do": "find", "role": "button", "nth": 4.0}}, 0, true)
		if tr := p.Run(ctx, &fakeExec{texts: map[string]string{"browser_find": find}}, nil); tr.Err == nil || tr.Err.Code != toolerr.CodeTargetNotFound {
			t.Errorf("nth past the matches: %v", tr.Err)
		}
		p, _ = Parse([]map[string]any{{"do": "find", "role": "button", "save_as": "b"}}, 0, true)
		none := "# 0 match(es) for role button on Shop — https://x.test/\n(nothing matches; try …)"
		if tr := p.Run(ctx, &fakeExec{texts: map[string]string{"browser_find": none}}, nil); tr.Err == nil || tr.Err.Code != toolerr.CodeTargetNotFound {
			t.Errorf("no match: %v", tr.Err)
		}
		// Without save_as or nth, a find only shows its matches.
		p, _ = Parse([]map[string]any{{"do": "find", "role": "button"}}, 0, true)
		if tr := p.Run(ctx, &fakeExec{texts: map[string]string{"browser_find": find}}, nil); tr.Err != nil {
			t.Errorf("a find without save_as: %v", tr.Err)
		}
	})

	t.Run("the budget running out stops even an optional step", func(t *testing.T) {
		p, _ := Parse([]map[string]any{{"do": "snapshot", "optional": true}, {"do": "snapshot"}}, 50, true)
		f := &fakeExec{block: true}
		tr := p.Run(ctx, f, nil)
		if tr.Err == nil || tr.Err.Code != toolerr.CodeTimeout || !strings.Contains(tr.Err.Message, "budget of 50 ms") || len(f.calls) != 1 {
			t.Errorf("Err = %v, calls %q", tr.Err, f.calls)
		}
		if tr.Err.Diagnosis["capture"] == nil || tr.Err.Diagnosis["trace"] == nil {
			t.Errorf("diagnosis %v", tr.Err.Diagnosis)
		}
		if !errors.Is(tr.Err, ErrBudget) {
			t.Errorf("the budget's TIMEOUT is not ErrBudget: %v", tr.Err)
		}
	})

	t.Run("a step's own timeout", func(t *testing.T) {
		p, _ := Parse([]map[string]any{{"do": "snapshot", "timeout_ms": 30.0}}, 0, true)
		tr := p.Run(ctx, &fakeExec{block: true}, nil)
		if tr.Err == nil || tr.Err.Code != toolerr.CodeTimeout || !strings.Contains(tr.Err.Message, "timeout_ms of 30") {
			t.Errorf("Err = %v", tr.Err)
		}
		if errors.Is(tr.Err, ErrBudget) {
			t.Errorf("a step's own timeout is ErrBudget: %v", tr.Err)
		}
	})

	t.Run("the step timeout reaches a tool that takes one", func(t *testing.T) {
		var got map[string]any
		p, _ := Parse([]map[string]any{{"do": "action", "action": "click", "ref": "e1", "timeout_ms": 700.0}, {"do": "snapshot", "timeout_ms": 700.0}}, 0, true)
		x := &argExec{fakeExec: &fakeExec{}, seen: func(tool string, a map[string]any) {
			if tool == "browser_action" {
				got = a
			} else if _, ok := a["timeout_ms"]; ok {
				t.Errorf("snapshot got timeout_ms: %v", a)
			}
		}}
		if tr := p.Run(ctx, x, nil); tr.Err != nil || got["timeout_ms"] != int64(700) {
			t.Errorf("err %v, action args %v", tr.Err, got)
		}
	})

	t.Run("a failed capture is told", func(t *testing.T) {
		p, _ := Parse([]map[string]any{{"do": "snapshot"}}, 0, true)
		tr := p.Run(ctx, &fakeExec{fails: map[int][]error{1: {notFound}}, capErr: errors.New("tab gone")}, nil)
		c := tr.Err.Diagnosis["capture"].(map[string]any)
		if c["error"] != "tab gone" || c["url"] != "https://x.test/" {
			t.Errorf("capture %v", c)
		}
	})
}

type argExec struct {
	*fakeExec
	seen func(string, map[string]any)
}

func (a *argExec) Run(ctx context.Context, step int, tool string, args map[string]any) (Output, error) {
	a.seen(tool, args)
	return a.fakeExec.Run(ctx, step, tool, args)
}

// The package stays below the tools: it imports neither the tool table nor
// the MCP layer (DESIGN.md: tools and recipes both use it).
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		for _, banned := range []string{"/internal/tools", "/internal/mcpserver", "github.com/modelcontextprotocol/go-sdk"} {
			if strings.Contains(d, banned) {
				t.Errorf("flow depends on %s", d)
			}
		}
	}
}

// Run tells the executor which step it runs, retries included.
func TestRunPassesStep(t *testing.T) {
	p, err := Parse([]map[string]any{{"do": "snapshot"}, {"do": "snapshot", "retry": 1.0}, {"do": "snapshot"}}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeExec{fails: map[int][]error{2: {errors.New("flaky")}}}
	if tr := p.Run(context.Background(), f, nil); tr.Err != nil {
		t.Fatalf("Run: %v", tr.Err)
	}
	if fmt.Sprint(f.steps) != "[1 2 2 3]" {
		t.Errorf("steps = %v, want [1 2 2 3]", f.steps)
	}
}
