package zktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// process is one running server JVM.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited and been reaped
	err  error         // Wait's result, set before done closes
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// describeExit says how the process ended, with ZooKeeper's meaning of its
// exit code (the server logs nothing without an slf4j binding, so the code
// is often the only clue).
func (p *process) describeExit() string {
	var ee *exec.ExitError
	if !errors.As(p.err, &ee) {
		if p.err == nil {
			return "exited with status 0"
		}
		return p.err.Error()
	}
	code := ee.ExitCode()
	if code < 0 {
		return ee.Error()
	}
	if meaning, ok := zkExitCodes[code]; ok {
		return fmt.Sprintf("%v (ZooKeeper ExitCode %s)", ee, meaning)
	}
	return ee.Error()
}

// zkExitCodes are the values of org.apache.zookeeper.server.ExitCode in 3.8.
var zkExitCodes = map[int]string{
	0:  "EXECUTION_FINISHED",
	1:  "UNEXPECTED_ERROR",
	2:  "INVALID_INVOCATION (bad configuration?)",
	3:  "UNABLE_TO_ACCESS_DATADIR",
	4:  "ERROR_STARTING_ADMIN_SERVER",
	10: "TXNLOG_ERROR_TAKING_SNAPSHOT",
	12: "UNMATCHED_TXN_COMMIT",
	13: "QUORUM_PACKET_ERROR",
	14: "UNABLE_TO_BIND_QUORUM_PORT",
}

// startProcess starts cmd with its output appended to logPath and reaps it
// in the background.
func startProcess(cmd *exec.Cmd, logPath string) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	// The child keeps its own copy of the descriptor.
	defer logf.Close()
	fmt.Fprintf(logf, "=== zktest: %s: %v\n", time.Now().Format(time.RFC3339Nano), cmd.Args)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	if err := spawn(cmd); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// kill SIGKILLs the process group and waits for the process to be reaped.
func (p *process) kill(timeout time.Duration) error {
	if err := killGroup(p.cmd.Process.Pid); err != nil && !p.exited() {
		// The group may be gone already; fall back to the process itself.
		if err2 := p.cmd.Process.Kill(); err2 != nil && !errors.Is(err2, os.ErrProcessDone) {
			return fmt.Errorf("kill process %d: %w", p.cmd.Process.Pid, err)
		}
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("process %d did not exit within %v of SIGKILL", p.cmd.Process.Pid, timeout)
	}
}

// Processes are started from one goroutine locked to its OS thread, which
// never exits. Linux delivers the parent-death signal when the thread that
// forked the child exits, not the process: starting from an arbitrary
// goroutine's thread could kill a server early if the Go runtime retired
// that thread (which it does when a goroutine exits while locked to it).
var (
	spawnOnce sync.Once
	spawnReqs chan spawnRequest
)

type spawnRequest struct {
	cmd *exec.Cmd
	err chan<- error
}

// spawn starts cmd on the spawner thread.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReqs = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawnReqs {
				r.err <- r.cmd.Start()
			}
		}()
	})
	errc := make(chan error, 1)
	spawnReqs <- spawnRequest{cmd: cmd, err: errc}
	return <-errc
}
