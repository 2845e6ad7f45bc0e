//go:build windows

package opencli

import (
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// ownGroup starts the program suspended, in a process group of its own:
// newTree puts it into its job before it runs, so nothing it starts is
// outside the job.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED}
}

// ntResumeProcess resumes every thread of a suspended process.
var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// tree is a started program in a job object of its own: the processes it
// starts join the job, and ending the job ends them all.
type tree struct {
	cmd *exec.Cmd
	job windows.Handle // 0 when the job could not be made
}

// newTree puts the started (suspended) program into a new job, then lets
// it run. Without a job it still runs, killed with the system's tree kill.
func newTree(cmd *exec.Cmd) (*tree, error) {
	t := &tree{cmd: cmd}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(cmd.Process.Pid))
	if err != nil {
		return nil, fmt.Errorf("open the started program: %w", err)
	}
	defer windows.CloseHandle(p)
	if job, err := windows.CreateJobObject(nil, nil); err == nil {
		if windows.AssignProcessToJobObject(job, p) == nil {
			t.job = job
		} else {
			_ = windows.CloseHandle(job)
		}
	}
	if status, _, _ := ntResumeProcess.Call(uintptr(p)); status != 0 {
		t.close()
		return nil, fmt.Errorf("resume the started program: NTSTATUS 0x%x", status)
	}
	return t, nil
}

func (t *tree) close() {
	if t.job != 0 {
		_ = windows.CloseHandle(t.job)
		t.job = 0
	}
}

// kill ends every process of the job (the program alone when there is no
// job, with the system's tree kill for its children).
func (t *tree) kill() {
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
	} else {
		// the tree is found from the program: taskkill before it ends
		_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(t.cmd.Process.Pid)).Run()
	}
	_ = t.cmd.Process.Kill()
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

// Running reports whether process pid runs.
func Running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
