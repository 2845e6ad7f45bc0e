package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// mcpArgs start webpilot as an MCP client would, with a throwaway headless
// browser.
var mcpArgs = []string{"mcp", "--standalone", "--isolated", "--headless=true"}

// connectStdio starts `webpilot mcp` as a subprocess and connects a go-sdk
// client to it over stdio.
func connectStdio(t *testing.T, ctx context.Context) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	cmd := webpilotCmd(t, new(syncBuffer), mcpArgs...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
	if err != nil {
		t.Fatalf("connect to webpilot mcp: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, cmd
}

func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s %v: isError: %s", tool, args, b.String())
	}
	return b.String()
}

// `webpilot mcp` as a subprocess: tools/list, a navigation with its
// snapshot, a click, and a clean exit when the client closes stdin.
func TestStdioSubprocess(t *testing.T) {
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	start := time.Now()
	cs, cmd := connectStdio(t, ctx)

	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	t.Logf("start → tools/list answered in %v", time.Since(start).Round(time.Millisecond))
	var names []string
	for _, tool := range tl.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"browser_status", "browser_navigate", "browser_snapshot", "browser_action", "browser_close"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if cs.InitializeResult() == nil || !strings.Contains(cs.InitializeResult().Instructions, "browser_navigate") {
		t.Errorf("the server sent no instructions that teach the loop")
	}

	nav := callText(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	if !strings.Contains(nav, "# Basic page — ") || !strings.Contains(nav, `"Clicked 0 times"`) {
		t.Fatalf("navigate:\n%s", nav)
	}
	act := callText(t, ctx, cs, "browser_action", map[string]any{"action": "click", "selector": "#counter"})
	if !strings.Contains(act, "Clicked 1 times") {
		t.Errorf("click:\n%s", act)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("webpilot did not exit cleanly after stdin closed: %v", cmd.ProcessState)
	}
}

// When stdin ends while a call runs, the call still finishes and answers
// before webpilot exits (with status 0).
func TestStdinClosedDuringCall(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	const delay = 1500 * time.Millisecond
	served := make(chan time.Time, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(delay)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Slow page</title><p>finally</p>`)
		select {
		case served <- time.Now():
		default:
		}
	}))
	t.Cleanup(slow.Close)

	ctx := backendtest.Context(t, 90*time.Second)
	stderr := new(syncBuffer)
	cmd := webpilotCmd(t, stderr, mcpArgs...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()

	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser_navigate","arguments":{"url":%q,"snapshot":"none"}}}`, slow.URL+"/slow"),
	}
	if _, err := io.WriteString(stdin, strings.Join(msgs, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	closed := time.Now()

	var answer map[string]json.RawMessage
	var answered time.Time
	var lines []string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("stdout carries a line that is not JSON-RPC: %q", line)
			continue
		}
		if string(m["id"]) == "2" {
			answer = m
			answered = time.Now()
		}
	}
	eof := time.Now()
	err = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("webpilot did not finish in time; stdout:\n%s", strings.Join(lines, "\n"))
	}
	if err != nil {
		t.Errorf("webpilot exited with %v, want status 0", err)
	}
	if answer == nil {
		t.Fatalf("no answer to the tools/call (id 2) before EOF; stdout:\n%s", strings.Join(lines, "\n"))
	}
	if e, ok := answer["error"]; ok {
		t.Fatalf("tools/call answered with a JSON-RPC error: %s", e)
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(answer["result"], &res); err != nil {
		t.Fatalf("result: %v: %s", err, answer["result"])
	}
	if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "Slow page") {
		t.Fatalf("the call did not succeed: %s", answer["result"])
	}
	select {
	case at := <-served:
		if !at.After(closed) {
			t.Errorf("the page was served before stdin closed: the call was not in flight")
		}
	default:
		t.Errorf("the slow page was never served")
	}
	t.Logf("stdin closed; the call answered %v later, stdout ended %v later",
		answered.Sub(closed).Round(time.Millisecond), eof.Sub(closed).Round(time.Millisecond))
}

