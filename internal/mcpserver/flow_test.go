package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// flowClient connects a client (with opts) to a server over a manager on the
// shared browser; it returns the manager too, so that a test can see which
// sessions exist.
func flowClient(t *testing.T, srvOpts mcpserver.Options, opts *mcp.ClientOptions) (*mcp.ClientSession, *browser.Manager) {
	t.Helper()
	m := sharedManager(t)
	srvOpts.Deps = &tools.Deps{Manager: m}
	return connectServer(t, srvOpts, opts, ""), m
}

// trace is a failed flow's diagnosis.
type flowDiagnosis struct {
	Trace []struct {
		Index   int    `json:"index"`
		Do      string `json:"do"`
		Outcome string `json:"outcome"`
		Ms      int64  `json:"ms"`
		Result  string `json:"result"`
		Code    string `json:"code"`
	} `json:"trace"`
	Capture *struct {
		URL      string `json:"url"`
		Title    string `json:"title"`
		Snapshot string `json:"snapshot"`
	} `json:"capture"`
	Step int `json:"step"`
}

func diagnosisOf(t *testing.T, body errorBody) flowDiagnosis {
	t.Helper()
	b, _ := json.Marshal(body.Diagnosis)
	var d flowDiagnosis
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("diagnosis %s: %v", b, err)
	}
	return d
}

// One call: open → fill_form → submit → find (nth, save_as) → act on the
// saved ref → snapshot.
func TestFlowRunsInOneCall(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := flowClient(t, mcpserver.Options{}, nil)
	ctx := backendtest.Context(t, 90*time.Second)

	out := mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
		map[string]any{"do": "fill_form", "fields": []any{
			map[string]any{"selector": "#name", "value": "Ada"},
			map[string]any{"selector": "#email", "value": "ada@example.com"},
		}},
		map[string]any{"do": "action", "action": "click", "role": "button", "name": "Send"},
		map[string]any{"do": "find", "role": "button", "name": "Pick", "nth": 2, "save_as": "pick"},
		map[string]any{"do": "action", "action": "click", "ref": "$pick"},
		map[string]any{"do": "snapshot"},
	}})
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "Flow done: 6 step(s)") {
		t.Errorf("first line %q", lines[0])
	}
	for i, want := range []string{"1 navigate " + base + "/flow/form.html — ok", "2 fill_form 2 field(s) — ok", `3 action click button "Send" — ok`,
		`4 find role "button" name "Pick" — ok`, "5 action click e", "6 snapshot — ok"} {
		if len(lines) <= i+1 || !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("trace line %d: want prefix %q in:\n%s", i+1, want, out)
		}
	}
	// The second match's ref was saved and clicked.
	ref := refOf(t, out, "button", "Pick Beta")
	if !strings.Contains(lines[4], "$pick = "+ref) || !strings.HasPrefix(lines[5], "5 action click "+ref+" — ok") {
		t.Errorf("the saved ref %s is not the one clicked:\n%s", ref, out)
	}
	// The find's matches and the final page are in the result.
	if !strings.Contains(out, "[4 find]") || !strings.Contains(out, `"Pick Gamma"`) {
		t.Errorf("the find's output is missing:\n%s", out)
	}
	if !strings.Contains(out, "[6 snapshot]") || !strings.Contains(out, "Picked: Beta") || !strings.Contains(out, "Found 3 for Ada") {
		t.Errorf("the final snapshot does not show the pick:\n%s", out)
	}
}

