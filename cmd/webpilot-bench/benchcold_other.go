//go:build !unix

package main

import "syscall"

// benchProcAttr: no process groups here (the floor needs a pipe, which
// only Unix launches use).
func benchProcAttr() *syscall.SysProcAttr { return nil }

// benchKillGroup does nothing here.
func benchKillGroup(int) {}
