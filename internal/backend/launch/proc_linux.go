//go:build linux

package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// canLaunch reports whether this OS can hand the browser its pipe fds.
const canLaunch = true

// sysProcAttr puts the browser in its own process group, so Close can kill
// every process it started, and asks the kernel to SIGKILL it when the thread
// that started it dies (webpilot killed or crashed). Its children notice their
// parent is gone and exit.
//
// Pdeathsig is tied to the starting OS thread, not the process: a goroutine
// that exits while locked to that thread would kill the browser early. Go
// ends threads only in that case, and a killed browser is started again on
// the next call.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup SIGKILLs every process in the group; a group that is gone
// already is not an error.
func killGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill process group %d: %w", pgid, err)
	}
	return nil
}

// pidAlive reports whether a process with the pid runs on this host. A zombie
// counts as dead.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill(2)
	}
	// The state follows the parenthesized command name, which may contain
	// spaces and parentheses itself.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// killMarked SIGKILLs this user's processes whose environment holds entry
// ("KEY=value") and whose executable lives in dir, and returns how many. It
// catches browser helpers that leave the process group: Chromium's
// chrome_crashpad_handler calls setsid and is reparented to init. The dir
// check spares programs the browser opened for the user (a downloaded file's
// viewer), which inherit the environment too.
func killMarked(entry, dir string) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	want := []byte(entry + "\x00")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !(bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || filepath.Dir(exe) != dir {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
