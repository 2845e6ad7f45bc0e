//go:build windows

package launch

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
)

// canLaunch reports whether this OS can launch the browser. Windows has no
// extra file descriptors for the pipe, so New turns Options.DebuggingPort on:
// the browser is reached through --remote-debugging-port.
const canLaunch = true

// sysProcAttr starts the browser in a process group of its own, so a
// Ctrl+C sent to webpilot's console does not reach it. There is no
// parent-death signal: a webpilot that is killed leaves the browser behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the browser and its process tree with taskkill /T /F. A
// process that is gone already is not an error (taskkill exits 128 then).
func killGroup(pid int) error {
	if pid <= 0 {
		return nil
	}
	out, err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 128 {
			return nil
		}
		return fmt.Errorf("taskkill /T /F /PID %d: %w: %s", pid, err, out)
	}
	return nil
}

// pidAlive cannot tell cheaply and is never asked: Chromium's Windows profile
// lock is a locked file, not a SingletonLock symlink naming a pid.
func pidAlive(int) bool { return false }

// killMarked finds no processes by environment on Windows; taskkill /T takes
// the browser's tree.
func killMarked(string, string) int { return 0 }
