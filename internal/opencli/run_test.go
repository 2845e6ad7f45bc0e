package opencli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fake is the fake OpenCLI of testdata, as a command.
func fake(t *testing.T) Command {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake OpenCLI is a POSIX shell script")
	}
	p, err := filepath.Abs("../../testdata/opencli/bin/opencli")
	if err != nil {
		t.Fatal(err)
	}
	return Command{Path: p, Source: "test"}
}

// A run that passes its timeout is killed with the child it started: both
// are gone, and the result says it was checked.
func TestRunTimeoutKillsTheTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	c := fake(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	res, err := Run(context.Background(), c.Argv("demo", "hang", pidfile), RunOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || !res.Killed || !res.TerminationConfirmed || res.ExitCode != -1 {
		t.Errorf("result %+v: want timed out, killed, termination confirmed, exit -1", res)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the script did not write its pids within the 5 s timeout: %v", err)
	}
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("pids %q", b)
	}
	for _, p := range pids {
		n, _ := strconv.Atoi(p)
		if Running(n) {
			t.Errorf("process %d still runs after the kill", n)
		}
	}
	if pids[0] != strconv.Itoa(res.Pid) {
		t.Errorf("the shell's pid %s is not the run's %d", pids[0], res.Pid)
	}
}

// A child that left the process group (setsid) is killed too: it descends
// from the program.
func TestRunKillsWhatLeftTheGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Fatalf("setsid (util-linux) is needed: %v", err)
	}
	t.Parallel()
	c := fake(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	var pids []string
	res, err := Run(context.Background(), c.Argv("demo", "escape", pidfile), RunOptions{Timeout: 60 * time.Second, Every: 20 * time.Millisecond,
		Watch: func() error {
			b, _ := os.ReadFile(pidfile)
			if pids = strings.Fields(string(b)); len(pids) == 2 {
				return errors.New("both started")
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Killed || !res.TerminationConfirmed || len(pids) != 2 {
		t.Fatalf("result %+v, pids %q", res, pids)
	}
	for _, p := range pids {
		n, _ := strconv.Atoi(p)
		if Running(n) {
			t.Errorf("process %d still runs after the kill", n)
		}
	}
}

// Output past the cap stops the run: what came before is kept, the rest
// is not, and the tree is killed.
func TestRunCapsOutput(t *testing.T) {
	c := fake(t)
	res, err := Run(context.Background(), c.Argv("demo", "huge"), RunOptions{MaxOutput: 1 << 20, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Capped != "stdout" || !res.Killed || len(res.Stdout) != 1<<20 || res.TimedOut {
		t.Errorf("capped %q killed %v, %d bytes kept, timed out %v; want stdout, true, %d, false", res.Capped, res.Killed, len(res.Stdout), res.TimedOut, 1<<20)
	}
	if strings.Trim(string(res.Stdout), "x") != "" {
		t.Error("the kept output is not the program's")
	}
}

// Arguments reach the program exactly as given: quotes, &, $(…), *,
// newlines and CJK are not read by any shell.
func TestRunPassesArgumentsLiterally(t *testing.T) {
	c := fake(t)
	dir := t.TempDir()
	args := []string{`he said "hi" & 'bye'`, "$(touch pwned) `id` *", "line one\nline two", "東京 タワー 🗼", "--limit=5", "", `C:\path\x`}
	res, err := Run(context.Background(), c.Argv(append([]string{"demo", "echo"}, args...)...), RunOptions{Dir: dir, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "args.bin"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if strings.Join(got, "\x00") != strings.Join(args, "\x00") {
		t.Errorf("the program got %q, want %q", got, args)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("an argument was run by a shell")
	}
}

// A failing program's exit status and error output are kept; a Watch
// error stops a run; a program that cannot start is an error.
func TestRunExitWatchAndStart(t *testing.T) {
	c := fake(t)
	res, err := Run(context.Background(), c.Argv("demo", "fail"), RunOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || !bytes.Contains(res.Stderr, []byte("required option")) || res.Killed {
		t.Errorf("exit %d, stderr %q, killed %v", res.ExitCode, res.Stderr, res.Killed)
	}

	dir := t.TempDir()
	stop := errors.New("over budget")
	calls := 0
	res, err = Run(context.Background(), c.Argv("demo", "fill", "1000"), RunOptions{Dir: dir, Timeout: 60 * time.Second, Every: 20 * time.Millisecond,
		Watch: func() error {
			calls++
			if _, err := os.Stat(filepath.Join(dir, "big.bin")); err == nil {
				return stop
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Stopped, stop) || !res.Killed || res.TimedOut || calls == 0 {
		t.Errorf("stopped %v, killed %v, timed out %v after %d checks", res.Stopped, res.Killed, res.TimedOut, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Run(ctx, c.Argv("demo", "hang", filepath.Join(dir, "pids")), RunOptions{Timeout: 60 * time.Second})
	if err != nil || !res.Canceled || res.Killed || res.Pid != 0 {
		t.Errorf("a run canceled before it starts is not started: %+v, %v", res, err)
	}

	if _, err := Run(context.Background(), []string{filepath.Join(dir, "no-such-program")}, RunOptions{}); err == nil {
		t.Error("a missing program started")
	}
}

func TestValidName(t *testing.T) {
	for s, want := range map[string]bool{"bilibili": true, "hacker-news": true, "12306": true, "a.b_c": true,
		"": false, "-f": false, "--help": false, "a b": false, "a;b": false, "a/b": false, "東京": false, strings.Repeat("a", 101): false, "..": false, ".": false, "...": false, ".hidden": true} {
		if ValidName(s) != want {
			t.Errorf("ValidName(%q) = %v", s, !want)
		}
	}
}

// An adapter runs without webpilot's own variables (the declared secrets
// among them), with the PATH its command was found with, and without
// colour.
func TestRunEnv(t *testing.T) {
	t.Setenv("WEBPILOT_SECRET_BANK", "hunter2")
	t.Setenv("WEBPILOT_AUTH_TOKEN", "tok")
	t.Setenv("FORCE_COLOR", "3")
	t.Setenv("OPENCLI_CDP_ENDPOINT", "http://127.0.0.1:9222")
	env := strings.Join(runEnv(Command{Path: "/x/opencli", PathEnv: "/opt/node/bin:/usr/bin"}), "\n")
	for _, bad := range []string{"WEBPILOT_", "hunter2", "FORCE_COLOR=3"} {
		if strings.Contains(env, bad) {
			t.Errorf("the environment holds %s", bad)
		}
	}
	for _, want := range []string{"\nPATH=/opt/node/bin:/usr/bin\n", "OPENCLI_CDP_ENDPOINT=http://127.0.0.1:9222", "NO_COLOR=1"} {
		if !strings.Contains("\n"+env+"\n", want) {
			t.Errorf("the environment lacks %q", want)
		}
	}
}

// The tail shown of an error output hides credentials even when the tail
// would cut a credential's value from the word that marks it.
func TestRedactedTail(t *testing.T) {
	long := "Authorization: Bearer " + strings.Repeat("z", 400) + "\nlast line"
	if got := RedactedTail([]byte(long), 300); strings.Contains(got, "zzzz") || !strings.HasSuffix(got, "last line") {
		t.Errorf("RedactedTail = %q", got)
	}
	huge := []byte(strings.Repeat("x", 70<<10) + "token=abcdef\nend")
	if got := RedactedTail(huge, 300); strings.Contains(got, "xxxx") || strings.Contains(got, "abcdef") {
		t.Errorf("a line longer than the window is not shown: %q", got)
	}
}
