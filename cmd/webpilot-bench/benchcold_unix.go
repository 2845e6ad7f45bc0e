//go:build unix

package main

import "syscall"

// benchProcAttr puts the floor's browser in its own process group.
func benchProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// benchKillGroup kills the floor browser's process group.
func benchKillGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
