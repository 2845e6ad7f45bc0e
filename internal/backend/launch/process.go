package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/webpilot-mcp/webpilot/internal/cdp"
	"github.com/webpilot-mcp/webpilot/internal/filelock"
)

const (
	// stderrKeep is how much of the end of the browser's output is kept to
	// explain a failed start or a crash.
	stderrKeep = 8 << 10
	// browserCloseTimeout bounds the graceful Browser.close.
	browserCloseTimeout = 2 * time.Second
	// exitTimeout bounds the wait for the browser to exit after
	// Browser.close, before its process group is killed.
	exitTimeout = 3 * time.Second
	// reapTimeout bounds the wait for a SIGKILLed browser to be reaped.
	reapTimeout = 5 * time.Second
)

// EnvProfileDir is set in the browser's environment to its profile dir. The
// helpers the browser starts directly inherit it, among them the crashpad
// handlers, which leave the process group; stop finds them by it. (Zygote
// children get a cleaned environment but stay in the process group.)
const EnvProfileDir = "WEBPILOT_PROFILE_DIR"

// EnvBrowserID is set in the browser's environment to a value of this
// start's own: stop kills the helpers that carry it, and only those, so a
// webpilot whose start lost the race for a profile to another never kills
// the other's browser (they share EnvProfileDir).
const EnvBrowserID = "WEBPILOT_BROWSER_ID"

// newBrowserID is a random EnvBrowserID value.
func newBrowserID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// instance is one browser process and the connection to it.
type instance struct {
	pid int    // also the process group id
	id  string // EnvBrowserID
	// plock is this webpilot's lock on a persistent profile, released
	// once the browser is gone.
	plock   *filelock.Lock
	cmd     *exec.Cmd
	conn    *cdp.Conn
	log     *slog.Logger
	path    string // executable
	profile string // user data dir
	version string // Browser.getVersion product

	// spare is the tab the browser opened at start (about:blank, its own
	// window, its renderer already running), handed out by the first
	// NewTab for a blank tab instead of opening another window; "" once
	// taken, or when there was none. Guarded by spareMu.
	spareMu sync.Mutex
	spare   string

	stderr     *tail
	stderrR    *os.File
	stderrDone chan struct{} // closed when stderr reaches EOF
	exited     chan struct{} // closed once the process is reaped
	closing    atomic.Bool   // we are stopping it; its exit is no news
}

