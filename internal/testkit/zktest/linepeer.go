package zktest

import (
	"strings"
	"testing"
	"time"
)

// LinePeer is a LivePeer driven line by line: the test writes a command on
// its stdin and waits for the line that answers it. Answers may come in
// any order (a lock is granted on a thread of its own), so each Expect
// takes the first line with its prefix that no Expect took before. A
// line starting with "error" fails the test at the next Expect.
type LinePeer struct {
	*LivePeer
	taken map[int]bool // lines an Expect returned
}

// StartLinePeer starts a line peer (see StartLivePeer).
func StartLinePeer(t testing.TB, name string, args ...string) *LinePeer {
	t.Helper()
	return &LinePeer{LivePeer: StartLivePeer(t, name, args...), taken: map[int]bool{}}
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
	deadline := time.After(livePeerDeadline)
	for {
		p.mu.Lock()
		for i, l := range p.lines {
			switch {
			case p.taken[i]:
			case strings.HasPrefix(l, "error"):
				p.mu.Unlock()
				t.Fatalf("%s: %s (waiting for %q)\n%s", p.name, l, prefix, p.Output())
			case strings.HasPrefix(l, prefix):
				p.taken[i] = true
				p.mu.Unlock()
				return l
			}
		}
		said := p.said
		p.mu.Unlock()
		select {
		case <-said:
		case <-p.exited:
			t.Fatalf("%s exited (%v) while the test waited for %q:\n%s", p.name, p.err, prefix, p.Output())
		case <-deadline:
			t.Fatalf("%s: no %q within %v:\n%s", p.name, prefix, livePeerDeadline, p.Output())
		}
	}
}
