//go:build unix

package launch_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/webpilot-mcp/webpilot/internal/backend"
	"github.com/webpilot-mcp/webpilot/internal/backend/launch"
)

// These tests run a real Chromium, one per test function at most. Without one
// they fail, except under -short where they skip.

// scaled stretches a timeout by $WEBPILOT_TEST_TIMEOUT_SCALE (default 1).
func scaled(d time.Duration) time.Duration {
	if f, err := strconv.ParseFloat(os.Getenv("WEBPILOT_TEST_TIMEOUT_SCALE"), 64); err == nil && f > 0 {
		return time.Duration(float64(d) * f)
	}
	return d
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), scaled(d))
	t.Cleanup(cancel)
	return ctx
}

// chromium returns the browser the tests run, or fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	path, err := launch.Discover("", launch.SystemProbe(nil))
	if err != nil {
		if testing.Short() {
			t.Skipf("-short and no browser: %v", err)
		}
		t.Fatalf("this test needs a real Chromium (install chromium, or set WEBPILOT_BROWSER): %v", err)
	}
	return path
}

// testLogger logs through t at Info and above.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// newBackend returns a headless Backend on the real browser, closed at the
// end of the test.
func newBackend(t *testing.T, opts launch.Options) *launch.Backend {
	t.Helper()
	if opts.BrowserPath == "" {
		opts.BrowserPath = chromium(t)
	}
	opts.Headless = true
	opts.Logger = testLogger(t)
	b := launch.New(opts)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// eventually polls cond until it holds or d (scaled) passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(scaled(d))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", scaled(d), what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proc is one process as /proc shows it.
type proc struct {
	pid, ppid, pgid int
	state           byte
}

// procs lists the processes of this host from /proc; ok is false without
// /proc.
func procs() (list []proc, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		list = append(list, proc{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0]})
	}
	return list, true
}

// family returns the live pids of the browser: its process group and all its
// descendants.
func family(root int) []int {
	list, ok := procs()
	if !ok {
		if syscall.Kill(root, 0) == nil {
			return []int{root}
		}
		return nil
	}
	in := map[int]bool{root: true}
	for changed := true; changed; {
		changed = false
		for _, p := range list {
			if !in[p.pid] && (in[p.ppid] || p.pgid == root) {
				in[p.pid] = true
				changed = true
			}
		}
	}
	var out []int
	for _, p := range list {
		if in[p.pid] && p.state != 'Z' && p.state != 'X' {
			out = append(out, p.pid)
		}
	}
	return out
}

// alive reports whether the pid runs (zombies do not: this VM's init may not
// reap orphans).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return false
		}
		return syscall.Kill(pid, 0) == nil
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// marked returns the live pids whose environment names the profile (see
// launch.EnvProfileDir): every process the browser started, including
// crashpad handlers, which leave its process group.
func marked(profile string) []int {
	list, ok := procs()
	if !ok || profile == "" {
		return nil
	}
	entry := []byte(launch.EnvProfileDir + "=" + profile + "\x00")
	var out []int
	for _, p := range list {
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.pid))
		if err == nil && p.state != 'Z' && (bytes.HasPrefix(env, entry) || bytes.Contains(env, append([]byte{0}, entry...))) {
			out = append(out, p.pid)
		}
	}
	return out
}

// assertGone fails unless the pids, the process group and every process
// marked with the profile are gone.
func assertGone(t *testing.T, pgid int, pids []int, profile string) {
	t.Helper()
	eventually(t, 5*time.Second, "browser processes still alive", func() bool {
		for _, pid := range pids {
			if alive(pid) {
				return false
			}
		}
		return len(family(pgid)) == 0 && len(marked(profile)) == 0
	})
}

func hasTab(tabs []backend.TabInfo, id string) bool {
	return slices.ContainsFunc(tabs, func(t backend.TabInfo) bool { return t.ID == id })
}