// spawn starts the browser with its CDP pipe on fds 3 (browser reads) and 4
// (browser writes), and its stdout and stderr into a tail buffer. With port
// (Options.DebuggingPort) it passes no pipe: the connection is made later by
// dialPort, and in.conn is nil until then.
func spawn(path, profile string, args []string, log *slog.Logger, port bool) (in *instance, err error) {
	var files []*os.File
	defer func() {
		if err != nil {
			for _, f := range files {
				_ = f.Close()
			}
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	var cmdR, cmdW, resR, resW *os.File
	if !port {
		cmdR, cmdW, err = pipe() // our commands: browser fd 3
		if err != nil {
			return nil, err
		}
		resR, resW, err = pipe() // its replies and events: browser fd 4
		if err != nil {
			return nil, err
		}
	}
	errR, errW, err := pipe() // its stdout and stderr
	if err != nil {
		return nil, err
	}

	cmd := exec.Command(path, args...)
	id := newBrowserID()
	tmp, shorten := browserTempDir(os.Getenv("TMPDIR"))
	if shorten {
		// Only a folder the browser can write in (else it says "Socket
		// path too long" itself, which the start error explains).
		if f, err := os.CreateTemp(tmp, "webpilot-probe-*"); err != nil {
			shorten = false
		} else {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, EnvProfileDir+"=") || strings.HasPrefix(kv, EnvBrowserID+"=") ||
			(shorten && strings.HasPrefix(kv, "TMPDIR="))
	}), EnvProfileDir+"="+profile, EnvBrowserID+"="+id)
	if shorten {
		// A TMPDIR too long for the browser's socket would abort it.
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	if !port {
		cmd.ExtraFiles = []*os.File{cmdR, resW}
	}
	cmd.Stdout = errW
	cmd.Stderr = errW
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The child has its copies; ours would keep the pipes open after it dies.
	if !port {
		_ = cmdR.Close()
		_ = resW.Close()
	}
	_ = errW.Close()

	in = &instance{
		pid:        cmd.Process.Pid,
		id:         id,
		cmd:        cmd,
		path:       path,
		profile:    profile,
		log:        log,
		stderr:     newTail(stderrKeep),
		stderrR:    errR,
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go func() {
		_, _ = io.Copy(in.stderr, errR)
		_ = errR.Close()
		close(in.stderrDone)
	}()
	go func() {
		_ = cmd.Wait()
		close(in.exited)
	}()
	if !port {
		in.conn = cdp.NewConn(cdp.NewPipeTransport(resR, cmdW), &cdp.Options{Logger: log, CloseErr: in.closeReason})
	}
	return in, nil
}

// takeSpare returns the browser's initial tab once, then "".
func (in *instance) takeSpare() string {
	in.spareMu.Lock()
	defer in.spareMu.Unlock()
	id := in.spare
	in.spare = ""
	return id
}

// running reports whether the process runs and its connection is open (or,
// before dialPort made it, not failed yet).
func (in *instance) running() bool {
	var done <-chan struct{}
	if in.conn != nil {
		// Err is set before the connection's sessions end (and before
		// Done closes): a caller that saw its session end finds it down.
		if in.conn.Err() != nil {
			return false
		}
		done = in.conn.Done()
	}
	select {
	case <-done:
		return false
	case <-in.exited:
		return false
	default:
		return true
	}
}

// closeReason explains an unexpected end of the connection: how the process
// ended and the end of its stderr. It runs once, when the connection ends,
// and waits briefly for the process to exit.
func (in *instance) closeReason() error {
	if in.closing.Load() {
		return nil
	}
	wait(in.exited, 500*time.Millisecond)
	wait(in.stderrDone, 200*time.Millisecond)
	var parts []string
	select {
	case <-in.exited:
		parts = append(parts, fmt.Sprintf("browser (pid %d) exited: %s", in.pid, in.exitStatus()))
	default:
		parts = append(parts, fmt.Sprintf("browser (pid %d) closed its end of the connection", in.pid))
	}
	if s := in.stderr.String(); s != "" {
		parts = append(parts, "stderr: "+s)
	}
	return errors.New(strings.Join(parts, "; "))
}

// exitStatus describes how the process ended.
func (in *instance) exitStatus() string {
	select {
	case <-in.exited:
		if st := in.cmd.ProcessState; st != nil {
			return st.String()
		}
		return "unknown"
	default:
		return "still running"
	}
}

// exeDir is the directory of the browser executable with symlinks resolved
// (/usr/bin/google-chrome is a link into /opt/google/chrome), where its
// helpers live.
func (in *instance) exeDir() string {
	if p, err := filepath.EvalSymlinks(in.path); err == nil {
		return filepath.Dir(p)
	}
	return filepath.Dir(in.path)
}

// stop ends the browser: with graceful, Browser.close and a bounded wait for
// it to exit; then SIGKILL to its whole process group, reaping, and closing
// the connection and pipes.
func (in *instance) stop(graceful bool) {
	in.closing.Store(true)
	began := time.Now()
	if graceful && in.conn != nil && in.running() {
		ctx, cancel := context.WithTimeout(context.Background(), browserCloseTimeout)
		_, err := cdproto.Call(ctx, in.conn.Browser(), cdpbrowser.Close, cdproto.Empty{})
		cancel()
		if err != nil && !errors.Is(err, cdp.ErrClosed) {
			in.log.Debug("Browser.close failed", "pid", in.pid, "err", err)
		}
		if !wait(in.exited, exitTimeout) {
			in.log.Warn("browser did not exit after Browser.close; killing it", "pid", in.pid)
		} else {
			in.log.Debug("browser closed", "pid", in.pid, "took", time.Since(began))
		}
	}
	// Kill the group even when the leader is gone: renderers, the GPU
	// process and zygotes may outlive it for a moment.
	if err := killGroup(in.pid); err != nil {
		in.log.Warn("killing browser", "pid", in.pid, "err", err)
	}
	if n := killMarked(EnvBrowserID+"="+in.id, in.exeDir()); n > 0 {
		in.log.Debug("killed browser helpers outside the process group", "count", n)
	}
	select {
	case <-in.exited:
	default:
		_ = in.cmd.Process.Kill()
		if !wait(in.exited, reapTimeout) {
			in.log.Error("browser not reaped after SIGKILL", "pid", in.pid)
		}
	}
	if in.conn != nil {
		_ = in.conn.Close()
	}
	// A browser that did not exit cleanly leaves its singleton files (and a
	// socket dir in /tmp) behind; remove them while they are still ours.
	if owner, ok := readLock(in.profile); ok && owner.pid == in.pid {
		if err := removeSingleton(in.profile); err != nil {
			in.log.Debug("removing singleton files", "profile", in.profile, "err", err)
		}
	}
	if in.plock != nil {
		in.plock.Release()
		in.plock = nil
	}
	if !wait(in.stderrDone, time.Second) {
		_ = in.stderrR.Close() // a straggler holds stderr open; stop reading
	}
}

// wait reports whether ch closed within d.
func wait(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// peekSpare returns the browser's initial tab while it is still unused, or "".
func (in *instance) peekSpare() string {
	in.spareMu.Lock()
	defer in.spareMu.Unlock()
	return in.spare
}
