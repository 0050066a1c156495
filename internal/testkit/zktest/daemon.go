package zktest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// daemonKillTimeout bounds the wait for a daemon to be reaped after SIGKILL.
const daemonKillTimeout = 10 * time.Second

// FreePort returns a free loopback port that no other server of this test
// binary was given, for a server program a test starts itself. It is free
// only until something binds it: start the program and retry with another
// port if its bind fails.
func FreePort(t testing.TB) int {
	t.Helper()
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return ports[0]
}

// Daemon is a server program a test runs beside ZooKeeper (Prometheus,
// for one), started as the kit starts its JVMs: in a process group of its
// own, with a parent-death signal where the system has one, its stdout
// and stderr appended to a log file. The test's cleanup kills it.
type Daemon struct {
	name    string
	logPath string
	proc    *process
	stop    sync.Once
	stopErr error
}

// StartDaemon starts name with args, its output appended to logPath, and
// kills its process group when the test ends. It fails the test when the
// program cannot be started; a program that starts and then exits (a port
// taken, a bad configuration) is seen on Exited.
func StartDaemon(t testing.TB, logPath, name string, args ...string) *Daemon {
	t.Helper()
	p, err := startProcess(exec.Command(name, args...), logPath)
	if err != nil {
		t.Fatal(err)
	}
	d := &Daemon{name: name, logPath: logPath, proc: p}
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// Exited is closed once the program has exited and been reaped.
func (d *Daemon) Exited() <-chan struct{} { return d.proc.done }

// ExitErr says how the program ended (Wait's result); valid once Exited is
// closed.
func (d *Daemon) ExitErr() error { return d.proc.err }

// Pid is the program's process id, which is its process group's too.
func (d *Daemon) Pid() int { return d.proc.cmd.Process.Pid }

// Stop kills the program's process group and waits for it to be reaped.
// Later calls return the first call's result.
func (d *Daemon) Stop() error {
	d.stop.Do(func() {
		if d.proc.exited() {
			return
		}
		if err := d.proc.kill(daemonKillTimeout); err != nil {
			d.stopErr = fmt.Errorf("stop %s: %w", d.name, err)
		}
	})
	return d.stopErr
}

// Log returns the last lines of what the program printed (at most lines
// of them), for a failure message.
func (d *Daemon) Log(lines int) string {
	b, err := os.ReadFile(d.logPath)
	if err != nil {
		return fmt.Sprintf("(log %s: %v)", d.logPath, err)
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// String names the daemon in messages.
func (d *Daemon) String() string { return fmt.Sprintf("%s[%d]", d.name, d.Pid()) }
