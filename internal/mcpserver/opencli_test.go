package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/browser"
	"github.com/webpilot-mcp/webpilot/internal/mcpserver"
	"github.com/webpilot-mcp/webpilot/internal/opencli"
	"github.com/webpilot-mcp/webpilot/internal/recipes"
	"github.com/webpilot-mcp/webpilot/internal/tools"
)

// openCLIServer is a client of a server with the opencli tools over the
// fake OpenCLI of testdata, wrapped in a script that logs every run to the
// returned file; outMax bounds the output directory (bytes).
func openCLIServer(t *testing.T, gate *recipes.Gate, outMax int64, clientOpts ...*mcp.ClientOptions) (cs *mcp.ClientSession, runLog, outDir string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake OpenCLI is a POSIX shell script")
	}
	fake, err := filepath.Abs("../../testdata/opencli/bin/opencli")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runLog, outDir = filepath.Join(dir, "runs.log"), filepath.Join(dir, "out")
	wrapper := filepath.Join(dir, "opencli")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'" + runLog + "'\nexec '" + fake + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	pol := browser.NewManager(browser.Options{Backend: idleBackend(t)}).Policy(browser.PolicyOptions{OutputDir: outDir, OutputMaxBytes: outMax})
	svc := opencli.NewPool(testLog(t)).Service(opencli.Command{Path: wrapper, Source: "test"})
	sel, err := tools.Select(tools.ProfileCore, "", tools.GroupOpenCLI)
	if err != nil {
		t.Fatal(err)
	}
	deps := &tools.Deps{Gate: gate, OpenCLI: &tools.OpenCLI{Service: svc,
		Folder: func(owner string) (string, func(int64) (func(), error), error) {
			return pol.OutputFolder(owner, "opencli")
		}}}
	var co *mcp.ClientOptions
	if len(clientOpts) > 0 {
		co = clientOpts[0]
	}
	return connectServer(t, mcpserver.Options{Tools: sel, Deps: deps}, co, ""), runLog, outDir
}

// runs are the runs the wrapper logged (their arguments), but the list
// and --version.
func runs(t *testing.T, runLog string) []string {
	b, _ := os.ReadFile(runLog)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" && l != "--version" && l != "list -f json" {
			out = append(out, l)
		}
	}
	return out
}

// runReport is opencli_run's result.
type runReport struct {
	Site      string          `json:"site"`
	Command   string          `json:"command"`
	ExitCode  int             `json:"exit_code"`
	Format    string          `json:"format"`
	Data      json.RawMessage `json:"data"`
	Output    *string         `json:"output"`
	OutputCut *struct {
		ShownChars int    `json:"shown_chars"`
		TotalChars int    `json:"total_chars"`
		SavedTo    string `json:"saved_to"`
	} `json:"output_cut"`
	Partial              bool   `json:"partial"`
	PartialReason        string `json:"partial_reason"`
	TerminationConfirmed *bool  `json:"termination_confirmed"`
	Files                []struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
		MIME string `json:"mime"`
	} `json:"files"`
	Notes []string `json:"notes"`
}

func runOf(t *testing.T, out string) runReport {
	t.Helper()
	var r runReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("opencli_run's result is not its JSON report: %v\n%s", err, out)
	}
	return r
}