// TestBackend walks one browser through its life: lazy start, tabs, an
// attached session, errors for unknown tabs, and a Close that leaves
// no process and no temp profile.
func TestBackend(t *testing.T) {
	path := chromium(t)
	b := newBackend(t, launch.Options{BrowserPath: path, Isolated: true})

	info := b.Info()
	if info.Kind != "launch" || info.Running || info.PID != 0 || info.ProfileDir != "" {
		t.Fatalf("before any call Info = %+v; want kind launch, not running, no profile yet", info)
	}
	time.Sleep(100 * time.Millisecond)
	if b.Info().Running {
		t.Fatal("New started a browser")
	}

	ctx := testCtx(t, 60*time.Second)
	start := time.Now()
	tabs, err := b.Tabs(ctx)
	if err != nil {
		t.Fatalf("Tabs: %v", err)
	}
	t.Logf("first Tabs (lazy start) took %v", time.Since(start))
	if len(tabs) == 0 {
		t.Fatal("a fresh browser has no tab")
	}
	info = b.Info()
	if !info.Running || info.PID <= 0 || !strings.Contains(info.Version, "Chrome/") ||
		info.BrowserPath != path || !info.Headless || info.ProfileDir == "" {
		t.Fatalf("running Info = %+v", info)
	}
	if st, err := os.Stat(info.ProfileDir); err != nil || !st.IsDir() {
		t.Fatalf("profile dir %s: %v", info.ProfileDir, err)
	}
	if err := b.Start(ctx); err != nil || b.Info().PID != info.PID {
		t.Fatalf("Start on a running browser: %v, pid %d -> %d", err, info.PID, b.Info().PID)
	}

	const page = "data:text/html,<title>webpilot</title><p>hi"
	tab, err := b.NewTab(ctx, page)
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	if tab.ID == "" || tab.URL != page {
		t.Fatalf("NewTab = %+v", tab)
	}
	eventually(t, 20*time.Second, "Tabs never shows the new tab with its title", func() bool {
		tabs, err := b.Tabs(ctx)
		return err == nil && slices.Contains(tabs, backend.TabInfo{ID: tab.ID, URL: page, Title: "webpilot"})
	})

	sess, err := b.Attach(ctx, tab.ID)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	res, err := cdproto.Call(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1", ReturnByValue: new(true)})
	if err != nil {
		t.Fatalf("Runtime.evaluate: %v", err)
	}
	if res.Result == nil || string(res.Result.Value) != "2" {
		t.Fatalf("1+1 = %+v", res.Result)
	}
	if err := b.Activate(ctx, tab.ID); err != nil {
		t.Fatalf("Activate: %v", err)
	}

	if err := b.CloseTab(ctx, tab.ID); err != nil {
		t.Fatalf("CloseTab: %v", err)
	}
	select {
	case <-sess.Done():
	case <-ctx.Done():
		t.Fatal("session did not end when its tab closed")
	}
	tabs, err = b.Tabs(ctx)
	if err != nil || hasTab(tabs, tab.ID) {
		t.Fatalf("after CloseTab, Tabs = %+v, %v", tabs, err)
	}

	for name, call := range map[string]func() error{
		"CloseTab": func() error { return b.CloseTab(ctx, tab.ID) },
		"Activate": func() error { return b.Activate(ctx, "NOPE") },
		"Attach":   func() error { _, err := b.Attach(ctx, "NOPE"); return err },
	} {
		if err := call(); !errors.Is(err, backend.ErrTabNotFound) {
			t.Errorf("%s of an unknown tab: %v, want ErrTabNotFound", name, err)
		}
	}

	// The zygote and its children get a cleaned environment, so not every
	// process is marked; the crashpad handlers are, and are outside the tree.
	pids := family(info.PID)
	var outside []int
	for _, pid := range marked(info.ProfileDir) {
		if !slices.Contains(pids, pid) {
			outside = append(outside, pid)
		}
	}
	t.Logf("browser runs as %d processes in its tree and %d outside it (crashpad)", len(pids), len(outside))
	start = time.Now()
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %v", time.Since(start))
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	assertGone(t, info.PID, append(pids, outside...), info.ProfileDir)
	if _, err := os.Stat(info.ProfileDir); !os.IsNotExist(err) {
		t.Errorf("isolated profile %s still exists after Close (%v)", info.ProfileDir, err)
	}
	if _, err := b.Tabs(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Tabs after Close: %v, want ErrClosed", err)
	}
	if err := b.Start(ctx); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	if b.Info().Running {
		t.Error("Info says running after Close")
	}
}

// TestRelaunchAfterKill kills the browser behind the Backend's back; the
// next call starts a new one.
func TestRelaunchAfterKill(t *testing.T) {
	b := newBackend(t, launch.Options{Isolated: true})
	ctx := testCtx(t, 90*time.Second)
	if err := b.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	first := b.Info()
	tabs, err := b.Tabs(ctx)
	if err != nil || len(tabs) == 0 {
		t.Fatalf("Tabs: %+v, %v", tabs, err)
	}
	sess, err := b.Attach(ctx, tabs[0].ID)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	pids := append(family(first.PID), marked(first.ProfileDir)...)

	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "Info still says running after the browser was killed", func() bool { return !b.Info().Running })
	select {
	case <-sess.Done():
	case <-ctx.Done():
		t.Fatal("the session of a tab of the killed browser did not end")
	}
	// Closing a tab of the dead browser is cleanup: the tab is gone, and no
	// browser starts for it.
	if err := b.CloseTab(ctx, tabs[0].ID); !errors.Is(err, backend.ErrTabNotFound) {
		t.Errorf("CloseTab of a tab of the killed browser: %v, want ErrTabNotFound", err)
	}
	if info := b.Info(); info.Running {
		t.Errorf("CloseTab started a browser: %+v", info)
	}

	tabs, err = b.Tabs(ctx)
	if err != nil || len(tabs) == 0 {
		t.Fatalf("Tabs after the kill: %+v, %v", tabs, err)
	}
	second := b.Info()
	if !second.Running || second.PID == first.PID || second.PID <= 0 {
		t.Fatalf("after relaunch Info = %+v (first pid %d)", second, first.PID)
	}
	if second.ProfileDir != first.ProfileDir {
		t.Errorf("relaunch changed the profile: %s -> %s", first.ProfileDir, second.ProfileDir)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d of the killed browser still runs", pid)
		}
	}
	if _, err := b.NewTab(ctx, ""); err != nil {
		t.Fatalf("NewTab on the new browser: %v", err)
	}
}

