//go:build unix

package main

import "syscall"

// detached starts a process in a session of its own: the terminal's or the
// host's signals to our process group do not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
