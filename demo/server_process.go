package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ServerProcess is the embedded server run in a process of its own, so
// that its CPU time is measured apart from the contenders'.
type ServerProcess struct {
	cmd  *exec.Cmd
	Addr string // where it listens, as it announced
}

// StartServerProcess runs argv (zkx serve --listen 127.0.0.1:0 …) and
// waits for the line it announces its address with. The process dies with
// this one.
func StartServerProcess(ctx context.Context, argv []string) (*ServerProcess, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("embedded server: no command")
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.SysProcAttr = childProcAttr()
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("embedded server: %s: %w", strings.Join(argv, " "), err)
	}
	p := &ServerProcess{cmd: c}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	select {
	case line, ok := <-lines:
		const marker = "listening on "
		i := strings.Index(line, marker)
		if !ok || i < 0 {
			p.Stop()
			return nil, fmt.Errorf("embedded server: %s said %q", argv[0], line)
		}
		p.Addr = strings.Fields(line[i+len(marker):])[0]
		return p, nil
	case <-time.After(15 * time.Second):
		p.Stop()
		return nil, fmt.Errorf("embedded server: %s did not start within 15s", strings.Join(argv, " "))
	case <-ctx.Done():
		p.Stop()
		return nil, ctx.Err()
	}
}

// Pid is the server's process id.
func (p *ServerProcess) Pid() int { return p.cmd.Process.Pid }

// CPU is the CPU time (user and system) the server has used so far, from
// /proc/PID/stat; -1 when it cannot be read.
func (p *ServerProcess) CPU() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	return procStatCPU(string(data))
}

// procStatCPU reads utime+stime from a /proc/PID/stat line; -1 when it
// cannot.
func procStatCPU(stat string) time.Duration {
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	rest := stat
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux platform Go supports
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// Stop asks the server to stop (SIGTERM), and kills it after 10 s.
func (p *ServerProcess) Stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}
