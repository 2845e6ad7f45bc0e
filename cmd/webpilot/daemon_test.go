//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/daemon"
	"github.com/webpilot-mcp/webpilot/internal/filelock"
	"github.com/webpilot-mcp/webpilot/internal/mcpproxy"
)

// proxyArgs start `webpilot mcp` as a proxy to the per-user daemon, which
// it starts with these settings.
var proxyArgs = []string{"mcp", "--isolated", "--headless=true"}

// daemonHome is a user config dir of its own for a test's daemon; the
// daemon left running at the end is stopped.
func daemonHome(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	home := t.TempDir()
	t.Cleanup(func() { stopDaemon(t, home) })
	return home
}

// stateDir is where the daemon of home keeps its state file.
func stateDir(home string) string { return filepath.Join(home, "webpilot") }

// stopDaemon ends the daemon of home, if one runs, and waits until it is
// gone (its run lock free).
func stopDaemon(t *testing.T, home string) {
	t.Helper()
	dir := stateDir(home)
	if st, err := daemon.ReadState(dir); err == nil && st.PID > 0 {
		_ = syscall.Kill(st.PID, syscall.SIGTERM)
	}
	waitGone(t, dir, 60*time.Second)
}

// waitGone waits until no daemon holds the run lock in dir.
func waitGone(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(backendtest.Timeout(d))
	for filelock.Held(filepath.Join(dir, daemon.RunLock)) {
		if time.Now().After(deadline) {
			t.Errorf("the daemon in %s still runs after %s", dir, d)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie, not yet reaped, does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// proxyCmd is `webpilot mcp …` reaching the daemon of home.
func proxyCmd(t *testing.T, home string, stderr *syncBuffer, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := webpilotCmd(t, stderr, args...)
	// A later entry wins: the daemon's home is the test's, not the
	// command's own temp dir.
	cmd.Env = append(append(cmd.Env, "XDG_CONFIG_HOME="+home, "TMPDIR="+home), env...)
	return cmd
}

// connectProxy starts a proxy and connects a go-sdk client over stdio.
func connectProxy(t *testing.T, ctx context.Context, home string, stderr *syncBuffer, env ...string) *mcp.ClientSession {
	t.Helper()
	cmd := proxyCmd(t, home, stderr, env, proxyArgs...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: backendtest.Timeout(15 * time.Second)}, nil)
	if err != nil {
		t.Fatalf("connect to webpilot mcp (proxy): %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// bearer adds the daemon's token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects a go-sdk client to the daemon over HTTP with the
// token of the state file.
func connectHTTP(t *testing.T, ctx context.Context, st daemon.State) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: st.URL(), HTTPClient: &http.Client{Transport: bearer{st.Token}}}, nil)
	if err != nil {
		t.Fatalf("connect to the daemon at %s: %v", st.URL(), err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// tabURLs lists the URLs of the tabs browser_tabs shows the client.
func tabURLs(t *testing.T, ctx context.Context, cs *mcp.ClientSession) string {
	t.Helper()
	return callText(t, ctx, cs, "browser_tabs", map[string]any{"action": "list"})
}

// Two stdio proxies started at the same moment end up on one daemon (the
// start race), which they started; with two HTTP clients beside them, each
// of the four works in a browser session of its own: its navigation is in
// its own tab list and in nobody else's. /health counts the four.
func TestDaemonSharedByProxiesAndHTTP(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 180*time.Second)

	var clients [4]*mcp.ClientSession
	var stderrs [2]*syncBuffer
	var wg sync.WaitGroup
	for i := range 2 {
		stderrs[i] = new(syncBuffer)
		wg.Go(func() { clients[i] = connectProxy(t, ctx, home, stderrs[i]) })
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatalf("no state file after two proxies started: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(stateDir(home), daemon.StateFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode: %v %v, want 0600", fi.Mode(), err)
	}
	// The second proxy's daemon, had it started one, would have failed
	// on the run lock and said so in the start-error file.
	if b, _ := os.ReadFile(filepath.Join(stateDir(home), daemon.StartErrFile)); strings.Contains(string(b), "another webpilot daemon") {
		t.Errorf("a second daemon was started:\n%s", b)
	}
	clients[2] = connectHTTP(t, ctx, st)
	clients[3] = connectHTTP(t, ctx, st)

	for i, cs := range clients {
		wg.Go(func() {
			nav := callText(t, ctx, cs, "browser_navigate", map[string]any{"url": fmt.Sprintf("%s/basic.html?client=%d", base, i)})
			if !strings.Contains(nav, "Basic page") {
				t.Errorf("client %d navigate:\n%s", i, nav)
			}
		})
	}
	wg.Wait()
	for i, cs := range clients {
		tabs := tabURLs(t, ctx, cs)
		for j := range clients {
			has := strings.Contains(tabs, fmt.Sprintf("client=%d", j))
			if has != (i == j) {
				t.Errorf("client %d's tabs (should hold client=%d only):\n%s", i, i, tabs)
			}
		}
	}
	h, err := daemon.GetHealth(ctx, st)
	if err != nil || h.Sessions != 4 || h.Browser != "up" || h.Version != version {
		t.Errorf("health: %+v %v, want 4 sessions, browser up, version %s", h, err, version)
	}
	if again, err := daemon.ReadState(stateDir(home)); err != nil || again.PID != st.PID {
		t.Errorf("the daemon changed: %+v → %+v (%v)", st, again, err)
	}
	// Unauthenticated requests are refused: the loopback port is not
	// open to other local users.
	res, err := http.Get("http://" + st.Addr + "/health")
	if err == nil {
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("/health without the token: %s, want 401", res.Status)
		}
	}
}

// The daemon exits once it has had no client for --idle-exit
// (WEBPILOT_IDLE_EXIT reaches it from the proxy's environment), and removes
// its state file; the next proxy starts a new one.
func TestDaemonIdleExit(t *testing.T) {
	home := daemonHome(t)
	ctx := backendtest.Context(t, 120*time.Second)
	stderr := new(syncBuffer)
	cs := connectProxy(t, ctx, home, stderr, "WEBPILOT_IDLE_EXIT=1s")
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}
	// While the client is connected, the daemon stays, idle or not.
	time.Sleep(2500 * time.Millisecond)
	if !filelock.Held(filepath.Join(stateDir(home), daemon.RunLock)) {
		t.Fatal("the daemon exited while a client was connected")
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	waitGone(t, stateDir(home), 60*time.Second)
	if _, err := os.Stat(filepath.Join(stateDir(home), daemon.StateFile)); !os.IsNotExist(err) {
		t.Errorf("the state file outlived the daemon: %v", err)
	}
	// It released the lock as it returned; the process ends right after.
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); alive(st.PID); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("daemon pid %d still alive", st.PID)
			break
		}
	}
	cs2 := connectProxy(t, ctx, home, new(syncBuffer))
	if _, err := cs2.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	st2, err := daemon.ReadState(stateDir(home))
	if err != nil || st2.PID == st.PID {
		t.Errorf("no new daemon: %+v %v", st2, err)
	}
}