// TestPersistentProfile starts on a profile with a stale lock (dead pid),
// refuses a second Backend on the same profile while the first runs, and
// keeps the profile after Close.
func TestPersistentProfile(t *testing.T) {
	path := chromium(t)
	dir := filepath.Join(t.TempDir(), "profile")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "SingletonLock")
	if err := os.Symlink(fmt.Sprintf("%s-%d", host, dead.Process.Pid), lock); err != nil {
		t.Fatal(err)
	}

	b := newBackend(t, launch.Options{BrowserPath: path, UserDataDir: dir})
	ctx := testCtx(t, 60*time.Second)
	if err := b.Start(ctx); err != nil {
		t.Fatalf("Start with a stale lock: %v", err)
	}
	info := b.Info()
	if info.ProfileDir != dir {
		t.Fatalf("ProfileDir = %s, want %s", info.ProfileDir, dir)
	}
	if target, err := os.Readlink(lock); err != nil || target != fmt.Sprintf("%s-%d", host, info.PID) {
		t.Fatalf("SingletonLock = %q, %v; want it to name pid %d", target, err, info.PID)
	}

	other := launch.New(launch.Options{BrowserPath: path, UserDataDir: dir, Headless: true})
	defer other.Close()
	err = other.Start(ctx)
	if !errors.Is(err, backend.ErrProfileLocked) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "--isolated") {
		t.Fatalf("second Backend on the same profile: %v; want ErrProfileLocked naming %s and --isolated", err, dir)
	}
	if other.Info().Running {
		t.Fatal("second Backend runs a browser")
	}

	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertGone(t, info.PID, nil, dir)
	if _, err := os.Stat(filepath.Join(dir, "Default")); err != nil {
		t.Errorf("persistent profile lost its contents after Close: %v", err)
	}
	if _, err := os.Lstat(lock); !os.IsNotExist(err) {
		t.Errorf("SingletonLock left after Close: %v", err)
	}
}

