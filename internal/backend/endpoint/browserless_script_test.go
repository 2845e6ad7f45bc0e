package endpoint_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint"
	"github.com/webpilot-mcp/webpilot/internal/backend/endpoint/farmtest"
	"github.com/webpilot-mcp/webpilot/internal/redact"
)

// scriptLog keeps a process's output for a failing test's report.
type scriptLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *scriptLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *scriptLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	if len(s) > 6000 {
		s = "…" + s[len(s)-6000:]
	}
	return s
}

func loopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// farmProcs are the processes whose command line has a --user-data-dir
// under data: the farm's browsers and their helpers.
func farmProcs(t *testing.T, data string) []int {
	t.Helper()
	pids, err := farmtest.ProfileProcs(data, false)
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// The README's way to run browserless from npm, followed as a person does:
// scripts/browserless.sh with only the options a person gives (browserless
// and Node from ensure-browserless.sh, the Chromium from ensure-chromium.sh,
// the default run folder, a random token) starts the farm in the
// foreground, then prints the webpilot command line; the endpoint it names
// gives webpilot a browser of the farm's that loads a page; the farm has
// the concurrency and queue asked for and wants its token; Ctrl-C (SIGINT
// to the foreground process group) stops it and its browsers.
func TestBrowserlessScript(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: skipped under -short")
	}
	if os.Getenv(farmtest.EnvBrowserlessDir) == "" {
		if os.Getenv(farmtest.EnvRequireBrowserless) == "1" {
			t.Fatalf("%s=1 but %s is not set: set it to $(bash scripts/ensure-browserless.sh)", farmtest.EnvRequireBrowserless, farmtest.EnvBrowserlessDir)
		}
		t.Skipf("needs the real browserless: set %s=$(bash scripts/ensure-browserless.sh) (make test does)", farmtest.EnvBrowserlessDir)
	}
	script, err := farmtest.Script()
	if err != nil {
		t.Fatal(err)
	}
	port := loopbackPort(t)
	// The default run folder, under a cache folder of the test's: long
	// enough that the script must pick a short TMPDIR of its own.
	cache := filepath.Join(t.TempDir(), "a-cache-folder-with-a-long-name")
	short := fmt.Sprintf("/tmp/webpilot-browserless-%d-%d", os.Getuid(), port)
	t.Cleanup(func() { _ = os.RemoveAll(short) })

	cmd := exec.Command("bash", script, "--port", strconv.Itoa(port), "--concurrent", "2", "--queued", "3")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &scriptLog{}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's foreground group
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- cmd.Wait()
	}()
	runDir := filepath.Join(cache, "webpilot", fmt.Sprintf("browserless-%d", port))
	data := filepath.Join(runDir, "data")
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for _, pid := range farmProcs(t, data) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if t.Failed() {
			t.Logf("browserless.sh stderr:\n%s", stderr)
		}
	})

	// The banner, once the farm answers.
	var banner []string
	timeout := time.After(backendtest.Timeout(150 * time.Second))
read:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("browserless.sh ended before it said the farm runs: %v\nstdout:\n%s", <-done, strings.Join(banner, "\n"))
			}
			banner = append(banner, l)
			if strings.HasPrefix(l, "Ctrl-C stops") {
				break read
			}
		case <-timeout:
			t.Fatalf("browserless.sh printed no command line in time; stdout so far:\n%s", strings.Join(banner, "\n"))
		}
	}
	text := strings.Join(banner, "\n")
	m := regexp.MustCompile(`(?m)^Endpoint: (ws://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32}))$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no Endpoint: ws://127.0.0.1:PORT/?token=<32 hex> line in:\n%s", text)
	}
	url, token := m[1], m[3]
	if m[2] != strconv.Itoa(port) {
		t.Errorf("endpoint %s is not on --port %d", redact.Endpoint(url), port)
	}
	for _, want := range []string{
		"  webpilot mcp --cdp-endpoint '" + url + "' --endpoint-per-session\n",
		`"args": ["mcp", "--cdp-endpoint", "` + url + `", "--endpoint-per-session"]`,
		"  webpilot call --standalone --cdp-endpoint '" + url + `' browser_navigate '{"url":"data:text/html,hi"}'`,
		"Run folder: " + runDir + " (TMPDIR " + short + ")",
		"2 browsers at once, 3 more connections may wait",
	} {
		if !strings.Contains(text+"\n", want) {
			t.Errorf("the banner lacks %q:\n%s", want, text)
		}
	}

	// The farm took the options, and wants its token.
	ctx := backendtest.Context(t, 120*time.Second)
	pressure := func(tok string) (int, farmtest.Load) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/pressure?token=%s", port, tok), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v struct{ Pressure farmtest.Load }
		if resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, v.Pressure
	}
	if code, l := pressure(token); code != http.StatusOK || l.MaxConcurrent != 2 || l.MaxQueued != 3 {
		t.Errorf("/pressure = %d %+v, want 200 with maxConcurrent 2, maxQueued 3", code, l)
	}
	if code, _ := pressure("wrong"); code != http.StatusUnauthorized && code != http.StatusForbidden {
		t.Errorf("/pressure with a wrong token = %d, want 401 or 403", code)
	}

	// webpilot, pointed at the endpoint printed, drives a page in a
	// browser of the farm's (its profile in the run folder).
	f := endpoint.NewFarm(endpoint.Options{URL: url})
	b := f.NewBackend("agent")
	tab, err := b.NewTab(ctx, "data:text/html,<title>farm page</title><p id=p>hi from the farm</p>")
	if err != nil {
		t.Fatalf("NewTab through %s: %v", redact.Endpoint(url), err)
	}
	c, err := b.Attach(ctx, tab.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for deadline := time.Now().Add(backendtest.Timeout(10 * time.Second)); ; {
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := c.Call(ctx, "Runtime.evaluate", map[string]any{
			"expression":    `document.title + "|" + (document.getElementById("p")?.textContent ?? "")`,
			"returnByValue": true,
		}, &res); err != nil {
			t.Fatal(err)
		}
		if got = res.Result.Value; got == "farm page|hi from the farm" || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got != "farm page|hi from the farm" {
		t.Errorf("the page reads %q, want \"farm page|hi from the farm\"", got)
	}
	if len(farmProcs(t, data)) == 0 {
		t.Errorf("no browser has its profile in the run folder's data (%s)", data)
	}
	if code, l := pressure(token); code != http.StatusOK || l.Running != 1 {
		t.Errorf("/pressure while webpilot holds a browser = %d %+v, want 1 running", code, l)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// Ctrl-C: the script and browserless exit, the browsers with them.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 0 {
				t.Errorf("browserless.sh after Ctrl-C: %v, want exit 0", err)
			}
		}
	case <-time.After(backendtest.Timeout(30 * time.Second)):
		t.Fatal("browserless.sh did not exit within 30 s of Ctrl-C")
	}
	for deadline := time.Now().Add(backendtest.Timeout(5 * time.Second)); ; {
		left := farmProcs(t, data)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("browsers left after Ctrl-C: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// browserless.sh refuses, before it fetches or starts anything, a port
// another server listens on and a token a URL would need escaping for.
func TestBrowserlessScriptRefuses(t *testing.T) {
	script, err := farmtest.Script()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--port", busy}, "something already listens on 127.0.0.1:" + busy},
		{[]string{"--token", "a&b"}, "--token may hold only"},
		{[]string{"--concurrent", "0"}, "--concurrent must be a whole number of at least 1"},
		{[]string{"--bogus"}, "unknown option --bogus"},
	} {
		out, err := exec.Command("bash", append([]string{script}, tc.args...)...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), tc.want) {
			t.Errorf("browserless.sh %s: %v, %q; want exit 1 saying %q", strings.Join(tc.args, " "), err, out, tc.want)
		}
	}
}
