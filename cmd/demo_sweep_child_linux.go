package cmd

import "syscall"

// serveChildAttr has the kernel kill the sweep's server when zkx dies
// without stopping it (SIGKILL, a crash), so no server outlives the sweep.
func serveChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
