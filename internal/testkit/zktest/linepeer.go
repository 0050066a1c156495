package zktest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// linePeerDeadline bounds one answer of a line peer (a JVM's first
// answer includes its start; a lock may wait for a session to expire).
const linePeerDeadline = 2 * time.Minute

// LinePeer is a peer program driven line by line: the test writes a
// command on its stdin and waits for the line that answers it. Answers
// may come in any order (a lock is granted on a thread of its own), so
// lines not yet expected are kept for later Expects. A line starting with
// "error" fails the test at the next Expect.
type LinePeer struct {
	name   string
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{}
	err    error // once exited

	pending []string // lines read but not yet expected

	mu  sync.Mutex
	log strings.Builder // every line, stdout and stderr
}

// StartLinePeer starts a line peer in a process group of its own; the
// test's cleanup closes its stdin, waits a little for it to end its
// sessions, and kills its group if it does not.
func StartLinePeer(t testing.TB, name string, args ...string) *LinePeer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &LinePeer{name: filepath.Base(name), cancel: cancel, lines: make(chan string, 256), exited: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, name, args...)
	setProcessGroup(p.cmd)
	p.cmd.WaitDelay = 10 * time.Second
	p.cmd.Stderr = linePeerLog{p}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			linePeerLog{p}.Write([]byte(sc.Text() + "\n"))
			p.lines <- sc.Text()
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

type linePeerLog struct{ p *LinePeer }

func (w linePeerLog) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.log.Write(b)
}

// Output is everything the peer printed so far.
func (p *LinePeer) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Send writes one command line.
func (p *LinePeer) Send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatalf("%s: send %q: %v\n%s", p.name, line, err, p.Output())
	}
}

// Do sends a command and waits for the line that starts with answer.
func (p *LinePeer) Do(t testing.TB, line, answer string) string {
	t.Helper()
	p.Send(t, line)
	return p.Expect(t, answer)
}

// Expect waits for a line that starts with prefix and returns it.
func (p *LinePeer) Expect(t testing.TB, prefix string) string {
	t.Helper()
	for i, l := range p.pending {
		if strings.HasPrefix(l, prefix) {
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			return l
		}
	}
	deadline := time.After(linePeerDeadline)
	for {
		select {
		case l := <-p.lines:
			if strings.HasPrefix(l, "error") {
				t.Fatalf("%s: %s (waiting for %q)\n%s", p.name, l, prefix, p.Output())
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
			p.pending = append(p.pending, l)
		case <-p.exited:
			t.Fatalf("%s exited (%v) while the test waited for %q:\n%s", p.name, p.err, prefix, p.Output())
		case <-deadline:
			t.Fatalf("%s: no %q within %v:\n%s", p.name, prefix, linePeerDeadline, p.Output())
		}
	}
}

// Kill sends SIGKILL to the peer's process group and waits for it: its
// sessions end without a word, and expire on the server.
func (p *LinePeer) Kill(t testing.TB) {
	t.Helper()
	if err := killGroup(p.cmd.Process.Pid); err != nil {
		select {
		case <-p.exited:
			return
		default:
			t.Fatalf("kill %s: %v", p.name, err)
		}
	}
	select {
	case <-p.exited:
	case <-time.After(killTimeout):
		t.Fatalf("%s did not exit within %v of SIGKILL", p.name, killTimeout)
	}
}

func (p *LinePeer) stop(t testing.TB) {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		killGroup(p.cmd.Process.Pid)
		<-p.exited
	}
	p.cancel()
	if t.Failed() {
		t.Logf("%s output:\n%s", p.name, p.Output())
	}
}

// String names the peer in messages.
func (p *LinePeer) String() string { return fmt.Sprintf("%s[%d]", p.name, p.cmd.Process.Pid) }
