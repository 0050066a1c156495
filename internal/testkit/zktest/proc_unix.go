//go:build unix && !linux

package zktest

import (
	"syscall"
	"time"
)

// sysProcAttr puts a server in its own process group, so that cleanup can
// signal the JVM and anything it spawned at once. Only Linux has a
// parent-death signal: elsewhere a crashed test process can leave servers.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// waitStopped is a no-op where there is no /proc to observe the stop.
func waitStopped(pid int, timeout time.Duration) error { return nil }