func TestOpenCLIAdapterList(t *testing.T) {
	t.Parallel()
	cs, _, _ := openCLIServer(t, nil, 0)
	ctx := backendtest.Context(t, 60*time.Second)

	out := mustCall(t, ctx, cs, "opencli_adapter_list", nil)
	if !strings.Contains(out, "OpenCLI: 10 commands on 2 sites") || !strings.Contains(out, "demo 9 · plain 1") {
		t.Errorf("without a filter, the sites and their counts:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "opencli_adapter_list", map[string]any{"site": "demo"})
	for _, want := range []string{"9 OpenCLI command(s) of demo", "demo json — Two items as JSON · args: --limit=20",
		"demo fail — Always fails, with credentials in its error output · args: --receipt!", "demo hang — Starts a child and never ends · args: <pidfile>",
		"demo download — Downloads a picture · args: --sort{hot|new} [browser, writes]"} {
		if !strings.Contains(out, want) {
			t.Errorf("site demo: no %q in:\n%s", want, out)
		}
	}
	out = mustCall(t, ctx, cs, "opencli_adapter_list", map[string]any{"site": "demo", "limit": 2, "offset": 2})
	if !strings.Contains(out, "(3–4 shown)") || strings.Count(out, "\ndemo ") != 2 || !strings.Contains(out, "(5 more: offset 4)") {
		t.Errorf("a page of the site:\n%s", out)
	}
	out = mustCall(t, ctx, cs, "opencli_adapter_list", map[string]any{"query": "PICTURE"})
	if !strings.Contains(out, "1 OpenCLI command(s) matching") || !strings.Contains(out, "demo download") {
		t.Errorf("query:\n%s", out)
	}
	body := mustFail(t, ctx, cs, "opencli_adapter_list", map[string]any{"site": "dem"}, "TARGET_NOT_FOUND")
	if !slices.Contains(body.Error.Suggestions, "demo") {
		t.Errorf("an unknown site suggests the nearest: %+v", body.Error)
	}
}

func TestOpenCLIRun(t *testing.T) {
	t.Parallel()
	cs, runLog, outDir := openCLIServer(t, nil, 0)
	ctx := backendtest.Context(t, 120*time.Second)

	// JSON output is parsed into data; nothing written leaves no folder.
	r := runOf(t, mustCall(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "json", "args": []any{"--limit", "2"}}))
	if r.ExitCode != 0 || r.Format != "json" || string(r.Data) != `[{"title":"first","rank":1},{"title":"second","rank":2}]` || r.Output != nil || len(r.Files) != 0 {
		t.Errorf("a JSON run: %+v", r)
	}
	if got := runs(t, runLog); len(got) != 1 || got[0] != "demo json -f json --limit 2" {
		t.Errorf("the program ran with %q", got)
	}
	// Text output is text.
	r = runOf(t, mustCall(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "text", "format": "table"}))
	if r.Output == nil || !strings.Contains(*r.Output, "second  2") || r.Data != nil {
		t.Errorf("a text run: %+v", r)
	}

	// A failure: the code, the CLI's exit code, its message, and the
	// error output's tail without the credentials in it.
	body := mustFail(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "fail"}, "COMMAND_FAILED")
	diag, _ := json.Marshal(body.Diagnosis)
	all := body.Error.Message + body.Error.Hint + string(diag)
	if !strings.Contains(body.Error.Message, "exited with 3: error: required option '--receipt <value>' not specified") ||
		body.Diagnosis["exit_code"] != float64(3) || !strings.Contains(body.Error.Hint, "arguments") {
		t.Errorf("a failed run: %+v", body)
	}
	if tail, _ := body.Diagnosis["stderr_tail"].(string); !strings.Contains(tail, "Authorization: Bearer <redacted>") || !strings.Contains(tail, "Cookie: <redacted>") {
		t.Errorf("stderr tail: %q", tail)
	}
	if strings.Contains(all, "abcdefghijklmnop1234") || strings.Contains(all, "topsecret") || strings.Contains(all, "0000000000") {
		t.Errorf("a credential of the error output reached the agent: %s", all)
	}

	// Files the adapter wrote are listed from the disk, with their type;
	// a file the output names that is not on disk is said to be missing.
	r = runOf(t, mustCall(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "download"}))
	if len(r.Files) != 1 || !strings.HasSuffix(r.Files[0].Path, filepath.Join("demo-downloads", "pic.png")) || r.Files[0].Size != 8 || r.Files[0].MIME != "image/png" ||
		!strings.HasPrefix(r.Files[0].Path, outDir) {
		t.Errorf("files: %+v", r.Files)
	}
	if notes := strings.Join(r.Notes, "\n"); len(r.Notes) != 3 || !strings.Contains(notes, "gone.mp4, which is not on disk") ||
		!strings.Contains(notes, "/etc/hostname, outside the run's folder: not listed") || !strings.Contains(notes, "../../x.txt, outside the run's folder") {
		t.Errorf("notes: %q", r.Notes)
	}
	for _, f := range r.Files {
		if _, err := os.Stat(f.Path); err != nil {
			t.Errorf("a file the result claims is not there: %v", err)
		}
	}

	// Output past the cap: the run is stopped, and the head of what came
	// is shown with the whole kept in a file.
	r = runOf(t, mustCall(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "huge", "format": "plain", "max_chars": 1000}))
	if !r.Partial || !strings.Contains(r.PartialReason, "stdout passed 32 MiB") || r.TerminationConfirmed == nil || !*r.TerminationConfirmed ||
		r.OutputCut == nil || r.OutputCut.ShownChars != 1000 || r.OutputCut.TotalChars != 32<<20 || r.Output == nil || len(*r.Output) != 1000 {
		t.Fatalf("a capped run: %+v", r)
	}
	if fi, err := os.Stat(r.OutputCut.SavedTo); err != nil || fi.Size() != 32<<20 {
		t.Errorf("the whole output is not saved at %s: %v", r.OutputCut.SavedTo, err)
	}

	// A timeout kills the processes and says so.
	pidfile := filepath.Join(t.TempDir(), "pids")
	body = mustFail(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "hang", "args": []any{pidfile}, "timeout_ms": 1500}, "TIMEOUT")
	if body.Diagnosis["termination_confirmed"] != true || body.Diagnosis["exit_code"] != float64(-1) {
		t.Errorf("a run past its timeout: %+v", body)
	}
}

