//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/mcpclient"
)

// cliAt runs `webpilot ARGS…` as a program whose user config dir is home
// (so it reaches home's daemon) in dir, and returns its exit code and
// output.
func cliAt(t *testing.T, ctx context.Context, home, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliEnvAt(t, ctx, home, dir, nil, args...)
}

// cliEnvAt is cliAt with env added to the program's environment.
func cliEnvAt(t *testing.T, ctx context.Context, home, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var errb syncBuffer
	cmd := proxyCmd(t, home, &errb, env, args...)
	if dir != "" {
		cmd.Dir = dir
	}
	var out strings.Builder
	cmd.Stdout = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("webpilot %v: %v", args, err)
		}
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatalf("webpilot %v did not end: %v\nstdout:\n%s\nstderr:\n%s", args, ctx.Err(), out.String(), errb.String())
	}
	return code, out.String(), errb.String()
}

// browserProcs lists the processes whose command line mentions dir (the
// daemon's browser: its temporary profile is under the test's TMPDIR).
func browserProcs(dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, dir) && strings.Contains(cmd, "chrom") {
			out = append(out, e.Name()+": "+cmd)
		}
	}
	return out
}

// `webpilot daemon status|logs|stop|restart` on a daemon that an agent
// uses; `webpilot call` and `webpilot recipe run` meanwhile share that
// daemon (its pid stays, its client list shows them while they run); a
// stop while a call is in flight answers it, closes the browser and leaves
// no browser process; restart starts the next daemon with the same browser
// settings.
func TestDaemonCommands(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 240*time.Second)

	// Before any client: not running, exit 3.
	if code, out, _ := cliAt(t, ctx, home, "", "daemon", "status"); code != 3 || !strings.Contains(out, "not running") {
		t.Errorf("status without a daemon: exit %d\n%s", code, out)
	}

	agent := connectProxyArgs(t, ctx, home, new(syncBuffer), nil)
	if out := callText(t, ctx, agent, "browser_navigate", map[string]any{"url": base + "/basic.html?agent=1"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("agent navigate: %s", out)
	}
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}

	code, out, errs := cliAt(t, ctx, home, "", "daemon", "status")
	for _, want := range []string{fmt.Sprintf("running (pid %d", st.PID), "proxy-test", "clients (1)", "isolated", "true (from the client that started it)", "client-", "idle exit: 10m0s after the last client leaves", "daemon.log"} {
		if !strings.Contains(out, want) {
			t.Errorf("daemon status lacks %q: exit %d\n%s%s", want, code, out, errs)
		}
	}
	code, out, _ = cliAt(t, ctx, home, "", "daemon", "status", "--json")
	var js struct {
		Running bool
		PID     int
		Clients []daemon.Client
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 0 || !js.Running || js.PID != st.PID || len(js.Clients) != 1 || js.Clients[0].Name != "proxy-test" || js.Clients[0].Calls != 1 {
		t.Errorf("status --json: exit %d, %v\n%s", code, err, out)
	}

	// webpilot call, twice in one named session: the same tab across
	// calls, in the agent's daemon; the agent's tab is untouched.
	flags := []string{"--isolated", "--headless=true", "--session", "cli"}
	code, out, errs = cliAt(t, ctx, home, "", append(append([]string{"call"}, flags...), "browser_navigate", fmt.Sprintf(`{"url": %q}`, base+"/basic.html?cli=1"))...)
	if code != 0 || !strings.Contains(out, "Basic page") {
		t.Fatalf("webpilot call while an agent holds the daemon: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = cliAt(t, ctx, home, "", append(append([]string{"call"}, flags...), "browser_tabs", `{"action": "list"}`)...)
	if code != 0 || !strings.Contains(out, "cli=1") || strings.Contains(out, "agent=1") {
		t.Errorf("webpilot call --session cli, second call: exit %d\nstdout: %q\nstderr: %q", code, out, errs)
	}
	if strings.Contains(errs, "in use") {
		t.Errorf("webpilot call collided with the daemon:\n%s", errs)
	}

	// webpilot recipe run, through the daemon too, from the folder of
	// its recipes.
	recipes := t.TempDir()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
	recipe := fmt.Sprintf(`{"name": "basic-title", "site": "127.0.0.1:%s", "params": {"page": {"type": "string"}},
  "steps": [{"do": "navigate", "url": "%s/$page"}, {"do": "read", "what": "title", "save_as": "title"}], "output": ["title"]}`, port, base)
	if err := os.WriteFile(filepath.Join(recipes, "basic-title.json"), []byte(recipe), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliAt(t, ctx, home, "", "recipe", "run", "--isolated", "--headless=true", "--recipes", recipes, "basic-title", "page=basic.html")
	if code != 0 || !strings.Contains(out, "Basic page") {
		t.Errorf("webpilot recipe run while an agent holds the daemon: exit %d\n%s%s", code, out, errs)
	}
	if again, err := daemon.ReadState(stateDir(home)); err != nil || again.PID != st.PID {
		t.Errorf("the CLI did not use the running daemon: %+v → %+v (%v)", st, again, err)
	}
	if tabs := tabURLs(t, ctx, agent); !strings.Contains(tabs, "agent=1") || strings.Contains(tabs, "cli=1") {
		t.Errorf("the agent's tabs changed:\n%s", tabs)
	}

	code, out, _ = cliAt(t, ctx, home, "", "daemon", "logs", "-n", "5")
	if code != 0 || strings.Count(out, "\n") != 5 {
		t.Errorf("daemon logs -n 5: exit %d, %d lines\n%s", code, strings.Count(out, "\n"), out)
	}

	// A stop while the agent's call waits: the call is answered, the
	// browser goes with the daemon.
	answered := make(chan string, 1)
	go func() {
		res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "browser_wait", Arguments: map[string]any{
			"conditions": []any{map[string]any{"text": "never on this page"}}, "timeout_ms": 60000}})
		switch {
		case err != nil:
			answered <- "error: " + err.Error()
		default:
			answered <- mcpclient.ResultText(res)
		}
	}()
	time.Sleep(300 * time.Millisecond) // the wait is under way (a later stop only makes it shorter)
	code, out, errs = cliAt(t, ctx, home, "", "daemon", "stop")
	if code != 0 || !strings.Contains(out, "stopped (pid") {
		t.Errorf("daemon stop: exit %d\n%s%s", code, out, errs)
	}
	select {
	case got := <-answered:
		if !strings.Contains(got, "OUTCOME_UNKNOWN") && !strings.Contains(got, "TIMEOUT") {
			t.Errorf("the call in flight at the stop was answered: %s", got)
		}
	case <-time.After(backendtest.Timeout(30 * time.Second)):
		t.Error("the call in flight at the stop was never answered")
	}
	if procs := browserProcs(home); len(procs) > 0 {
		t.Errorf("browser processes left after daemon stop:\n%s", strings.Join(procs, "\n"))
	}
	if code, _, _ := cliAt(t, ctx, home, "", "daemon", "status"); code != 3 {
		t.Errorf("status after stop: exit %d, want 3", code)
	}

	// restart with nothing running starts one; restart again replaces it
	// and keeps its browser settings.
	code, out, errs = cliAt(t, ctx, home, "", "daemon", "restart", "--isolated", "--headless=true")
	if code != 0 || !strings.Contains(out, "started the webpilot daemon") {
		t.Fatalf("restart (none running): exit %d\n%s%s", code, out, errs)
	}
	first, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliAt(t, ctx, home, "", "daemon", "restart")
	second, err := daemon.ReadState(stateDir(home))
	if code != 0 || err != nil || second.PID == first.PID || second.Config != first.Config || second.Settings["isolated"] != "true" {
		t.Errorf("restart: exit %d, %v: %+v → %+v\n%s%s", code, err, first, second, out, errs)
	}
	// A browser setting exported in the shell the restart is typed in does
	// not replace the daemon's: it is named, with the flag that would.
	code, out, errs = cliEnvAt(t, ctx, home, "", []string{"WEBPILOT_BRIDGE_PORT=47318", "WEBPILOT_HEADLESS=false"}, "daemon", "restart")
	third, err := daemon.ReadState(stateDir(home))
	if code != 0 || err != nil || third.Config != first.Config || third.Settings["isolated"] != "true" || third.Settings["headless"] != "true" {
		t.Errorf("restart with WEBPILOT_* exported: exit %d, %v: %+v → %+v\n%s%s", code, err, second, third, out, errs)
	}
	for _, want := range []string{"WEBPILOT_BRIDGE_PORT (to apply it: --bridge-port=47318)", "WEBPILOT_HEADLESS (to apply it: --headless=false)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("restart with WEBPILOT_* exported does not say %q:\n%s", want, errs)
		}
	}
	second = third
	// The agent's next call reaches the new daemon, without another
	// start: its settings match.
	if out := callText(t, ctx, agent, "browser_navigate", map[string]any{"url": base + "/basic.html?after=1"}); !strings.Contains(out, "Basic page") {
		t.Errorf("the agent after restart: %s", out)
	}
	if fourth, err := daemon.ReadState(stateDir(home)); err != nil || fourth.PID != second.PID {
		t.Errorf("the agent's proxy started another daemon: %+v → %+v (%v)", second, fourth, err)
	}
}

