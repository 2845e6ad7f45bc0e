package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
)

// A listen address off loopback without a token is refused at start, with
// a usage error naming --auth-token; a token too short is refused too.
func TestServeRefusesOpenListen(t *testing.T) {
	t.Setenv("WEBPILOT_AUTH_TOKEN", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", "0.0.0.0:0"}, "--auth-token"},
		{[]string{"serve", "--listen", ":31999"}, "--auth-token"},
		{[]string{"serve", "--listen", "192.0.2.1:31999"}, "--auth-token"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--auth-token", "short"}, "at least 16"},
		{[]string{"serve", "--listen", "nonsense"}, "host:port"},
		{[]string{"mcp", "--listen", "127.0.0.1:0"}, "not defined"},
	} {
		stderr := new(syncBuffer)
		err := run(context.Background(), c.args, strings.NewReader(""), new(syncBuffer), stderr)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error()+stderr.String(), c.want) {
			t.Errorf("%v: got %v (stderr %q), want a usage error naming %q", c.args, err, stderr, c.want)
		}
	}
	if err := checkListen("0.0.0.0:31999", "a-token-of-16-chars!"); err != nil {
		t.Errorf("with a token, listening off loopback is refused: %v", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:31999", "[::1]:31999"} {
		if err := checkListen(addr, ""); err != nil {
			t.Errorf("%s without a token: %v", addr, err)
		}
	}
}

// `webpilot serve` as a process: it says where it listens, a go-sdk client
// lists the tools and drives the browser over HTTP, /health shows the
// browser up and the client's session, and on SIGTERM webpilot exits 0 and
// its browser is gone.
func TestServeSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	base := fixtures(t)
	ctx := backendtest.Context(t, 90*time.Second)
	stderr := new(syncBuffer)
	cmd := webpilotCmd(t, stderr, "serve", "--listen", "127.0.0.1:0", "--isolated", "--headless=true")
	url, exited := startServe(t, cmd, stderr)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	defer cs.Close()
	tl, err := cs.ListTools(ctx, nil)
	if err != nil || len(tl.Tools) == 0 {
		t.Fatalf("tools/list: %v", err)
	}
	if nav := callText(t, ctx, cs, "browser_navigate", map[string]any{"url": base + "/basic.html"}); !strings.Contains(nav, "Basic page") {
		t.Errorf("navigate:\n%s", nav)
	}
	if snap := callText(t, ctx, cs, "browser_snapshot", nil); !strings.Contains(snap, "Clicked 0 times") {
		t.Errorf("snapshot:\n%s", snap)
	}
	status := callText(t, ctx, cs, "browser_status", map[string]any{"verbose": true})
	if !strings.Contains(status, `"client-`) {
		t.Errorf("the client's default session is not one of its own (http-…):\n%s", status)
	}
	res, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	err = json.NewDecoder(res.Body).Decode(&h)
	res.Body.Close()
	if err != nil || h["browser"] != "up" || h["backend"] != "launch" || h["sessions"] != 1.0 || h["version"] == nil {
		t.Errorf("/health: %v %v", h, err)
	}

	var watch map[int]proc
	if runtime.GOOS == "linux" {
		procs := processTable(t)
		watch = map[int]proc{}
		for _, p := range descendantsOf(procs, cmd.Process.Pid) {
			watch[p] = procs[p]
		}
		if len(watch) == 0 {
			t.Fatal("webpilot serve has no browser process after a navigation")
		}
	}
	termServe(t, cmd, exited)
	deadline := time.Now().Add(backendtest.Timeout(10 * time.Second))
	for p, info := range watch {
		for stillRunning(p, info) {
			if time.Now().After(deadline) {
				t.Errorf("browser process %d (%s) outlived webpilot serve", p, cmdline(p))
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// serve's keys: --listen defaults to DefaultListen, WEBPILOT_AUTH_TOKEN sets
// the token (a flag beats it), browser_status shows the token only as set,
// and .webpilot.json may set neither.
func TestConfigServeKeys(t *testing.T) {
	dir := t.TempDir()
	loadServe := func(args []string, env map[string]string) (*Config, error) {
		fs := flag.NewFlagSet("webpilot serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return loadConfig(fs, args, func(k string) string { return env[k] }, dir)
	}
	c, err := loadServe(nil, map[string]string{"WEBPILOT_AUTH_TOKEN": "env-token-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || c.AuthToken != "env-token-0123456789" || c.Sources["auth_token"] != "env" {
		t.Errorf("listen %q token %q (%s)", c.Listen, c.AuthToken, c.Sources["auth_token"])
	}
	if v := fmt.Sprint(c.View()["auth_token"]); strings.Contains(v, "env-token") {
		t.Errorf("View shows the token: %s", v)
	}
	c, err = loadServe([]string{"--auth-token", "flag-token-0123456789", "--listen", "0.0.0.0:8080"}, map[string]string{"WEBPILOT_AUTH_TOKEN": "env-token-0123456789"})
	if err != nil || c.AuthToken != "flag-token-0123456789" || c.Listen != "0.0.0.0:8080" {
		t.Errorf("flags: %v %+v", err, c)
	}
	for _, key := range []string{"listen", "auth_token"} {
		if err := os.WriteFile(filepath.Join(dir, ".webpilot.json"), []byte(`{"`+key+`": "0.0.0.0:1"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadServe(nil, nil); err == nil || !strings.Contains(err.Error(), "only be set by flag or environment") {
			t.Errorf(".webpilot.json %s: %v", key, err)
		}
	}
}

// startServe starts `webpilot serve` (cmd) and returns the MCP URL it says
// it listens at, and the channel its exit reaches; the process is killed at
// the end of the test.
func startServe(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) (string, chan error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var url string
	re := regexp.MustCompile(`MCP over HTTP at (http://\S+/mcp)`)
	for deadline := time.Now().Add(backendtest.Timeout(30 * time.Second)); url == ""; {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webpilot serve did not say where it listens:\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return url, exited
}

// termServe sends SIGTERM to `webpilot serve` and waits for it to exit 0.
func termServe(t *testing.T, cmd *exec.Cmd, exited chan error) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("webpilot serve exited with %v after SIGTERM, want 0", err)
		}
	case <-time.After(backendtest.Timeout(30 * time.Second)):
		t.Fatal("webpilot serve did not exit after SIGTERM")
	}
}