// What opencli_run refuses runs nothing.
func TestOpenCLIRunRefusals(t *testing.T) {
	t.Parallel()
	cs, runLog, _ := openCLIServer(t, nil, 0)
	ctx := backendtest.Context(t, 60*time.Second)
	for _, tc := range []struct {
		args map[string]any
		code string
		want string
	}{
		{map[string]any{"site": "-rf", "command": "json"}, "INVALID_ARGUMENT", "not a plain name"},
		{map[string]any{"site": "demo", "command": "json; touch x"}, "INVALID_ARGUMENT", "not a plain name"},
		{map[string]any{"site": "demo", "command": "--help"}, "INVALID_ARGUMENT", "not a plain name"},
		{map[string]any{"site": "demo", "command": "json", "args": []any{"-f", "yaml"}}, "INVALID_ARGUMENT", "output format"},
		{map[string]any{"site": "demo", "command": "nope"}, "TARGET_NOT_FOUND", "no command \"nope\""},
		{map[string]any{"site": "plugin", "command": "install"}, "TARGET_NOT_FOUND", "no site \"plugin\""},
		{map[string]any{"site": "demo", "command": "json", "format": "xml"}, "INVALID_ARGUMENT", "format"},
		{map[string]any{"site": "demo", "command": "json", "timeout_ms": 600001}, "INVALID_ARGUMENT", "timeout_ms"},
	} {
		body := mustFail(t, ctx, cs, "opencli_run", tc.args, tc.code)
		if !strings.Contains(body.Error.Message, tc.want) {
			t.Errorf("%v: %+v", tc.args, body.Error)
		}
	}
	if got := runs(t, runLog); len(got) != 0 {
		t.Errorf("refused calls ran the program: %q", got)
	}
}

// Runs enter the site gate under the adapter's domain, shared with recipe
// runs; a site without a domain has a gate of its own.
func TestOpenCLIRunSiteGate(t *testing.T) {
	t.Parallel()
	gate, err := recipes.NewGate(recipes.GateOptions{Runs: 1, Queue: 1, Wait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cs, runLog, _ := openCLIServer(t, gate, 0)
	ctx := backendtest.Context(t, 60*time.Second)
	release, err := gate.Enter(ctx, "demo.test", 0) // a recipe run on the site
	if err != nil {
		t.Fatal(err)
	}
	body := mustFail(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "json"}, "SITE_BUSY")
	if body.Diagnosis["site"] != "demo.test" || body.Diagnosis["reason"] != "queue_timeout" {
		t.Errorf("a run on a busy site: %+v", body)
	}
	if got := runs(t, runLog); len(got) != 0 {
		t.Errorf("a refused run ran: %q", got)
	}
	mustCall(t, ctx, cs, "opencli_run", map[string]any{"site": "plain", "command": "hello", "format": "plain"})
	release()
	mustCall(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "json"})
	st := mustCall(t, ctx, cs, "opencli_status", nil)
	for _, want := range []string{`"version": "0.0.0-fake"`, `"commands": 10`, `"runs_per_site": 1`, `"source": "test"`} {
		if !strings.Contains(st, want) {
			t.Errorf("opencli_status has no %s:\n%s", want, st)
		}
	}
}