// serveAddr starts `webpilot serve ARGS…` with home's config dir and waits
// for the address it says it serves at.
func serveAddr(t *testing.T, ctx context.Context, home string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	stderr := new(syncBuffer)
	cmd := proxyCmd(t, home, stderr, nil, append([]string{"serve"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(backendtest.Timeout(20 * time.Second)):
			_ = cmd.Process.Kill()
		}
	})
	for {
		if _, rest, ok := strings.Cut(stderr.String(), "MCP over HTTP at http://"); ok {
			addr, _, _ := strings.Cut(rest, "/mcp")
			return addr, cmd
		}
		select {
		case <-ctx.Done():
			t.Fatalf("webpilot serve did not start:\n%s", stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// webpilot serve and the daemon never fight over one browser profile:
// serve refuses while the daemon drives it, naming the daemon's pid, its
// client and the way out, and serves with --isolated; a daemon that finds
// serve's browser on the profile names that webpilot rather than telling
// the agent to close a browser.
func TestServeAndDaemonShareNoProfile(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 240*time.Second)
	stderr := new(syncBuffer)
	cmd := proxyCmd(t, home, stderr, nil, "mcp", "--headless=true")
	agent, err := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	if out := callText(t, ctx, agent, "browser_navigate", map[string]any{"url": base + "/basic.html"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("agent navigate: %s", out)
	}
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := cliAt(t, ctx, home, "", "serve", "--headless=true", "--listen", "127.0.0.1:0")
	for _, want := range []string{fmt.Sprintf("daemon (pid %d", st.PID), "proxy-test", "webpilot daemon stop", "--isolated", filepath.Join(home, "webpilot", "profile")} {
		if !strings.Contains(errs, want) {
			t.Errorf("serve beside the daemon: exit %d, stderr lacks %q:\n%s", code, want, errs)
		}
	}
	if code != 2 {
		t.Errorf("serve beside the daemon: exit %d, want 2", code)
	}
	if addr, _ := serveAddr(t, ctx, home, "--isolated", "--headless=true", "--listen", "127.0.0.1:0"); addr == "" {
		t.Error("serve --isolated beside the daemon did not start")
	}
	_ = agent.Close()
	if code, out, errs := cliAt(t, ctx, home, "", "daemon", "stop"); code != 0 {
		t.Fatalf("daemon stop: exit %d\n%s%s", code, out, errs)
	}

	// The other way round: serve holds the profile first.
	addr, serve := serveAddr(t, ctx, home, "--headless=true", "--listen", "127.0.0.1:0")
	hc, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if out := callText(t, ctx, hc, "browser_navigate", map[string]any{"url": base + "/basic.html"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("serve's navigate: %s", out)
	}
	cmd = proxyCmd(t, home, new(syncBuffer), nil, "mcp", "--headless=true")
	clash, err := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer clash.Close()
	out, code2 := callOutcome(t, ctx, clash, "browser_navigate", map[string]any{"url": base + "/basic.html"})
	if code2 != "NO_BROWSER" || !strings.Contains(out, "another webpilot") || !strings.Contains(out, fmt.Sprintf("pid %d", serve.Process.Pid)) || strings.Contains(out, "close the other browser") {
		t.Errorf("the daemon beside serve's browser: %s %s", code2, out)
	}
}

// A forged state file in a config dir other users may change is not
// followed (issue 47, 12): webpilot call and webpilot mcp refuse the dir,
// say how to fix it, and send nothing to the address it names.
func TestForgedStateIsNotFollowed(t *testing.T) {
	home := daemonHome(t) // (a daemon started by mistake is stopped)
	var hits atomic.Int32
	forged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(forged.Close)
	dir := stateDir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := daemon.WriteState(dir, daemon.State{Addr: strings.TrimPrefix(forged.URL, "http://"), Token: "forged", Version: version}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		chmod string
		mode  os.FileMode
		want  string
	}{
		{dir, 0o777, "chmod 700"},
		{filepath.Join(dir, daemon.StateFile), 0o666, "chmod 600"},
	} {
		if err := os.Chmod(c.chmod, c.mode); err != nil {
			t.Fatal(err)
		}
		ctx := backendtest.Context(t, 60*time.Second)
		for _, args := range [][]string{{"call", "browser_status"}, {"daemon", "status"}} {
			code, out, errs := cliAt(t, ctx, home, "", args...)
			if code == 0 || !strings.Contains(out+errs, "does not trust") || !strings.Contains(out+errs, c.want) {
				t.Errorf("webpilot %v with %s at %o: exit %d\n%s%s", args, c.chmod, c.mode, code, out, errs)
			}
		}
		if err := os.Chmod(c.chmod, map[bool]os.FileMode{true: 0o700, false: 0o600}[c.chmod == dir]); err != nil {
			t.Fatal(err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the forged address got %d request(s)", n)
	}
}

// `webpilot serve` beside a daemon that drives the same browser is refused
// with ways out that work: for the daemon's profile another profile, for
// the user's Chrome a browser of its own (another bridge port would reach no
// Chrome: the extension connects to one webpilot); a serve with a browser of
// its own starts.
func TestServeBesideTheDaemon(t *testing.T) {
	home := daemonHome(t)
	ctx := backendtest.Context(t, 120*time.Second)
	t.Setenv("XDG_CONFIG_HOME", home)
	port := strconv.Itoa(freePort(t))

	refusal := func(what string, want ...string) {
		t.Helper()
		code, out, errs := cliAt(t, ctx, home, "", "serve", "--headless=true", "--bridge-port", port, "--listen", "127.0.0.1:0")
		if code != 2 {
			t.Fatalf("%s: serve beside the daemon: exit %d, want 2\n%s%s", what, code, out, errs)
		}
		for _, w := range append(want, "already drives", "webpilot daemon stop", "--isolated") {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: the refusal lacks %q:\n%s", what, w, errs)
			}
		}
		if strings.Contains(errs, "--bridge-port N") {
			t.Errorf("%s: the refusal offers another bridge port, which reaches no Chrome:\n%s", what, errs)
		}
	}

	// The daemon on the default profile.
	if code, out, errs := cliAt(t, ctx, home, "", "call", "--headless=true", "--bridge-port", port, "browser_status"); code != 0 {
		t.Fatalf("call: exit %d\n%s%s", code, out, errs)
	}
	refusal("profile", "the browser profile", "serve another browser")
	if addr, _ := serveAddr(t, ctx, home, "--isolated", "--headless=true", "--bridge-port", port, "--listen", "127.0.0.1:0"); addr == "" {
		t.Error("serve --isolated beside the daemon did not start")
	}

	// Paired: the daemon drives the user's Chrome through the bridge port.
	if _, err := writeSecret(bytes.Repeat([]byte{9}, 32)); err != nil {
		t.Fatal(err)
	}
	stopDaemon(t, home)
	if code, out, errs := cliAt(t, ctx, home, "", "call", "--headless=true", "--bridge-port", port, "browser_status"); code != 0 {
		t.Fatalf("call (paired): exit %d\n%s%s", code, out, errs)
	}
	refusal("bridge", "the bridge port "+port, "a browser of its own instead of your Chrome")
}

// `webpilot daemon end` ends what `daemon status` lists: a browser session
// no client uses, or a client (its MCP session closed and its browser
// sessions removed at once); a name that is nothing, or a session a
// connected client defaults to, is refused with the way out.
func TestDaemonEnd(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 120*time.Second)
	agent := connectProxyArgs(t, ctx, home, new(syncBuffer), nil)
	other := connectProxyArgs(t, ctx, home, new(syncBuffer), nil)
	for _, s := range []string{"", "team"} {
		args := map[string]any{"url": base + "/basic.html?end=" + s, "snapshot": "none"}
		if s != "" {
			args["session"] = s
		}
		if out := callText(t, ctx, agent, "browser_navigate", args); !strings.Contains(out, "Basic page") {
			t.Fatalf("navigate (session %q): %s", s, out)
		}
	}
	if out := callText(t, ctx, other, "browser_navigate", map[string]any{"url": base + "/basic.html?other=0", "snapshot": "none"}); !strings.Contains(out, "Basic page") {
		t.Fatalf("other navigate: %s", out)
	}
	status := func() daemon.Status {
		t.Helper()
		code, out, errs := cliAt(t, ctx, home, "", "daemon", "status", "--json")
		var st daemon.Status
		if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
			t.Fatalf("status --json: exit %d, %v\n%s%s", code, err, out, errs)
		}
		return st
	}
	st := status()
	var agentID, otherID string
	for _, c := range st.Clients {
		switch {
		case slices.ContainsFunc(c.Sessions, func(s string) bool { return strings.HasSuffix(s, "/team") }):
			agentID = c.ID
		default:
			otherID = c.ID
		}
	}
	if agentID == "" || otherID == "" || !slices.Contains(st.Sessions, agentID+"/team") {
		t.Fatalf("status: clients %+v, sessions %v", st.Clients, st.Sessions)
	}

	if code, out, errs := cliAt(t, ctx, home, "", "daemon", "end", "nosuch"); code != 1 || !strings.Contains(errs, `no client or browser session is called "nosuch"`) {
		t.Errorf("end nosuch: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := cliAt(t, ctx, home, "", "daemon", "end", agentID+"/team"); code != 0 || !strings.Contains(out, "removed the browser session "+agentID+"/team") {
		t.Errorf("end a session: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := cliAt(t, ctx, home, "", "daemon", "end", agentID); code != 0 || !strings.Contains(out, "ended the client "+agentID+" (proxy-test)") || !strings.Contains(out, "removed: "+agentID) {
		t.Errorf("end a client: exit %d\n%s%s", code, out, errs)
	}
	st = status()
	for _, c := range st.Clients {
		if c.ID == agentID {
			t.Errorf("the ended client is still listed: %+v", st.Clients)
		}
	}
	if slices.Contains(st.Sessions, agentID) || slices.Contains(st.Sessions, agentID+"/team") || !slices.Contains(st.Sessions, otherID) {
		t.Errorf("sessions after the end: %v (ended %s, kept %s)", st.Sessions, agentID, otherID)
	}
	// The other client is untouched, and its own session is not ended
	// under it.
	if code, out, errs := cliAt(t, ctx, home, "", "daemon", "end", otherID+"x"); code != 1 {
		t.Errorf("end of a name no one has: exit %d\n%s%s", code, out, errs)
	}
	if out := callText(t, ctx, other, "browser_navigate", map[string]any{"url": base + "/basic.html?other=1", "snapshot": "none"}); !strings.Contains(out, "Basic page") {
		t.Errorf("the other client after the end: %s", out)
	}
}

// A restart keeps the running daemon's browser settings; a flag replaces
// its setting and, for a choice (backend and endpoint; the profile), the
// whole group; settings from the shell are named, credentials hidden; what
// would not start a daemon is an error before anything stops.
func TestRestartSettings(t *testing.T) {
	cliEnv(t)
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		running map[string]string
		want    map[string]string // nil: an error
		says    []string
		hides   string
	}{
		{name: "the shell's setting is named, not applied", env: map[string]string{"WEBPILOT_HEADLESS": "false"},
			running: map[string]string{"isolated": "true", "headless": "true"}, want: map[string]string{"isolated": "true", "headless": "true"},
			says: []string{"WEBPILOT_HEADLESS (to apply it: --headless=false)"}},
		{name: "a flag replaces its setting", args: []string{"--headless=false"},
			running: map[string]string{"isolated": "true", "headless": "true"}, want: map[string]string{"isolated": "true", "headless": "false"}},
		{name: "another backend drops the endpoint's group", args: []string{"--backend", "launch"},
			running: map[string]string{"cdp_endpoint": "ws://farm/?token=T0KEN", "endpoint_per_session": "true"}, want: map[string]string{"backend": "launch"}},
		{name: "an endpoint replaces the backend", args: []string{"--cdp-endpoint", "ws://farm/"},
			running: map[string]string{"backend": "launch", "headless": "true"}, want: map[string]string{"cdp_endpoint": "ws://farm/", "headless": "true"}},
		{name: "an endpoint's wait keeps its endpoint", args: []string{"--endpoint-wait", "5s"},
			running: map[string]string{"cdp_endpoint": "ws://farm/", "endpoint_per_session": "true"}, want: map[string]string{"cdp_endpoint": "ws://farm/", "endpoint_per_session": "true", "endpoint_wait": "5s"}},
		{name: "isolated replaces the profile", args: []string{"--isolated"},
			running: map[string]string{"user_data_dir": "/home/u/p"}, want: map[string]string{"isolated": "true"}},
		{name: "the bridge with a profile of its own", args: []string{"--backend", "bridge"},
			running: map[string]string{"isolated": "true"}},
		{name: "a token from the shell is not shown", env: map[string]string{"WEBPILOT_CDP_ENDPOINT": "ws://other/?token=S3CRET"},
			running: map[string]string{"cdp_endpoint": "ws://farm/"}, want: map[string]string{"cdp_endpoint": "ws://farm/"},
			says: []string{"WEBPILOT_CDP_ENDPOINT (to apply it: --cdp-endpoint="}, hides: "S3CRET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var errb bytes.Buffer
			cfg, err := parseConfig("daemon restart", tc.args, &errb)
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			got, err := restartSettings(cfg, browserSettings(cfg), tc.running, &errb)
			switch {
			case tc.want == nil && err == nil:
				t.Fatalf("settings %v, want an error", got)
			case tc.want != nil && (err != nil || !maps.Equal(got, tc.want)):
				t.Fatalf("settings %v, %v; want %v", got, err, tc.want)
			}
			for _, s := range tc.says {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q: %s", s, errb.String())
				}
			}
			if tc.hides != "" && strings.Contains(errb.String(), tc.hides) {
				t.Errorf("stderr shows %q: %s", tc.hides, errb.String())
			}
		})
	}
}
