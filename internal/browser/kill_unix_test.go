//go:build unix

package browser_test

import "syscall"

func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
