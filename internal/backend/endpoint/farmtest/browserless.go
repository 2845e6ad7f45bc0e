// Package farmtest runs the real browserless (the npm package
// @browserless.io/browserless, which scripts/ensure-browserless.sh fetches)
// on a loopback port for the tests of --endpoint-per-session: a browser
// farm that hands out a fresh, isolated browser per WebSocket connection,
// queues connections while it is full and turns them away (429) when its
// queue is full too. It keeps only the Chromium routes, as browserless's
// Chromium image does, and drives the machine's Chromium. The farm is set
// up and started by scripts/browserless.sh, the script people run it with,
// so the README's way and the tests' way are one.
package farmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/backend/backendtest"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// Environment of the tests that run the real browserless.
const (
	// EnvBrowserlessDir names the folder scripts/ensure-browserless.sh
	// prints: it holds `browserless` and the `node` it runs on.
	EnvBrowserlessDir = "WEBPILOT_TEST_BROWSERLESS_DIR"
	// EnvRequireBrowserless=1 (make test) fails, rather than skips, a test
	// that needs browserless when EnvBrowserlessDir is not set.
	EnvRequireBrowserless = "WEBPILOT_REQUIRE_BROWSERLESS"
)

// BrowserlessOptions configure a Browserless.
type BrowserlessOptions struct {
	// Concurrent is how many browsers run at once (CONCURRENT; 0 means 1).
	Concurrent int
	// Queued is how many connections may wait for one (QUEUED; 0 means 10).
	Queued int
	// Token is the farm's token (TOKEN; "" means a random one).
	Token string
}

// Browserless is the real browserless farm (the npm package, Chromium
// routes only, as its Chromium image has) on a loopback port, driving the
// machine's Chromium, run by scripts/browserless.sh --exec in a run folder
// of the test's. It is stopped at the test's cleanup, its browsers with it.
type Browserless struct {
	t      testing.TB
	dir    string // the folder ensure-browserless.sh printed (…/node_modules/.bin)
	script string // scripts/browserless.sh, which sets the farm up and runs it
	chrome string // the machine's Chromium, which the farm drives
	state  string // this farm's run folder: routes, browser link, data
	tmp    string // its TMPDIR, short enough for its browsers' sockets
	port   int
	opts   BrowserlessOptions
	log    *syncLog

	mu   sync.Mutex // guards cmd and done
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd exited
}

