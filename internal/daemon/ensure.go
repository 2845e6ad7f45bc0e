package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

// EnsureOptions say which daemon a proxy wants and how to start one.
type EnsureOptions struct {
	// Dir holds the state file and the locks (Dir()).
	Dir string
	// Version and Config are what the proxy's own binary and settings
	// would start; a running daemon that differs is replaced when it has
	// no clients, and used as it is (with a note) while it has some.
	Version, Config string
	// Start starts a daemon detached from the caller; exited is closed (or
	// receives an error) if the process ends before it is ready.
	Start func() (exited <-chan error, err error)
	// Logf tells the user what happened (the proxy's stderr).
	Logf func(format string, args ...any)
	// Timeout bounds waiting for a new daemon; zero means 30 s.
	Timeout time.Duration
}

// Ensure finds the running daemon, or starts one, and returns its state.
// Several callers at once end up with one daemon: the start lock
// serializes the starting, and the daemon's run lock keeps a second one
// from living.
func Ensure(ctx context.Context, o EnsureOptions) (State, error) {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return State{}, fmt.Errorf("create the daemon's state dir: %w", err)
	}
	if err := Trusted(o.Dir); err != nil {
		return State{}, err
	}
	for {
		st, ok := running(ctx, o.Dir)
		if ok {
			if st.Version == o.Version && st.Config == o.Config {
				return st, nil
			}
			retired, err := replace(ctx, o, st)
			if err != nil || !retired {
				return st, nil // in use: keep it (replace said why)
			}
			continue
		}
		lock, err := filelock.Acquire(ctx, filepath.Join(o.Dir, StartLock))
		if err != nil {
			return State{}, fmt.Errorf("wait for another webpilot that is starting the daemon: %w", err)
		}
		st, ok = running(ctx, o.Dir)
		if ok {
			lock.Release()
			continue // started meanwhile; check its version above
		}
		st, err = start(ctx, o)
		lock.Release()
		return st, err
	}
}

// replace asks the daemon of st, which runs another version or other
// settings, to exit if it is idle and waits for it to be gone.
func replace(ctx context.Context, o EnsureOptions, st State) (bool, error) {
	what := "other settings"
	if st.Version != o.Version {
		what = fmt.Sprintf("version %s (this is %s)", st.Version, o.Version)
	}
	r, err := Retire(ctx, st)
	if err != nil {
		o.Logf("the webpilot daemon (pid %d) runs %s and could not be asked to stop: %v; using it", st.PID, what, err)
		return false, err
	}
	if !r.Retiring {
		o.Logf("the webpilot daemon (pid %d) runs %s and serves %d other client(s): using it; it is replaced once they are gone", st.PID, what, r.Sessions)
		return false, nil
	}
	o.Logf("replacing the idle webpilot daemon (pid %d), which runs %s", st.PID, what)
	for filelock.Held(filepath.Join(o.Dir, RunLock)) {
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("wait for the old daemon (pid %d) to exit: %w", st.PID, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return true, nil
}

// running returns the state of a live daemon that answers its health
// check. A state file whose run lock is free is stale; a daemon that holds
// the lock but does not answer (it is stopping) is waited for while ctx
// lasts.
func running(ctx context.Context, dir string) (State, bool) {
	for {
		st, err := ReadState(dir)
		if err != nil || !filelock.Held(filepath.Join(dir, RunLock)) {
			return State{}, false
		}
		h, err := GetHealth(ctx, st)
		if err == nil && !h.Retiring {
			return st, true
		}
		select {
		case <-ctx.Done():
			return State{}, false
		case <-time.After(100 * time.Millisecond):
		}
		if _, err2 := ReadState(dir); err2 != nil {
			return State{}, false
		}
	}
}

// start starts a daemon and waits until it answers.
func start(ctx context.Context, o EnsureOptions) (State, error) {
	exited, err := o.Start()
	if err != nil {
		return State{}, fmt.Errorf("start the webpilot daemon: %w", err)
	}
	for {
		if st, err := ReadState(o.Dir); err == nil && filelock.Held(filepath.Join(o.Dir, RunLock)) {
			if _, err := GetHealth(ctx, st); err == nil {
				return st, nil
			}
		}
		select {
		case err := <-exited:
			msg := startErr(o.Dir)
			if msg == "" && err != nil {
				msg = err.Error()
			}
			return State{}, fmt.Errorf("the webpilot daemon exited while starting: %s (log: %s)", msg, filepath.Join(o.Dir, LogFile))
		case <-ctx.Done():
			return State{}, fmt.Errorf("the webpilot daemon did not answer within the start timeout (log: %s): %w", filepath.Join(o.Dir, LogFile), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startErr is the end of what the last starting daemon printed.
func startErr(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, StartErrFile))
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// ErrNotRunning is returned by Find when no daemon runs.
var ErrNotRunning = errors.New("no webpilot daemon is running")

// Find returns the state of the running daemon in dir, without starting
// one.
func Find(ctx context.Context, dir string) (State, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := Trusted(dir); err != nil {
		return State{}, err
	}
	st, ok := running(ctx, dir)
	if !ok {
		return State{}, ErrNotRunning
	}
	return st, nil
}
