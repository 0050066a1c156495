//go:build !unix

package zktest

import (
	"errors"
	"syscall"
	"time"
)

// realSupported tells whether this system can run and control real servers:
// process groups and SIGSTOP are Unix only.
const realSupported = false

func sysProcAttr() *syscall.SysProcAttr                { return nil }
func waitStopped(pid int, timeout time.Duration) error { return nil }
func killGroup(pid int) error                          { return errors.ErrUnsupported }
func stopGroup(pid int) error                          { return errors.ErrUnsupported }
func contGroup(pid int) error                          { return errors.ErrUnsupported }