// A flow failing at step 3 returns steps 1–2 ok, the step's error and the
// page; without it when on_error_capture is false.
func TestFlowFailureTraceAndCapture(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := flowClient(t, mcpserver.Options{}, nil)
	ctx := backendtest.Context(t, 90*time.Second)

	steps := []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
		map[string]any{"do": "action", "action": "fill", "selector": "#name", "value": "Ada"},
		map[string]any{"do": "action", "action": "click", "selector": "#missing", "timeout_ms": 300},
		map[string]any{"do": "action", "action": "click", "selector": "#send"},
	}
	out, isErr := call(t, ctx, cs, "browser_flow", map[string]any{"steps": steps})
	if !isErr {
		t.Fatalf("the flow passed:\n%s", out)
	}
	var body errorBody
	if err := json.Unmarshal([]byte(out), &body); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(body.Error.Message, "step 3 (action): ") || !strings.Contains(body.Error.Message, "#missing") || body.Error.Hint == "" {
		t.Errorf("error %+v", body.Error)
	}
	if body.Error.Code != "TARGET_NOT_FOUND" && body.Error.Code != "TIMEOUT" {
		t.Errorf("code %s, want the step's TARGET_NOT_FOUND (or TIMEOUT)", body.Error.Code)
	}
	d := diagnosisOf(t, body)
	if d.Step != 3 || len(d.Trace) != 3 {
		t.Fatalf("diagnosis %+v", body.Diagnosis)
	}
	for i, want := range []string{"ok", "ok", "failed"} {
		if d.Trace[i].Index != i+1 || d.Trace[i].Outcome != want {
			t.Errorf("trace[%d] = %+v, want %s", i, d.Trace[i], want)
		}
	}
	if d.Trace[2].Code != body.Error.Code || !strings.Contains(d.Trace[1].Result, "Ada") {
		t.Errorf("trace %+v", d.Trace)
	}
	if d.Capture == nil || d.Capture.URL != base+"/flow/form.html" || d.Capture.Title != "Flow form" ||
		!strings.Contains(d.Capture.Snapshot, `textbox`) || !strings.Contains(d.Capture.Snapshot, `= "Ada"`) || len([]rune(d.Capture.Snapshot)) > 6000 {
		t.Errorf("capture %+v", d.Capture)
	}
	// The fourth step did not run: the page was never submitted.
	snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, "Waiting") || strings.Contains(snap, "Found 3") {
		t.Errorf("the step after the failure ran:\n%s", snap)
	}

	out, isErr = call(t, ctx, cs, "browser_flow", map[string]any{"steps": steps, "on_error_capture": false})
	body = errorBody{}
	if err := json.Unmarshal([]byte(out), &body); !isErr || err != nil || !strings.HasPrefix(body.Error.Message, "step 3 (action): ") {
		t.Fatalf("on_error_capture false: %v\n%s", err, out)
	}
	if d := diagnosisOf(t, body); d.Capture != nil || len(d.Trace) != 3 {
		t.Errorf("on_error_capture false: diagnosis %+v", body.Diagnosis)
	}
}

// An optional failing step is skipped and the flow goes on.
func TestFlowOptionalStepSkipped(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := flowClient(t, mcpserver.Options{}, nil)
	ctx := backendtest.Context(t, 90*time.Second)

	out := mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
		map[string]any{"do": "action", "action": "click", "selector": "#cookie-banner button", "timeout_ms": 300, "optional": true},
		map[string]any{"do": "action", "action": "fill", "selector": "#name", "value": "Bo"},
		map[string]any{"do": "action", "action": "click", "selector": "#send", "snapshot": "none"},
		map[string]any{"do": "find", "text": "Found 3"},
	}})
	if !strings.Contains(out, "1 skipped") || !regexpMatch(`\n2 action click selector "#cookie-banner button" — skipped (TARGET_NOT_FOUND|TIMEOUT) `, out) {
		t.Errorf("step 2 not skipped:\n%s", out)
	}
	if !strings.Contains(out, "\n4 action click selector \"#send\" — ok") || !strings.Contains(out, "Found 3 for Bo") {
		t.Errorf("the flow did not go on after the skipped step:\n%s", out)
	}
}

// retry: 1 runs a step that fails once again, and it passes; without retry
// the same step fails.
func TestFlowRetry(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := flowClient(t, mcpserver.Options{}, nil)
	ctx := backendtest.Context(t, 90*time.Second)

	steps := func(retry int) []any {
		return []any{
			map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
			map[string]any{"do": "action", "action": "check", "selector": "#agree", "retry": retry, "snapshot": "none"},
		}
	}
	// The page refuses the first click on the box: without retry the step
	// fails.
	body := mustFail(t, ctx, cs, "browser_flow", map[string]any{"steps": steps(0), "on_error_capture": false}, "NOT_ACTIONABLE")
	if !strings.HasPrefix(body.Error.Message, "step 2 (action): ") {
		t.Errorf("message %q", body.Error.Message)
	}
	out := mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": steps(1)})
	if !regexpMatch(`\n2 action check selector "#agree" — ok \d+ ms \(retried\)`, out) {
		t.Errorf("the step was not retried to success:\n%s", out)
	}
	if snap := mustCall(t, ctx, cs, "browser_snapshot", map[string]any{}); !strings.Contains(snap, "[checked]") {
		t.Errorf("the box is not checked:\n%s", snap)
	}
}

