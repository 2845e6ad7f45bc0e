//go:build !unix

package launch

import "syscall"

// canLaunch reports whether this OS can hand the browser its pipe fds. Go's
// os/exec cannot pass extra file descriptors on Windows; launching there
// needs --remote-debugging-port and the DevToolsActivePort file instead,
// which is not implemented yet.
const canLaunch = false

func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(int) error { return nil }

// pidAlive cannot tell; Chromium's Windows profile lock is a locked file,
// not a SingletonLock symlink, so it is never asked.
func pidAlive(int) bool { return false }

func killMarked(string, string) int { return 0 }