// StartBrowserless starts a farm for t, or skips t (fails it under
// WEBPILOT_REQUIRE_BROWSERLESS=1) when WEBPILOT_TEST_BROWSERLESS_DIR is not
// set.
func StartBrowserless(t testing.TB, o BrowserlessOptions) *Browserless {
	t.Helper()
	bin := os.Getenv(EnvBrowserlessDir)
	if bin == "" {
		if os.Getenv(EnvRequireBrowserless) == "1" {
			t.Fatalf("%s=1 but %s is not set: run the tests with make test, or set it to $(bash scripts/ensure-browserless.sh)", EnvRequireBrowserless, EnvBrowserlessDir)
		}
		t.Skipf("needs the real browserless: set %s=$(bash scripts/ensure-browserless.sh) (make test does)", EnvBrowserlessDir)
	}
	if o.Concurrent <= 0 {
		o.Concurrent = 1
	}
	if o.Queued <= 0 {
		o.Queued = 10
	}
	if o.Token == "" {
		o.Token = fmt.Sprintf("tok%x", time.Now().UnixNano())
	}
	chrome, err := launch.Discover(os.Getenv("WEBPILOT_BROWSER"), launch.SystemProbe(os.Getenv))
	if err != nil {
		t.Fatalf("browserless needs a Chromium: %v", err)
	}
	script, err := Script()
	if err != nil {
		t.Fatal(err)
	}
	// The run folder, which scripts/browserless.sh fills (routes, the
	// browser link, its working folder) and the farm keeps its browsers'
	// profiles in (data).
	state := t.TempDir()
	// Its browsers make their socket in TMPDIR, which must stay short
	// (the test's own temp dir under a custom TMPDIR may not be).
	tmp := filepath.Join(state, "tmp")
	if len(tmp) > 50 {
		var err error
		if tmp, err = os.MkdirTemp("/tmp", "wpbl"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	} else if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &Browserless{t: t, dir: bin, script: script, chrome: chrome, state: state, tmp: tmp, port: freePort(t), opts: o, log: &syncLog{}}
	t.Cleanup(func() {
		b.Stop(syscall.SIGKILL)
		if t.Failed() {
			t.Logf("browserless log (last 4 KB):\n%s", b.log.tail(4096))
		}
	})
	b.start()
	return b
}

// Script is scripts/browserless.sh, found from the working directory up:
// the one recipe that runs browserless from npm, for the tests as for a
// person.
func Script() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "browserless.sh")
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("browserless: the module at %s has no scripts/browserless.sh: %w", dir, err)
			}
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("browserless: no go.mod above the working directory, so no scripts/browserless.sh")
		}
		dir = up
	}
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs browserless and waits until it answers /pressure.
func (b *Browserless) start() {
	b.t.Helper()
	// The script sets the farm up in b.state and execs browserless, so
	// cmd's process is browserless itself (its process group, its death
	// with the test's process).
	cmd := exec.Command("bash", b.script, "--exec",
		"--browserless-dir", b.dir, "--chrome", b.chrome, "--dir", b.state, "--tmpdir", b.tmp,
		"--port", strconv.Itoa(b.port), "--token", b.opts.Token,
		"--concurrent", strconv.Itoa(b.opts.Concurrent), "--queued", strconv.Itoa(b.opts.Queued),
		"--timeout", "3600000") // an hour for a session: the tests end theirs
	cmd.Env = append(os.Environ(), "DEBUG=browserless*,-**:verbose,-**:trace")
	cmd.Stdout, cmd.Stderr = b.log, b.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second // its browsers may hold the output pipe
	if err := cmd.Start(); err != nil {
		b.t.Fatalf("starting browserless: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	b.mu.Lock()
	b.cmd, b.done = cmd, done
	b.mu.Unlock()
	deadline := time.Now().Add(backendtest.Timeout(60 * time.Second))
	for {
		if _, err := b.Pressure(context.Background()); err == nil {
			return
		}
		select {
		case <-done:
			b.t.Fatalf("browserless exited at start:\n%s", b.log.tail(4096))
		default:
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("browserless did not answer /pressure in time:\n%s", b.log.tail(4096))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop ends browserless with sig (SIGTERM: its own shutdown; SIGKILL: a
// crash), then kills whatever of its process group is left (its browsers),
// and waits for it to exit.
func (b *Browserless) Stop(sig syscall.Signal) {
	b.mu.Lock()
	cmd, done := b.cmd, b.done
	b.cmd = nil
	b.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
	select {
	case <-done:
	case <-time.After(backendtest.Timeout(10 * time.Second)):
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	// Its browsers run in process groups of their own: they go with it,
	// as they would with its container. One it was starting may still be
	// between fork and exec (its command line not yet a browser's): look
	// again until two looks a while apart find none.
	for clear := 0; clear < 2; {
		pids := b.browserPIDs(false)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(pids) == 0 {
			clear++
		} else {
			clear = 0
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Restart stops browserless (sig) and starts it again on the same port:
// every connection and browser is lost.
func (b *Browserless) Restart(sig syscall.Signal) {
	b.t.Helper()
	b.Stop(sig)
	b.start()
}

// Token is the farm's token.
func (b *Browserless) Token() string { return b.opts.Token }

// URL is the farm's WebSocket address with its token, ws://127.0.0.1:PORT/?token=….
func (b *Browserless) URL() string {
	return fmt.Sprintf("ws://127.0.0.1:%d/?token=%s", b.port, b.opts.Token)
}

// HTTPURL is the farm's HTTP address with its token (discovery through
// /json/version).
func (b *Browserless) HTTPURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/?token=%s", b.port, b.opts.Token)
}

// Addr is the farm's host:port.
func (b *Browserless) Addr() string { return fmt.Sprintf("127.0.0.1:%d", b.port) }

// Load is browserless's /pressure: browsers running, connections queued.
type Load struct {
	Running       int `json:"running"`
	Queued        int `json:"queued"`
	MaxConcurrent int `json:"maxConcurrent"`
	MaxQueued     int `json:"maxQueued"`
}

// Pressure reads the farm's /pressure.
func (b *Browserless) Pressure(ctx context.Context) (Load, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/pressure?token=%s", b.port, b.opts.Token), nil)
	if err != nil {
		return Load{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Load{}, err
	}
	defer resp.Body.Close()
	var v struct{ Pressure Load }
	if resp.StatusCode != http.StatusOK {
		return Load{}, fmt.Errorf("/pressure: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return Load{}, err
	}
	return v.Pressure, nil
}

// WaitLoad polls /pressure until ok accepts it, or ctx ends.
func (b *Browserless) WaitLoad(ctx context.Context, what string, ok func(Load) bool) (Load, error) {
	for {
		l, err := b.Pressure(ctx)
		if err == nil && ok(l) {
			return l, nil
		}
		select {
		case <-ctx.Done():
			return l, fmt.Errorf("waiting for the farm to have %s: last /pressure %+v (%v): %w", what, l, err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Browsers counts the farm's browser processes now running (Chromium
// processes with a profile in its data folder, renderers and helpers not
// counted).
func (b *Browserless) Browsers() int { return len(b.browserPIDs(true)) }

// WaitBrowsers waits until the farm runs exactly n browser processes and
// returns the count last seen. Browserless reports a browser gone from
// /pressure before its process has exited, and one started before the
// process is listed, so a count is waited for, never read once.
func (b *Browserless) WaitBrowsers(ctx context.Context, n int) (int, error) {
	for {
		got := b.Browsers()
		if got == n {
			return got, nil
		}
		select {
		case <-ctx.Done():
			return got, fmt.Errorf("waiting for %d farm browsers: %d running: %w", n, got, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// browserPIDs are the Chromium processes with a profile in the farm's data
// folder: the browsers only, or (all) their helpers too.
func (b *Browserless) browserPIDs(mainOnly bool) []int {
	pids, err := ProfileProcs(filepath.Join(b.state, "data"), mainOnly)
	if err != nil {
		b.t.Fatalf("listing the farm's browsers: %v", err)
	}
	return pids
}

// ProfileProcs are the processes whose command line has a --user-data-dir
// in the folder data: browsers only (mainOnly: not their --type= helpers),
// or all of them.
func ProfileProcs(data string, mainOnly bool) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		mine, helper := false, false
		for _, a := range strings.Split(string(raw), "\x00") {
			if dir, ok := strings.CutPrefix(a, "--user-data-dir="); ok && strings.HasPrefix(dir, data+string(filepath.Separator)) {
				mine = true
			}
			if strings.HasPrefix(a, "--type=") {
				helper = true
			}
		}
		if mine && (!helper || !mainOnly) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Log is what browserless printed so far.
func (b *Browserless) Log() string { return b.log.tail(1 << 20) }

// syncLog keeps the last 1 MiB of a process's output.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.buf.Len() > 2<<20 {
		keep := l.buf.Bytes()[l.buf.Len()-(1<<20):]
		l.buf = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	return len(p), nil
}

func (l *syncLog) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf.Bytes()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