// When the daemon dies under a connected proxy, the proxy's next call
// starts a new daemon, opens a new session with the host's initialize, and
// succeeds; the host's MCP session carries on.
func TestProxyReconnectsAfterDaemonRestart(t *testing.T) {
	home := daemonHome(t)
	base := fixtures(t)
	ctx := backendtest.Context(t, 180*time.Second)
	stderr := new(syncBuffer)
	cs := connectProxy(t, ctx, home, stderr)
	if nav := callText(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"}); !strings.Contains(nav, "Basic page") {
		t.Fatalf("navigate:\n%s", nav)
	}
	st, err := daemon.ReadState(stateDir(home))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, stateDir(home), 30*time.Second)
	nav := callText(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html?again=1"})
	if !strings.Contains(nav, "Basic page") {
		t.Fatalf("navigate after the daemon died:\n%s", nav)
	}
	// The agent is told first that its tabs went with the daemon; once.
	if !strings.HasPrefix(nav, mcpproxy.LostNote) {
		t.Errorf("the first call after the restart does not start with the lost-session note:\n%s", nav)
	}
	if again := callText(t, ctx, cs, "browser_snapshot", nil); strings.Contains(again, "restarted") {
		t.Errorf("the note came again:\n%s", again)
	}
	st2, err := daemon.ReadState(stateDir(home))
	if err != nil || st2.PID == st.PID {
		t.Errorf("no new daemon: %+v %v", st2, err)
	}
	if !strings.Contains(stderr.String(), "reconnected") {
		t.Errorf("the proxy did not say it reconnected:\n%s", stderr)
	}
	// The daemon's log is in the state dir.
	if b, err := os.ReadFile(filepath.Join(stateDir(home), daemon.LogFile)); err != nil || !strings.Contains(string(b), "daemon started") {
		t.Errorf("daemon log: %v\n%s", err, b)
	}
	var h struct{ Sessions int }
	if hh, err := daemon.GetHealth(ctx, st2); err == nil {
		b, _ := json.Marshal(hh)
		_ = json.Unmarshal(b, &h)
	}
	if h.Sessions != 1 {
		t.Errorf("new daemon sessions = %d, want 1 (the proxy's new one)", h.Sessions)
	}
}
