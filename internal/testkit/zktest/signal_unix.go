//go:build unix

package zktest

import "syscall"

// realSupported tells whether this system can run and control real servers.
const realSupported = true

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// stopGroup sends SIGSTOP to the process group led by pid.
func stopGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGSTOP) }

// contGroup sends SIGCONT to the process group led by pid.
func contGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGCONT) }
