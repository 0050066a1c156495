//go:build unix

package recognize

import (
	"os/exec"
	"syscall"
)

// recOwnGroup puts a peer program in a process group of its own, so that a
// stuck one is killed whole (a script and the JVM it started).
func recOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
