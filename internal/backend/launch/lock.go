package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/webpilot-mcp/webpilot/internal/backend"
)

// Chromium's process-singleton files in a user data dir (POSIX). The lock is a
// symlink whose target is "hostname-pid" (pid of the browser process); the
// socket is a symlink to a unix socket in a private temp dir
// (/tmp/org.chromium.Chromium.XXXXXX/SingletonSocket).
const (
	singletonLock   = "SingletonLock"
	singletonSocket = "SingletonSocket"
	singletonCookie = "SingletonCookie"
)

// lockOwner is who a SingletonLock names.
type lockOwner struct {
	host string
	pid  int
}

// readLock reads dir's SingletonLock. ok is false when there is none or it is
// not a lock this package understands (then Chromium decides for itself).
func readLock(dir string) (owner lockOwner, ok bool) {
	target, err := os.Readlink(filepath.Join(dir, singletonLock))
	if err != nil {
		return lockOwner{}, false
	}
	i := strings.LastIndexByte(target, '-')
	if i <= 0 {
		return lockOwner{}, false
	}
	pid, err := strconv.Atoi(target[i+1:])
	if err != nil || pid <= 0 {
		return lockOwner{}, false
	}
	return lockOwner{host: target[:i], pid: pid}, true
}

// lockHolder describes the webpilot that started the browser pid (its
// parent), or is "" when the browser is not a webpilot's (or this OS does
// not tell).
var lockHolder = func(pid int) string {
	ppid := parentPID(pid)
	if ppid <= 1 {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", ppid))
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if len(args) == 0 || !strings.Contains(filepath.Base(args[0]), "webpilot") {
		return ""
	}
	how := "webpilot " + strings.Join(args[1:], " ")
	if len(how) > 120 {
		how = how[:120] + "…"
	}
	return fmt.Sprintf("%s (pid %d)", how, ppid)
}

// parentPID is the parent of pid from /proc (0 where there is none).
func parentPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// claimProfile checks that no other browser holds dir. A lock held by a live
// process on this host, or by another host, is an error matching
// [backend.ErrProfileLocked]; a lock left by a dead process on this host is
// removed, with the rest of the stale singleton files. removed reports that.
func claimProfile(dir, host string, alive func(pid int) bool) (removed bool, err error) {
	owner, ok := readLock(dir)
	if !ok {
		return false, nil
	}
	if owner.host != host {
		return false, fmt.Errorf("launch: profile %s is in use by a browser on host %q (its %s says %s-%d): close that browser or use --isolated (or delete the lock if that browser is gone): %w",
			dir, owner.host, singletonLock, owner.host, owner.pid, backend.ErrProfileLocked)
	}
	if alive(owner.pid) {
		return false, fmt.Errorf("launch: %w", &backend.ProfileLockedError{Dir: dir, PID: owner.pid, Holder: lockHolder(owner.pid)})
	}
	if err := removeSingleton(dir); err != nil {
		return false, fmt.Errorf("launch: removing stale lock of profile %s: %w", dir, err)
	}
	return true, nil
}

// removeSingleton deletes the singleton files of a browser that is gone, and
// the private temp dir its socket lived in (/tmp/org.chromium.Chromium.XXXXXX
// holding SingletonSocket and SingletonCookie; Chromium removes it only on a
// clean exit). That dir is removed only when it sits directly in a temp dir
// and holds nothing else.
func removeSingleton(dir string) error {
	if target, err := os.Readlink(filepath.Join(dir, singletonSocket)); err == nil && filepath.Base(target) == singletonSocket {
		sockDir := filepath.Dir(target)
		if parent := filepath.Dir(sockDir); parent == filepath.Clean(os.TempDir()) || parent == "/tmp" {
			_ = os.Remove(target)
			_ = os.Remove(filepath.Join(sockDir, singletonCookie))
			_ = os.Remove(sockDir)
		}
	}
	var errs []error
	for _, name := range []string{singletonLock, singletonSocket, singletonCookie} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
