//go:build !windows

package opencli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownGroup starts the program as the leader of a process group of its
// own, so that its children can be killed with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// tree is a started program's process group.
type tree struct{ pgid int }

func newTree(cmd *exec.Cmd) *tree { return &tree{pgid: cmd.Process.Pid} }

func (t *tree) close() {}

// kill kills the process group.
func (t *tree) kill() {
	_ = syscall.Kill(-t.pgid, syscall.SIGKILL)
}

// gone waits up to wait for every process of the group to be gone
// (zombies waiting for their parent count as gone: they run no more), and
// reports whether they were.
func (t *tree) gone(wait time.Duration) bool {
	pgid := t.pgid
	deadline := time.Now().Add(wait)
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		// The processes were sent SIGKILL; a few checks until the kernel
		// has taken them down.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(20 * time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid still runs. On Linux
// it reads /proc (a zombie is not running); elsewhere it asks the kernel
// with signal 0.
func groupAlive(pgid int) bool {
	if runtime.GOOS == "linux" {
		if alive, ok := procGroupAlive(pgid); ok {
			return alive
		}
	}
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// procGroupAlive scans /proc for a process of group pgid that is not a
// zombie; ok is false when /proc cannot be read.
func procGroupAlive(pgid int) (alive, ok bool) {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parens.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid && f[0] != "Z" && f[0] != "X" {
			return true, true
		}
	}
	return false, true
}
