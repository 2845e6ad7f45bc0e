//go:build windows

package opencli

import (
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ownGroup starts the program in a process group of its own.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// tree is a started program in a job object of its own: the processes it
// starts join the job, and ending the job ends them all.
type tree struct {
	cmd *exec.Cmd
	job windows.Handle // 0 when the job could not be made
}

// newTree puts the started program into a new job.
func newTree(cmd *exec.Cmd) *tree {
	t := &tree{cmd: cmd}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return t
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return t
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		_ = windows.CloseHandle(job)
		return t
	}
	t.job = job
	return t
}

func (t *tree) close() {
	if t.job != 0 {
		_ = windows.CloseHandle(t.job)
	}
}

// kill ends every process of the job (the program alone when there is no
// job, with the system's tree kill for its children).
func (t *tree) kill() {
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
	}
	_ = t.cmd.Process.Kill()
	if t.job == 0 {
		_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(t.cmd.Process.Pid)).Run()
	}
}

// accounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type accounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// gone waits up to wait for the job to have no process left; without a
// job nothing can be confirmed.
func (t *tree) gone(wait time.Duration) bool {
	if t.job == 0 {
		return false
	}
	deadline := time.Now().Add(wait)
	for {
		var info accounting
		err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
		if err == nil && info.ActiveProcesses == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
