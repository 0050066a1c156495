package demo

import "syscall"

// childProcAttr has the kernel kill the server process when zkx dies
// without stopping it (SIGKILL, a crash), so none outlives the sweep.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
