//go:build !linux

package cmd

import "syscall"

// serveChildAttr is empty where the kernel offers no parent-death signal
// (Pdeathsig is Linux's): the sweep stops its server itself when it ends,
// and a server left by a killed zkx must be stopped by hand.
func serveChildAttr() *syscall.SysProcAttr { return nil }
