package opencli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Run limits.
const (
	// DefaultMaxOutput caps each of stdout and stderr.
	DefaultMaxOutput = 32 << 20
	// confirmWait is how long a killed tree is watched for its end.
	confirmWait = 3 * time.Second
	// pipeWait is how long output is read after the program exits (a
	// process it left running may hold the pipes).
	pipeWait = 2 * time.Second
)

// RunOptions bound one run.
type RunOptions struct {
	// Dir is the working directory ("": the current one).
	Dir string
	// Env is the environment (nil: this process's).
	Env []string
	// Timeout ends the run, killing its process tree (0: none).
	Timeout time.Duration
	// MaxOutput caps stdout and stderr each (0: DefaultMaxOutput); the
	// first byte past it kills the tree.
	MaxOutput int
	// Every is how often Watch and Progress are called (0: 500 ms).
	Every time.Duration
	// Watch, when set, is called every Every while the program runs: an
	// error kills the tree and is kept in Result.Stopped (the output
	// folder's budget).
	Watch func() error
	// Progress, when set, is told the time run so far and the bytes of
	// output read, every Every.
	Progress func(elapsed time.Duration, output int)
}

// Result is how a run went.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is the program's exit status; -1 when it did not exit by
	// itself (killed).
	ExitCode int
	Duration time.Duration
	// TimedOut: the timeout ran out. Capped names the stream ("stdout",
	// "stderr") that passed MaxOutput. Stopped is Watch's error.
	// Canceled: the caller's context ended.
	TimedOut bool
	Capped   string
	Stopped  error
	Canceled bool
	// Killed: the process tree was killed; TerminationConfirmed: every
	// process of it was seen gone afterwards.
	Killed               bool
	TerminationConfirmed bool
	// Pid is the program's process id.
	Pid int
}

// capWriter keeps up to max bytes and reports the first byte past them
// (the rest is dropped, so the program is not blocked on a full pipe
// before it is killed).
type capWriter struct {
	name string
	max  int
	over chan<- string

	mu   sync.Mutex
	buf  []byte
	full bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - len(w.buf); room >= len(p) {
		w.buf = append(w.buf, p...)
		return len(p), nil
	} else if room > 0 {
		w.buf = append(w.buf, p[:room]...)
	}
	if !w.full {
		w.full = true
		select {
		case w.over <- w.name:
		default:
		}
	}
	return len(p), nil
}

func (w *capWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf
}

func (w *capWriter) isFull() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full
}

func (w *capWriter) size() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.buf)
}

// Run runs argv (never through a shell) in its own process group (a job
// of its own on Windows) and waits for it within o's bounds; when one is
// passed, the whole tree is killed and its end checked. The error is only
// for a program that could not be started.
func Run(ctx context.Context, argv []string, o RunOptions) (*Result, error) {
	if len(argv) == 0 {
		return nil, errors.New("opencli: nothing to run")
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.Every <= 0 {
		o.Every = 500 * time.Millisecond
	}
	over := make(chan string, 2)
	stdout := &capWriter{name: "stdout", max: o.MaxOutput, over: over}
	stderr := &capWriter{name: "stderr", max: o.MaxOutput, over: over}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = pipeWait
	ownGroup(cmd)
	if ctx.Err() != nil {
		return &Result{Canceled: true, ExitCode: -1}, nil
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res := &Result{Pid: cmd.Process.Pid, ExitCode: -1}
	tree, err := newTree(cmd)
	if err != nil {
		// (on Windows the program waits suspended until it is in its job)
		_ = cmd.Process.Kill()
		<-waitDone(cmd)
		return nil, err
	}
	defer tree.close()
	done := waitDone(cmd)
	var deadline <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
	kill := false
	for !kill {
		select {
		case <-done:
			res.finish(cmd, stdout, stderr, start)
			return res, nil
		case <-deadline:
			res.TimedOut, kill = true, true
		case name := <-over:
			res.Capped, kill = name, true
		case <-ctx.Done():
			res.Canceled, kill = true, true
		case <-tick.C:
			if o.Watch != nil {
				if err := o.Watch(); err != nil {
					res.Stopped, kill = err, true
				}
			}
			if o.Progress != nil && !kill {
				o.Progress(time.Since(start), stdout.size()+stderr.size())
			}
		}
	}
	select {
	case <-done:
		// It ended as the bound was passed: it finished, though what
		// passed a cap or the budget still did.
		res.TimedOut, res.Canceled = false, false
		res.finish(cmd, stdout, stderr, start)
		return res, nil
	default:
	}
	res.Killed = true
	tree.kill()
	<-done
	res.TerminationConfirmed = tree.gone(confirmWait)
	res.finish(cmd, stdout, stderr, start)
	return res, nil
}

// waitDone waits for the started cmd; the channel is closed when it has.
func waitDone(cmd *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return done
}

// finish records the output and the exit status.
func (r *Result) finish(cmd *exec.Cmd, stdout, stderr *capWriter, start time.Time) {
	r.Duration = time.Since(start)
	r.Stdout, r.Stderr = stdout.bytes(), stderr.bytes()
	if cmd.ProcessState != nil {
		r.ExitCode = cmd.ProcessState.ExitCode()
	}
	if r.Capped == "" && stdout.isFull() {
		r.Capped = "stdout"
	} else if r.Capped == "" && stderr.isFull() {
		r.Capped = "stderr"
	}
}
