//go:build unix && !linux

package launch

import (
	"errors"
	"fmt"
	"syscall"
)

// canLaunch reports whether this OS can hand the browser its pipe fds.
const canLaunch = true

// sysProcAttr puts the browser in its own process group, so Close can kill
// every process it started. There is no parent-death signal outside Linux
// and FreeBSD: a webpilot killed with SIGKILL leaves the browser behind
// (it exits once it notices the closed pipe).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
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

// pidAlive reports whether a process with the pid runs on this host.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// killMarked finds no processes by environment without /proc; the browser's
// helpers exit once it is gone.
func killMarked(entry, dir string) int { return 0 }
