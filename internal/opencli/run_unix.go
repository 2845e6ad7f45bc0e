//go:build !windows

package opencli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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

// tree is a started program's process group, and on Linux the
// processes that left it (setsid) but descend from the program.
type tree struct {
	pgid   int
	killed []int // the processes kill found, besides the group
}

func newTree(cmd *exec.Cmd) (*tree, error) { return &tree{pgid: cmd.Process.Pid}, nil }

func (t *tree) close() {}

// kill kills the process group and, on Linux, every descendant of the
// program found in /proc, stopped first so that none forks meanwhile.
func (t *tree) kill() {
	if runtime.GOOS == "linux" {
		seen := map[int]bool{}
		for range 2 { // a second look for what forked before its stop
			for _, p := range descendants(t.pgid) {
				if !seen[p] {
					seen[p] = true
					t.killed = append(t.killed, p)
					_ = syscall.Kill(p, syscall.SIGSTOP)
				}
			}
		}
	}
	_ = syscall.Kill(-t.pgid, syscall.SIGKILL)
	for _, p := range t.killed {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	pid, ppid, pgrp int
	state           string
}

// procStats reads /proc/*/stat; nil when /proc cannot be read.
func procStats() []procStat {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procStat
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
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
		ppid, err1 := strconv.Atoi(f[1])
		pgrp, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil {
			out = append(out, procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0]})
		}
	}
	return out
}

// descendants are the running processes of group pgid and those below
// its leader (by parent), wherever their group.
func descendants(pgid int) []int {
	stats := procStats()
	children := map[int][]int{}
	var out []int
	in := map[int]bool{}
	for _, s := range stats {
		children[s.ppid] = append(children[s.ppid], s.pid)
		if s.pgrp == pgid && running(s.state) {
			in[s.pid] = true
			out = append(out, s.pid)
		}
	}
	for queue := []int{pgid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			if !in[c] {
				in[c] = true
				out = append(out, c)
			}
			queue = append(queue, c)
		}
	}
	return out
}

// running reports whether a process state is not a zombie (or dead).
func running(state string) bool { return state != "Z" && state != "X" }

// gone waits up to wait for every process of the group to be gone
// (zombies waiting for their parent count as gone: they run no more), and
// reports whether they were.
func (t *tree) gone(wait time.Duration) bool {
	pgid := t.pgid
	deadline := time.Now().Add(wait)
	for {
		if !groupAlive(pgid) && !t.anyAlive() {
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
	stats := procStats()
	if stats == nil {
		return false, false
	}
	for _, s := range stats {
		if s.pgrp == pgid && running(s.state) {
			return true, true
		}
	}
	return false, true
}

// anyAlive reports whether a process kill found outside the group still
// runs (its pid may have been reused only after it was reaped).
func (t *tree) anyAlive() bool {
	return slices.ContainsFunc(t.killed, Running)
}

// Running reports whether process pid runs: on Linux from /proc (a zombie
// waiting for its parent does not), elsewhere by signal 0.
func Running(pid int) bool {
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return false
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		return len(f) > 0 && running(f[0])
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