// TestLiveLockRefused: a SingletonLock naming a live process refuses the
// start before any browser runs.
func TestLiveLockRefused(t *testing.T) {
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fmt.Sprintf("%s-%d", host, os.Getpid()), filepath.Join(dir, "SingletonLock")); err != nil {
		t.Fatal(err)
	}
	// The test binary stands in for the browser: it must never run.
	b := launch.New(launch.Options{BrowserPath: os.Args[0], UserDataDir: dir, Headless: true})
	defer b.Close()
	err = b.Start(testCtx(t, 10*time.Second))
	if !errors.Is(err, backend.ErrProfileLocked) {
		t.Fatalf("Start: %v, want ErrProfileLocked", err)
	}
	for _, s := range []string{dir, "--isolated", strconv.Itoa(os.Getpid())} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "SingletonLock")); err != nil {
		t.Errorf("live lock removed: %v", err)
	}
}

// fakeBrowser writes an executable shell script standing in for the browser.
func fakeBrowser(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-chrome")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStartFailureExplains: a browser that dies at start yields a
// StartError with its exit status and output; a cause the browser names
// comes with its own way out.
func TestStartFailureExplains(t *testing.T) {
	for _, tc := range []struct {
		name, body         string
		reason, hint, outs string
	}{
		{"unknown", `echo "fake: something broke" >&2; exit 3`, "exit status 3", "", "something broke"},
		{"display", `echo "[1:1:ERROR:ozone_platform_x11.cc(257)] Missing X server or \$DISPLAY" >&2; exit 1`,
			"there is no display (the browser said: Missing X server or $DISPLAY)", "xvfb-run", "ozone_platform_x11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fakeBrowser(t, tc.body)
			b := launch.New(launch.Options{BrowserPath: path, Isolated: true})
			defer b.Close()
			err := b.Start(testCtx(t, 20*time.Second))
			var se *backend.StartError
			if !errors.Is(err, backend.ErrNoBrowser) || !errors.As(err, &se) {
				t.Fatalf("Start: %v, want a StartError (ErrNoBrowser)", err)
			}
			if se.Path != path || !strings.Contains(se.Reason, tc.reason) || !strings.Contains(se.Hint, tc.hint) || !strings.Contains(se.Output, tc.outs) {
				t.Errorf("StartError %+v, want path %s, reason with %q, hint with %q, output with %q", se, path, tc.reason, tc.hint, tc.outs)
			}
			if tc.hint == "" && se.Hint != "" {
				t.Errorf("hint %q for an unknown cause", se.Hint)
			}
			if b.Info().Running {
				t.Error("Info says running")
			}
		})
	}
}

// TestHeadedWithoutDisplay: the real browser asked for a window where there
// is no display fails with its own reason and the way out, not "install a
// browser".
func TestHeadedWithoutDisplay(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("a display is an X11/Wayland matter")
	}
	path := chromium(t)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	b := launch.New(launch.Options{BrowserPath: path, Isolated: true, Headless: false, Logger: testLogger(t)})
	defer b.Close()
	err := b.Start(testCtx(t, 60*time.Second))
	var se *backend.StartError
	if !errors.As(err, &se) {
		t.Fatalf("Start: %v, want a StartError", err)
	}
	if !strings.Contains(se.Reason, "no display") || !strings.Contains(se.Hint, "headless") {
		t.Errorf("StartError %+v, want the missing display and headless as the way out", se)
	}
}