// Flows that are wrong are refused with INVALID_ARGUMENT before anything
// runs: no session is even made.
func TestFlowRefusedBeforeRunning(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, m := flowClient(t, mcpserver.Options{}, nil)
	ctx := backendtest.Context(t, 60*time.Second)
	nav := map[string]any{"do": "navigate", "url": base + "/flow/form.html"}
	many := make([]any, 21)
	for i := range many {
		many[i] = nav
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"21 steps", map[string]any{"steps": many}, []string{"at most 20 steps", "21"}},
		{"budget 200 s", map[string]any{"steps": []any{nav}, "budget_ms": 200000}, []string{"budget_ms", "120000"}},
		{"bad field in step 3", map[string]any{"steps": []any{nav, map[string]any{"do": "snapshot"},
			map[string]any{"do": "action", "action": "click", "selector": "#send", "snapshott": "none"}}}, []string{"step 3 (action)", `"snapshott"`}},
		{"bad value in step 2", map[string]any{"steps": []any{nav, map[string]any{"do": "snapshot", "mode": "everything"}}}, []string{"step 2 (snapshot)", "mode"}},
		{"unknown $name", map[string]any{"steps": []any{nav, map[string]any{"do": "action", "action": "click", "ref": "$buy"}}}, []string{"step 2", "$buy"}},
		{"retry 2", map[string]any{"steps": []any{nav, map[string]any{"do": "snapshot", "retry": 2}}}, []string{"step 2", "retry"}},
		{"a step's own check", map[string]any{"steps": []any{map[string]any{"do": "navigate"}}}, []string{"step 1 (navigate)", "url or go"}},
	} {
		args := tc.args
		args["session"] = "refused"
		body := mustFail(t, ctx, cs, "browser_flow", args, "INVALID_ARGUMENT")
		for _, w := range tc.want {
			if !strings.Contains(body.Error.Message, w) {
				t.Errorf("%s: message %q lacks %q", tc.name, body.Error.Message, w)
			}
		}
	}
	if slices.Contains(m.SessionNames(), "refused") {
		t.Errorf("a refused flow made its session: something ran")
	}
}

// A step runs only a tool the profile and caps switch on.
func TestFlowStepNeedsItsTool(t *testing.T) {
	t.Parallel()
	sel, err := tools.Select("core", "-screenshot")
	if err != nil {
		t.Fatal(err)
	}
	cs, m := flowClient(t, mcpserver.Options{Tools: sel}, nil)
	ctx := backendtest.Context(t, 30*time.Second)
	body := mustFail(t, ctx, cs, "browser_flow", map[string]any{"session": "off", "steps": []any{
		map[string]any{"do": "snapshot"}, map[string]any{"do": "screenshot"}}}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "step 2 (screenshot)") || !strings.Contains(body.Error.Message, "browser_screenshot") {
		t.Errorf("message %q", body.Error.Message)
	}
	if slices.Contains(m.SessionNames(), "off") {
		t.Errorf("the refused flow made its session")
	}
}

// A flow's budget replaces the call ceiling: with a 1 s ceiling a 3 s flow
// runs; and a budget that runs out is TIMEOUT with the trace.
func TestFlowBudget(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := flowClient(t, mcpserver.Options{CallCeiling: time.Second}, nil)
	ctx := backendtest.Context(t, 90*time.Second)

	wait := backendtest.Timeout(1500 * time.Millisecond).Milliseconds()
	out := mustCall(t, ctx, cs, "browser_flow", map[string]any{"budget_ms": 60000, "steps": []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
		map[string]any{"do": "action", "action": "click", "selector": "#missing", "timeout_ms": wait, "optional": true},
		map[string]any{"do": "find", "text": "Waiting"},
	}})
	if !strings.Contains(out, "skipped") || !strings.Contains(out, "[3 find]") {
		t.Errorf("the flow did not outlive the call ceiling:\n%s", out)
	}

	body := mustFail(t, ctx, cs, "browser_flow", map[string]any{"budget_ms": 1000, "steps": []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
		map[string]any{"do": "action", "action": "click", "selector": "#missing", "optional": true},
		map[string]any{"do": "snapshot"},
	}}, "TIMEOUT")
	d := diagnosisOf(t, body)
	if !strings.Contains(body.Error.Message, "budget of 1000 ms") || len(d.Trace) == 0 || d.Trace[len(d.Trace)-1].Outcome != "failed" || d.Capture == nil {
		t.Errorf("budget exhausted: %+v %+v", body.Error, body.Diagnosis)
	}
}