// A run that writes past the output directory's budget is stopped.
func TestOpenCLIRunBudget(t *testing.T) {
	t.Parallel()
	cs, _, outDir := openCLIServer(t, nil, 1<<20)
	ctx := backendtest.Context(t, 60*time.Second)
	body := mustFail(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "fill", "args": []any{"3000000"}}, "LIMIT_EXCEEDED")
	if body.Diagnosis["termination_confirmed"] != true || !strings.Contains(body.Error.Message, "was stopped and its processes killed") {
		t.Errorf("a run past the budget: %+v", body)
	}
	// One that writes too much and ends before a check is caught after it.
	body = mustFail(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "burst", "args": []any{"3000000"}}, "LIMIT_EXCEEDED")
	if _, killed := body.Diagnosis["termination_confirmed"]; killed || !strings.Contains(body.Error.Message, "ended: what it wrote does not fit") {
		t.Errorf("a run that ended past the budget: %+v", body)
	}
	// Neither left its files behind.
	var big []string
	_ = filepath.WalkDir(outDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "big.bin" {
			big = append(big, p)
		}
		return nil
	})
	if len(big) != 0 {
		t.Errorf("files past the budget were kept: %q", big)
	}
}

// Without OpenCLI the tools are not listed, and a call of one says that
// OpenCLI was not found (no caps would switch it on).
func TestOpenCLIAbsent(t *testing.T) {
	t.Parallel()
	cs := connect(t, &tools.Deps{})
	ctx := backendtest.Context(t, 30*time.Second)
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		if strings.HasPrefix(tool.Name, "opencli_") {
			t.Errorf("%s is listed without OpenCLI", tool.Name)
		}
	}
	body := mustFail(t, ctx, cs, "opencli_run", map[string]any{"site": "demo", "command": "json"}, "INVALID_ARGUMENT")
	if !strings.Contains(body.Error.Message, "OpenCLI was not found") || !strings.Contains(body.Error.Hint, "WEBPILOT_OPENCLI_BIN") {
		t.Errorf("a call without OpenCLI: %+v", body.Error)
	}
}

// A long run tells its progress; when the client gives up on the call, the
// run's processes are killed.
func TestOpenCLIRunProgressAndCancel(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	progressed := make(chan string, 16)
	cs, _, _ := openCLIServer(t, nil, 0, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- r.Params.Message:
			default:
			}
		}})
	ctx := backendtest.Context(t, 120*time.Second)
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	p := &mcp.CallToolParams{Name: "opencli_run", Arguments: map[string]any{"site": "demo", "command": "hang", "args": []any{pidfile}, "timeout_ms": 600000}}
	p.SetProgressToken("run-1")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, p)
		done <- err
	}()
	select {
	case msg := <-progressed:
		if !strings.HasPrefix(msg, "opencli demo hang: ") {
			t.Errorf("progress message %q", msg)
		}
	case err := <-done:
		t.Fatalf("the run ended before any progress: %v", err)
	case <-ctx.Done():
		t.Fatal("no progress notification")
	}
	var b []byte
	for len(strings.Fields(string(b))) < 2 {
		if ctx.Err() != nil {
			t.Fatalf("the run is under way but wrote no pids: %q", b)
		}
		time.Sleep(20 * time.Millisecond)
		b, _ = os.ReadFile(pidfile)
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled call returned no error")
	}
	// The server ends the run when the call is cancelled: wait for both
	// processes to be gone.
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		for opencli.Running(pid) {
			if ctx.Err() != nil {
				t.Fatalf("process %s still runs after the call was cancelled", f)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
