//go:build windows

package main

import "syscall"

// detached starts a process without a console, in a process group of its
// own: closing the host's console does not end it.
func detached() *syscall.SysProcAttr {
	const createNewProcessGroup, detachedProcess = 0x00000200, 0x00000008
	return &syscall.SysProcAttr{CreationFlags: createNewProcessGroup | detachedProcess, HideWindow: true}
}