// With a progress token, the client hears of each step.
func TestFlowProgress(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cs, _ := flowClient(t, mcpserver.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, r.Params)
		}})
	ctx := backendtest.Context(t, 60*time.Second)

	p := &mcp.CallToolParams{Name: "browser_flow", Arguments: map[string]any{"steps": []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html", "snapshot": "none"},
		map[string]any{"do": "action", "action": "click", "selector": "#send", "snapshot": "none"},
		map[string]any{"do": "find", "text": "Found"},
	}}}
	p.SetProgressToken("flow-1")
	res, err := cs.CallTool(ctx, p)
	if err != nil || res.IsError {
		t.Fatalf("flow: %v %s", err, textOf(res))
	}
	// The last notification may arrive after the result.
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(got)
	}
	deadline := time.Now().Add(backendtest.Timeout(5 * time.Second))
	for count() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	var msgs []string
	for i, g := range got {
		msgs = append(msgs, fmt.Sprintf("%v/%v %s", g.Progress, g.Total, g.Message))
		if g.ProgressToken != "flow-1" || g.Total != 3 {
			t.Errorf("notification %d: %+v", i, g)
		}
		if i > 0 && g.Progress <= got[i-1].Progress {
			t.Errorf("progress did not grow: %q", msgs)
		}
	}
	want := []string{"0/3 step 1/3: navigate " + base + "/flow/form.html", "1/3 step 2/3: action click selector \"#send\"", "2/3 step 3/3: find text \"Found\"", "3/3 done: 3/3 steps"}
	if !slices.Equal(msgs, want) {
		t.Errorf("progress notifications\n got %q\nwant %q", msgs, want)
	}

	before := len(got)
	mu.Unlock()

	// Without a token, none: a call with a token after it shows that the
	// notifications of the first have all arrived.
	mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": []any{map[string]any{"do": "snapshot"}}})
	p = &mcp.CallToolParams{Name: "browser_flow", Arguments: map[string]any{"steps": []any{map[string]any{"do": "snapshot"}}}}
	p.SetProgressToken("flow-2")
	if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
		t.Fatalf("flow: %v %s", err, textOf(res))
	}
	deadline = time.Now().Add(backendtest.Timeout(5 * time.Second))
	for count() < before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, g := range got[before:] {
		if g.ProgressToken != "flow-2" {
			t.Errorf("a notification for a call without a progress token: %+v", g)
		}
	}
}

// Six steps in one call: open → fill → submit → wait → collect → read.
func TestFlowSixSteps(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := flowClient(t, mcpserver.Options{}, nil)
	ctx := backendtest.Context(t, 90*time.Second)

	out := mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": []any{
		map[string]any{"do": "navigate", "url": base + "/flow/form.html?delay=300", "snapshot": "none"},
		map[string]any{"do": "fill_form", "fields": []any{map[string]any{"selector": "#name", "value": "Cy"}}},
		map[string]any{"do": "action", "action": "click", "selector": "#send", "snapshot": "none"},
		map[string]any{"do": "wait", "conditions": []any{map[string]any{"selector": "#results li", "state": "visible"}}},
		map[string]any{"do": "collect", "selector": "#results li"},
		map[string]any{"do": "read", "selector": "#status", "save_as": "status"},
		// What the read saved is the text read, not its header line.
		map[string]any{"do": "fill_form", "fields": []any{map[string]any{"selector": "#name", "value": "$status"}}},
		map[string]any{"do": "read", "what": "value", "selector": "#name"},
	}})
	for _, want := range []string{"Flow done: 8 step(s)", "4 wait", "5 collect", "6 read", "Alpha", "Gamma", "Found 3 for Cy"} {
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %q:\n%s", want, out)
		}
	}
	if !regexpMatch(`\[8 read\]\nvalue of [^\n]*:\nFound 3 for Cy(\n|$)`, out) {
		t.Errorf("the saved read is not the text alone:\n%s", out)
	}
}

func regexpMatch(re, s string) bool {
	return regexp.MustCompile(re).MatchString(s)
}