// TestLongTempDir: a TMPDIR too long for the browser's socket (a test's or
// a user's custom one) does not stop the browser: it gets a short one.
func TestLongTempDir(t *testing.T) {
	path := chromium(t)
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	b := newBackend(t, launch.Options{BrowserPath: path, Isolated: true, Headless: true})
	if err := b.Start(testCtx(t, 60*time.Second)); err != nil {
		t.Fatalf("Start with TMPDIR=%s: %v", long, err)
	}
	if !b.Info().Running {
		t.Error("Info does not say running")
	}
}

// TestCloseTabStartsNothing: CloseTab is cleanup; before any start it says
// the tab is gone instead of starting a browser to close it in.
func TestCloseTabStartsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	path := fakeBrowser(t, `touch `+marker+`; exit 3`)
	b := launch.New(launch.Options{BrowserPath: path, Isolated: true})
	defer b.Close()
	err := b.CloseTab(testCtx(t, 20*time.Second), "SOME-TAB")
	if !errors.Is(err, backend.ErrTabNotFound) {
		t.Errorf("CloseTab with no browser running: %v, want ErrTabNotFound", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("CloseTab started the browser")
	}
	if b.Info().Running {
		t.Error("Info says running")
	}
}

// TestStartTimeoutKillsGroup: a browser that never answers is killed with
// all its children when the start context ends.
func TestStartTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	path := fakeBrowser(t, `echo $$ > `+pidFile+`; echo "fake: hanging" >&2; sleep 300 & wait`)
	b := launch.New(launch.Options{BrowserPath: path, Isolated: true})
	defer b.Close()
	start := time.Now()
	err := b.Start(testCtx(t, 2*time.Second))
	var se *backend.StartError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || !strings.Contains(se.Output, "fake: hanging") {
		t.Fatalf("Start: %v; want a deadline error with the stderr", err)
	}
	if d := time.Since(start); d > scaled(10*time.Second) {
		t.Errorf("Start took %v after its deadline", d)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	assertGone(t, pgid, []int{pgid}, "")
}

// TestNoOrphanWhenParentKilled kills a process that runs a Backend (this test
// binary in helper mode) with SIGKILL; its browser must die with it.
func TestNoOrphanWhenParentKilled(t *testing.T) {
	if _, ok := procs(); !ok {
		t.Skip("needs /proc and PR_SET_PDEATHSIG (Linux)")
	}
	path := chromium(t)
	profile := filepath.Join(t.TempDir(), "profile")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "WEBPILOT_LAUNCH_HELPER=1", "WEBPILOT_BROWSER="+path,
		"WEBPILOT_LAUNCH_HELPER_PROFILE="+profile)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	pidc := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "BROWSER_PID="); ok {
				pid, _ := strconv.Atoi(s)
				pidc <- pid
			}
		}
		close(pidc)
	}()
	var pid int
	select {
	case pid = <-pidc:
	case <-time.After(scaled(60 * time.Second)):
		t.Fatal("helper did not start a browser")
	}
	if pid <= 0 {
		t.Fatal("helper exited without a browser pid")
	}
	pids := append(family(pid), marked(profile)...)
	if len(pids) == 0 {
		t.Fatalf("browser %d not running", pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	assertGone(t, pid, pids, profile)
	// Nobody was left to remove the browser's socket dir in $TMPDIR.
	if sock, err := os.Readlink(filepath.Join(profile, "SingletonSocket")); err == nil {
		_ = os.RemoveAll(filepath.Dir(sock))
	}
}

// helperMain is the child of TestNoOrphanWhenParentKilled: it starts a
// browser, prints its pid and waits to be killed.
func helperMain() int {
	b := launch.New(launch.Options{UserDataDir: os.Getenv("WEBPILOT_LAUNCH_HELPER_PROFILE"), Headless: true})
	ctx, cancel := context.WithTimeout(context.Background(), scaled(60*time.Second))
	defer cancel()
	if err := b.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "helper Start:", err)
		return 1
	}
	fmt.Printf("BROWSER_PID=%d\n", b.Info().PID)
	time.Sleep(scaled(2 * time.Minute))
	return 0
}

func TestMain(m *testing.M) {
	if os.Getenv("WEBPILOT_LAUNCH_HELPER") == "1" {
		os.Exit(helperMain())
	}
	os.Exit(m.Run())
}

