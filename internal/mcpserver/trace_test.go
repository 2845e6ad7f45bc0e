package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/tools"
	"github.com/webpilot-mcp/webpilot/internal/trace"
)

// traceMark stands for a secret: the Mask hook replaces it, and it must
// appear nowhere in a trace file.
const traceMark = "S3CRETMARK"

func maskMark(s string) string { return strings.ReplaceAll(s, traceMark, "<secret:MARK>") }

// traceClient connects a client to a server over a manager on the shared
// browser (its output dir a temp dir) recording traces with rec (nil:
// none).
func traceClient(t *testing.T, rec *trace.Recorder) (*mcp.ClientSession, *browser.Manager) {
	t.Helper()
	m := browser.NewManager(browser.Options{Backend: backendtest.Shared(t), OutputDir: t.TempDir()})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), backendtest.Timeout(10*time.Second))
		defer cancel()
		for _, name := range m.SessionNames() {
			s := m.Session(name)
			_ = s.Do(ctx, func(ctx context.Context, h *browser.Held) error { return h.Tabs().CloseAll(ctx) })
		}
	})
	deps := &tools.Deps{Manager: m, Trace: rec, TraceMask: maskMark}
	return connectServer(t, mcpserver.Options{Deps: deps}, nil, ""), m
}

// traceFiles are the trace files in dir whose name starts with session+"-".
func traceFiles(t *testing.T, dir, session string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, session+"-*.html"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// fiveSteps runs navigate, action, fill_form, action and read in session.
func fiveSteps(t *testing.T, ctx context.Context, cs *mcp.ClientSession, base, session string) {
	t.Helper()
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/trace/form.html?mark=" + traceMark + "&s=" + session, "session": session, "snapshot": "none"})
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#more", "session": session})
	mustCall(t, ctx, cs, "browser_fill_form", map[string]any{"fields": []any{map[string]any{"selector": "#name", "value": "Ada " + traceMark}}, "session": session})
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#go", "session": session, "snapshot": "diff"})
	if out := mustCall(t, ctx, cs, "browser_read", map[string]any{"selector": "#out", "session": session}); !strings.Contains(out, traceMark) {
		t.Fatalf("the page does not show the mark, the mask test would prove nothing: %s", out)
	}
}

// A 5-step session's trace opens in Chromium with 5 steps and their
// screenshots, the Mask hook applied to everything; trace show reads it;
// browser_status lists the session's actions, newest last.
func TestTraceSession(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	dir := t.TempDir()
	cs, m := traceClient(t, trace.New(trace.Options{Dir: dir, Mask: maskMark}))
	ctx := backendtest.Context(t, 120*time.Second)
	fiveSteps(t, ctx, cs, base, "main")

	files := traceFiles(t, dir, "main")
	if len(files) != 1 {
		t.Fatalf("trace files of session main: %v, want one", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), traceMark) {
		i := strings.Index(string(raw), traceMark)
		t.Errorf("the masked marker is in the trace file: …%s…", string(raw)[max(0, i-80):min(len(raw), i+40)])
	}
	d, err := trace.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.Steps {
		got = append(got, s.Tool)
	}
	want := []string{"browser_navigate", "browser_action", "browser_fill_form", "browser_action", "browser_read"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	for i, s := range d.Steps {
		if !s.OK || !strings.Contains(s.URL, "/trace/form.html") || !strings.Contains(s.Title, "<secret:MARK>") {
			t.Errorf("step %d: ok %v, url %q, title %q: want ok on the form, its title masked", i+1, s.OK, s.URL, s.Title)
		}
		if s.HasImage != (s.Tool != "browser_read") {
			t.Errorf("step %d (%s): image %v", i+1, s.Tool, s.HasImage)
		}
	}
	for _, in := range []string{d.Steps[0].Args, d.Steps[2].Args, d.Steps[4].Result} {
		if !strings.Contains(in, "<secret:MARK>") {
			t.Errorf("the mask did not replace the marker in %q", in)
		}
	}

	// The file, served, as Chromium shows it: 5 step elements, 4 decoded
	// images from data: URIs, no script needed.
	view := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(view.Close)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": view.URL + "/" + filepath.Base(files[0]), "session": "viewer", "snapshot": "none"})
	bs, ok := m.Lookup("viewer")
	if !ok {
		t.Fatal("no viewer session")
	}
	var dom string
	err = bs.Do(ctx, func(ctx context.Context, h *browser.Held) error {
		tab, err := h.Tabs().ByID(ctx, "")
		if err != nil {
			return err
		}
		dom, err = browser.EvalString(ctx, tab, `JSON.stringify({steps: document.querySelectorAll("details.step").length,
  imgs: [...document.querySelectorAll("img")].filter(i => i.src.startsWith("data:image/jpeg;base64,") && i.complete && i.naturalWidth > 0).length,
  allImgs: document.querySelectorAll("img").length,
  summaries: [...document.querySelectorAll("details.step summary")].map(s => s.textContent)})`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var view1 struct {
		Steps, Imgs, AllImgs int
		Summaries            []string
	}
	if err := json.Unmarshal([]byte(dom), &view1); err != nil {
		t.Fatalf("%s: %v", dom, err)
	}
	if view1.Steps != 5 || view1.Imgs != 4 || view1.AllImgs != 4 {
		t.Errorf("the trace page shows %d steps and %d decoded data: images (of %d), want 5 and 4", view1.Steps, view1.Imgs, view1.AllImgs)
	}
	if len(view1.Summaries) == 5 && !strings.Contains(view1.Summaries[2], "browser_fill_form") {
		t.Errorf("step 3 reads %q", view1.Summaries[2])
	}

	// Summary: one line per step.
	lines := strings.Split(strings.TrimSpace(d.Summary()), "\n")
	if len(lines) != 6 || !regexp.MustCompile(`^\s*3 \d\d:\d\d:\d\d\.\d{3} browser_fill_form 1 field\(s\) → ok @ http`).MatchString(lines[3]) {
		t.Errorf("summary:\n%s", d.Summary())
	}

	// browser_status lists the caller's session's actions: here none, the
	// calls named session main.
	out := mustCall(t, ctx, cs, "browser_status", map[string]any{"verbose": true})
	var st struct {
		Recent struct {
			Session string         `json:"session"`
			Actions []trace.Action `json:"actions"`
		} `json:"recent_actions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	if st.Recent.Session != "default" || len(st.Recent.Actions) != 0 {
		t.Errorf("recent actions of the caller's session: %+v, want none in session default", st.Recent)
	}
}

// browser_status lists the caller's session's last actions: at most
// trace.RecentPerSession, newest last, with their outcome.
func TestStatusRecentActions(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, _ := traceClient(t, nil)
	ctx := backendtest.Context(t, 120*time.Second)
	mustCall(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/trace/form.html", "snapshot": "none"})
	if _, isErr := call(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#nothing-here", "timeout_ms": 200}); !isErr {
		t.Fatal("a click on a missing element succeeded")
	}
	for i := range trace.RecentPerSession {
		mustCall(t, ctx, cs, "browser_read", map[string]any{"selector": "#out", "max_chars": 100 + i})
	}
	mustCall(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#go"})
	out := mustCall(t, ctx, cs, "browser_status", map[string]any{"verbose": true})
	var st struct {
		Recent struct {
			Session string         `json:"session"`
			Actions []trace.Action `json:"actions"`
		} `json:"recent_actions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	a := st.Recent.Actions
	if len(a) != trace.RecentPerSession {
		t.Fatalf("%d recent actions, want %d: %+v", len(a), trace.RecentPerSession, a)
	}
	if last := a[len(a)-1]; last.Tool != "browser_action" || last.Target != "click selector=#go" || last.Outcome != "ok" {
		t.Errorf("the newest action is %+v, want the click on #go, last", last)
	}
	if a[0].Tool != "browser_read" || a[0].Outcome != "ok" {
		t.Errorf("the oldest action kept is %+v, want a read (the navigate and the failed click went first)", a[0])
	}

	// A failed action shows its code.
	if _, isErr := call(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#nothing-here", "timeout_ms": 200}); !isErr {
		t.Fatal("a click on a missing element succeeded")
	}
	out = mustCall(t, ctx, cs, "browser_status", map[string]any{"verbose": true})
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if last := st.Recent.Actions[len(st.Recent.Actions)-1]; last.Outcome == "ok" || last.Outcome == "" {
		t.Errorf("the failed click is listed as %+v", last)
	}
}

// Two sessions traced at once keep a file each, with only their own steps.
func TestTraceParallelSessions(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	dir := t.TempDir()
	cs, _ := traceClient(t, trace.New(trace.Options{Dir: dir}))
	ctx := backendtest.Context(t, 120*time.Second)
	var wg sync.WaitGroup
	for _, s := range []string{"alpha", "beta"} {
		wg.Go(func() {
			// Not mustCall: a test may not stop from another goroutine.
			do := func(tool string, args map[string]any) {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil || res.IsError {
					t.Errorf("%s %v: %v %v", tool, args, err, res)
				}
			}
			do("browser_navigate", map[string]any{"url": base + "/trace/form.html?s=" + s, "session": s, "snapshot": "none"})
			for range 3 {
				do("browser_action", map[string]any{"action": "click", "selector": "#more", "session": s, "snapshot": "none"})
			}
		})
	}
	wg.Wait()
	for _, s := range []string{"alpha", "beta"} {
		files := traceFiles(t, dir, s)
		if len(files) != 1 {
			t.Fatalf("trace files of %s: %v, want one", s, files)
		}
		d, err := trace.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if d.Session != s || len(d.Steps) != 4 {
			t.Fatalf("%s's file: session %q, %d steps, want 4", s, d.Session, len(d.Steps))
		}
		for i, st := range d.Steps {
			if !strings.Contains(st.Args, `"session":"`+s+`"`) || !strings.HasSuffix(st.URL, "?s="+s) || st.N != i+1 {
				t.Errorf("%s's step %d is not its own: n %d, args %s, url %s", s, i+1, st.N, st.Args, st.URL)
			}
		}
	}
}

// browser_flow with trace: true writes a trace of its steps without
// --trace, into the output directory, masked.
func TestFlowTrace(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs, m := traceClient(t, nil)
	ctx := backendtest.Context(t, 120*time.Second)
	out := mustCall(t, ctx, cs, "browser_flow", map[string]any{"trace": true, "steps": []any{
		map[string]any{"do": "navigate", "url": base + "/trace/form.html?mark=" + traceMark, "snapshot": "none"},
		map[string]any{"do": "fill_form", "fields": []any{map[string]any{"selector": "#name", "value": "Ada"}}},
		map[string]any{"do": "action", "action": "click", "selector": "#go"},
		map[string]any{"do": "read", "selector": "#out"},
	}})
	match := regexp.MustCompile(`(?m)^Trace: (.+\.html)$`).FindStringSubmatch(out)
	if match == nil {
		t.Fatalf("no trace file in the flow's result:\n%s", out)
	}
	if !strings.HasPrefix(match[1], m.OutputDir()) {
		t.Errorf("the flow's trace %s is not in the output dir %s", match[1], m.OutputDir())
	}
	raw, err := os.ReadFile(match[1])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), traceMark) {
		t.Error("the masked marker is in the flow's trace")
	}
	d, err := trace.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.Steps {
		got = append(got, fmt.Sprintf("%s:%v:%v", s.Tool, s.OK, s.HasImage))
	}
	want := "[browser_navigate:true:true browser_fill_form:true:true browser_action:true:true browser_read:true:false]"
	if fmt.Sprint(got) != want {
		t.Errorf("flow trace steps %v, want %s", got, want)
	}

	// Without trace: true, none is written.
	out = mustCall(t, ctx, cs, "browser_flow", map[string]any{"steps": []any{map[string]any{"do": "read", "selector": "#out"}}})
	if strings.Contains(out, "Trace: ") {
		t.Errorf("a flow without trace names a trace:\n%s", out)
	}
}

// The recent actions in browser_status keep no credential of the URLs an
// agent opened: an OAuth code, a token parameter, a URL's password.
func TestRecentActionsRedactURLs(t *testing.T) {
	t.Parallel()
	base := fixtures(t)
	cs := browserClient(t)
	ctx := backendtest.Context(t, 60*time.Second)
	u := strings.Replace(base, "http://", "http://ada:hunter22pass@", 1) + "/basic.html?code=SPLX0AUTHC0DE&access_token=TKN0123456789&page=2"
	nav, _ := call(t, ctx, cs, "browser_navigate", map[string]any{"url": u})
	// The navigate result's URL and the snapshot header are redacted too
	// (issue 28, 5); the OAuth code is network-style kept there.
	for _, secret := range []string{"TKN0123456789", "hunter22pass"} {
		if strings.Contains(nav, secret) {
			t.Errorf("browser_navigate shows %q:\n%s", secret, nav)
		}
	}
	status := mustCall(t, ctx, cs, "browser_status", map[string]any{"verbose": true})
	for _, secret := range []string{"SPLX0AUTHC0DE", "TKN0123456789", "hunter22pass"} {
		if strings.Contains(status, secret) {
			t.Errorf("browser_status's recent actions show %q:\n%s", secret, status)
		}
	}
	if !strings.Contains(status, `code=\u003credacted\u003e`) || !strings.Contains(status, `"tool": "browser_navigate"`) {
		t.Errorf("the recent navigate is missing:\n%s", status)
	}
	// Without verbose, a few lines lead: the session, the backend, the
	// tools, the last actions (issue 28, 3); redacted the same way.
	short := mustCall(t, ctx, cs, "browser_status", map[string]any{})
	for _, want := range []string{`Session "default"`, "Backend: ", "Tools: profile core", "Last actions (1 of 1, newest last):", "browser_navigate", "code=<redacted>", "(verbose: true"} {
		if !strings.Contains(short, want) {
			t.Errorf("the short status lacks %q:\n%s", want, short)
		}
	}
	if len(short) > 1000 || strings.Contains(short, "hunter22pass") || strings.Contains(short, `"config"`) {
		t.Errorf("the short status is not short or not clean (%d chars):\n%s", len(short), short)
	}
	// browser_tabs lists the tab's URL redacted too (issue 47, 13).
	tabs := mustCall(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"})
	if strings.Contains(tabs, "hunter22pass") || strings.Contains(tabs, "TKN0123456789") || !strings.Contains(tabs, "basic.html") {
		t.Errorf("browser_tabs list:\n%s", tabs)
	}
}
