//go:build !linux

package demo

import "syscall"

// childProcAttr is empty where the kernel offers no parent-death signal
// (Pdeathsig is Linux's): the sweep stops its server itself when it ends,
// and a server left by a killed zkx must be stopped by hand.
func childProcAttr() *syscall.SysProcAttr { return nil }