// TestFirstBlankTabIsTheInitialOne: headless, the first blank tab asked for
// is the tab the browser opened at start (no second window, no second
// renderer); the next one is new.
func TestFirstBlankTabIsTheInitialOne(t *testing.T) {
	b := newBackend(t, launch.Options{BrowserPath: chromium(t), Isolated: true})
	ctx := testCtx(t, 60*time.Second)
	before, err := b.Tabs(ctx)
	if err != nil {
		t.Fatalf("Tabs: %v", err)
	}
	if len(before) != 1 {
		t.Fatalf("a fresh browser shows %d tabs, want 1: %v", len(before), before)
	}
	first, err := b.NewTab(ctx, "")
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	if first.ID != before[0].ID {
		t.Errorf("first blank tab = %s, want the initial tab %s", first.ID, before[0].ID)
	}
	second, err := b.NewTab(ctx, "about:blank")
	if err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	if second.ID == first.ID {
		t.Error("the initial tab was handed out twice")
	}
	// Closing every tab leaves a headless browser running.
	for _, id := range []string{first.ID, second.ID} {
		if err := b.CloseTab(ctx, id); err != nil {
			t.Fatalf("CloseTab: %v", err)
		}
	}
	third, err := b.NewTab(ctx, "")
	if err != nil || third.ID == first.ID || third.ID == second.ID {
		t.Fatalf("NewTab after closing every tab = %+v, %v", third, err)
	}
}

// TestNoTopChromeRenderer: the omnibox's WebUI popups, which Chromium
// preloads into a renderer of their own, are turned off
// (--disable-features): no process of the browser is a top-chrome WebUI
// renderer.
func TestNoTopChromeRenderer(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("reads /proc")
	}
	b := newBackend(t, launch.Options{BrowserPath: chromium(t), Isolated: true})
	ctx := testCtx(t, 60*time.Second)
	if _, err := b.NewTab(ctx, ""); err != nil {
		t.Fatalf("NewTab: %v", err)
	}
	profile := b.Info().ProfileDir
	time.Sleep(time.Second) // the preload runs right after start
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), profile) {
			continue
		}
		if strings.Contains(string(cmd), "--top-chrome-webui") {
			t.Errorf("process %s is a top-chrome WebUI renderer: %.200s", e.Name(), strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
}

// Two webpilots that start a browser on one profile at the same moment:
// one gets the profile, the other is told it is in use, and the loser's
// cleanup never touches the winner's browser, which keeps working.
func TestTwoStartsOnOneProfile(t *testing.T) {
	path := chromium(t)
	for run := range 3 {
		dir := filepath.Join(t.TempDir(), "profile")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		ctx := testCtx(t, 60*time.Second)
		bs := []*launch.Backend{newBackend(t, launch.Options{BrowserPath: path, UserDataDir: dir}), newBackend(t, launch.Options{BrowserPath: path, UserDataDir: dir})}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, b := range bs {
			wg.Go(func() { errs[i] = b.Start(ctx) })
		}
		wg.Wait()
		var winner *launch.Backend
		for i, err := range errs {
			switch {
			case err == nil && winner == nil:
				winner = bs[i]
			case err == nil:
				t.Fatalf("run %d: both started a browser on one profile: %+v and %+v", run, bs[0].Info(), bs[1].Info())
			case !errors.Is(err, backend.ErrProfileLocked):
				t.Fatalf("run %d: the loser's error: %v; want ErrProfileLocked", run, err)
			}
		}
		if winner == nil {
			t.Fatalf("run %d: neither started: %v", run, errs)
		}
		// The winner's browser survived the loser's cleanup.
		if _, err := winner.NewTab(ctx, "about:blank"); err != nil {
			t.Fatalf("run %d: the winner's browser after the loser gave up: %v", run, err)
		}
		if !winner.Info().Running {
			t.Fatalf("run %d: the winner's browser is down", run)
		}
		for _, b := range bs {
			_ = b.Close()
		}
	}
}
