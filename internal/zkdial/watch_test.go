package zkdial

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWatchGivesUp: hard failures of every member end the wait at once; a
// member that only closes connections counts after its grace; an answer
// ends the watch for good.
func TestWatchGivesUp(t *testing.T) {
	t.Parallel()
	w := NewWatch([]string{"a:1", "b:2"}, Options{})
	w.fail("a:1", errors.New("connection refused"))
	select {
	case err := <-w.Abort():
		t.Fatalf("gave up with b:2 untried: %v", err)
	default:
	}
	w.fail("b:2", errors.New("no answer"))
	select {
	case err := <-w.Abort():
		if !strings.Contains(err.Error(), "a:1: connection refused") || !strings.Contains(err.Error(), "b:2: no answer") {
			t.Errorf("abort: %v", err)
		}
	default:
		t.Fatal("every member failed, yet no abort")
	}

	w = NewWatch([]string{"a:1", "b:2"}, Options{})
	w.fail("a:1", errors.New("connection refused"))
	w.failSoft("b:2", errors.New("closed"))
	select {
	case err := <-w.Abort():
		t.Fatalf("a member electing a leader counted at once: %v", err)
	default:
	}
	w.mu.Lock()
	f := w.failed["b:2"]
	f.since = time.Now().Add(-notServingGrace) // as if it had closed connections that long
	w.failed["b:2"] = f
	w.mu.Unlock()
	w.failSoft("b:2", errors.New("closed again"))
	select {
	case <-w.Abort():
	default:
		t.Fatal("a member closing connections past its grace did not count")
	}

	w = NewWatch([]string{"a:1"}, Options{})
	w.answer("a:1")
	w.fail("a:1", errors.New("refused later"))
	select {
	case err := <-w.Abort():
		t.Fatalf("gave up after an answer: %v", err)
	default:
	}
}

func TestHosts(t *testing.T) {
	t.Parallel()
	var h Hosts
	if err := h.Init([]string{"zk1:2181", "zk2:2181"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	a, retry := h.Next()
	b, retry2 := h.Next()
	seen[a], seen[b] = true, true
	if len(seen) != 2 || retry || retry2 {
		t.Errorf("first round: %s %s (retry %v %v)", a, b, retry, retry2)
	}
	if _, retry := h.Next(); !retry {
		t.Error("the second round does not say it starts over")
	}
	h.Connected()
	if _, retry := h.Next(); retry {
		t.Error("after a connection, a new round")
	}
	if err := (&Hosts{}).Init(nil); err == nil {
		t.Error("no servers accepted")
	}
}

// TestGiveUp: a fatal failure aborts at once, even after an answer, and
// only once.
func TestGiveUp(t *testing.T) {
	t.Parallel()
	w := NewWatch([]string{"a:1", "b:2"}, Options{})
	w.answer("a:1")
	w.giveUp(&FatalError{Err: errors.New("a:1 refused SASL DIGEST-MD5 as bob")})
	w.giveUp(&FatalError{Err: errors.New("again")})
	select {
	case err := <-w.Abort():
		var fatal *FatalError
		if !errors.As(err, &fatal) || !strings.Contains(err.Error(), "refused SASL") {
			t.Errorf("abort: %v", err)
		}
	default:
		t.Fatal("no abort")
	}
	select {
	case err := <-w.Abort():
		t.Errorf("a second abort: %v", err)
	default:
	}
}