// After kill -9 of webpilot, no process of its browser survives.
func TestKill9LeavesNoBrowser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the process tree from /proc")
	}
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	cs, cmd := connectStdio(t, ctx)
	callText(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html", "snapshot": "none"})
	var status struct {
		Backend struct {
			PID        int    `json:"pid"`
			ProfileDir string `json:"profile_dir"`
		} `json:"backend"`
	}
	if err := json.Unmarshal([]byte(callText(t, ctx, cs, "browser_status", map[string]any{"verbose": true})), &status); err != nil {
		t.Fatalf("browser_status: %v", err)
	}

	pid := cmd.Process.Pid
	procs := processTable(t)
	children := childrenOf(procs, pid)
	if len(children) == 0 {
		t.Fatalf("webpilot (pid %d) has no child process after a navigation", pid)
	}
	if !slices.Contains(children, status.Backend.PID) {
		t.Errorf("browser_status pid %d is not a child of webpilot (children %v)", status.Backend.PID, children)
	}
	// Watch the whole tree, and the browser's helpers that left it (they
	// carry the profile dir in their environment).
	watch := map[int]proc{}
	tree := descendantsOf(procs, pid)
	for _, p := range tree {
		watch[p] = procs[p]
	}
	if status.Backend.ProfileDir != "" {
		for p, info := range procs {
			if hasEnv(p, "WEBPILOT_PROFILE_DIR="+status.Backend.ProfileDir) && p != pid {
				watch[p] = info
			}
		}
	}
	t.Logf("webpilot %d: children %v, %d descendants, %d more browser processes outside the tree",
		pid, children, len(tree), len(watch)-len(tree))

	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", pid, err)
	}
	_ = cs.Close() // reaps webpilot (the transport owns cmd.Wait)

	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	var alive []int
	for {
		alive = alive[:0]
		for p, info := range watch {
			if stillRunning(p, info) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(alive) > 0 {
		slices.Sort(alive)
		var desc []string
		for _, p := range alive {
			desc = append(desc, fmt.Sprintf("%d %s", p, cmdline(p)))
			_ = syscall.Kill(p, syscall.SIGKILL) // the test started them
		}
		t.Errorf("%d browser processes survived kill -9 of webpilot:\n%s", len(alive), strings.Join(desc, "\n"))
	}
}

// proc is what /proc/<pid>/stat tells about a process.
type proc struct {
	ppid      int
	state     byte
	starttime string // tells a reused pid apart
}

// readStat parses /proc/<pid>/stat. The command name in parentheses may hold
// spaces and parentheses, so the fields after the last ')' are used.
func readStat(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] state, f[1] ppid, …, f[19] starttime (field 22 of stat).
	if len(f) < 20 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return proc{ppid: ppid, state: f[0][0], starttime: f[19]}, true
}

func processTable(t *testing.T) map[int]proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("read /proc: %v", err)
	}
	out := make(map[int]proc)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out[pid] = p
		}
	}
	return out
}

func childrenOf(procs map[int]proc, parent int) []int {
	var out []int
	for pid, p := range procs {
		if p.ppid == parent {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

func descendantsOf(procs map[int]proc, root int) []int {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		kids := childrenOf(procs, queue[0])
		queue = append(queue[1:], kids...)
		out = append(out, kids...)
	}
	return out
}

// stillRunning reports whether the process that had info still runs: a pid
// that is gone, a zombie or a reused pid count as ended.
func stillRunning(pid int, info proc) bool {
	p, ok := readStat(pid)
	if !ok || p.starttime != info.starttime {
		return false
	}
	return p.state != 'Z' && p.state != 'X'
}

func hasEnv(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return slices.Contains(strings.Split(string(b), "\x00"), entry)
}

func cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "?"
	}
	s := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
