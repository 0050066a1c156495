package recipes

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestBarrier sets a barrier, holds a waiter of another session behind it
// and removes it: the waiter goes. Waiting on a barrier that is not set
// returns at once.
func TestBarrier(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		path := base + "/gate"
		ctx := testContext(t)
		s := dialTest(t, connect)
		b := NewBarrier(s, path)
		if err := b.Wait(ctx); err != nil {
			t.Fatalf("Wait on a barrier never set: %v", err)
		}
		for i := 0; i < 2; i++ { // setting it twice is fine
			if err := b.Set(ctx); err != nil {
				t.Fatal(err)
			}
		}
		data, stat, err := s.Conn().Get(path)
		if err != nil || string(data) != string(ownerData()) || stat.EphemeralOwner != 0 {
			t.Fatalf("barrier node: %q %+v %v", data, stat, err)
		}

		waiter := NewBarrier(dialTest(t, connect), path)
		got := make(chan error, 1)
		go func() { got <- waiter.Wait(ctx) }()
		waitWatchers(t, connect, base, 1) // the waiter watches the node
		select {
		case err := <-got:
			t.Fatalf("Wait returned while the barrier is set: %v", err)
		default:
		}
		if err := b.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if err := barrierResult(t, "Wait after Remove", got); err != nil {
			t.Fatal(err)
		}
		if st := waiter.opts.stats.Snapshot(); st.Notifications != 1 {
			t.Fatalf("the waiter was notified %d times, want 1", st.Notifications)
		}
		if err := b.Remove(ctx); err != nil {
			t.Fatalf("removing a removed barrier: %v", err)
		}
		if err := waiter.Wait(ctx); err != nil {
			t.Fatalf("Wait after Remove: %v", err)
		}
		// The parents were made as containers: the server removes them.
		barrierGone(t, s, base)
	})
}

// TestBarrierWaitEnds checks the other ways a Wait ends: its context, and
// the loss of its session.
func TestBarrierWaitEnds(t *testing.T) {
	t.Parallel()
	t.Run("context", func(t *testing.T) {
		zktest.Each(t, func(t *testing.T, connect string) {
			base := zktest.Path(t)
			ctx := testContext(t)
			b := NewBarrier(dialTest(t, connect), base+"/gate")
			if err := b.Set(ctx); err != nil {
				t.Fatal(err)
			}
			waitCtx, cancel := context.WithCancel(ctx)
			got := make(chan error, 1)
			go func() { got <- b.Wait(waitCtx) }()
			waitWatchers(t, connect, base, 1)
			cancel()
			if err := barrierResult(t, "a cancelled Wait", got); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Wait: %v", err)
			}
			if err := b.Remove(ctx); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("session expiry", func(t *testing.T) {
		srv := zktest.EmbeddedServer(t, zkserver.Config{})
		base := zktest.Path(t)
		ctx := testContext(t)
		if err := NewBarrier(dialTest(t, srv.ConnectString()), base+"/gate").Set(ctx); err != nil {
			t.Fatal(err)
		}
		s := dialTest(t, srv.ConnectString())
		got := make(chan error, 1)
		go func() { got <- NewBarrier(s, base+"/gate").Wait(ctx) }()
		waitWatchers(t, srv.ConnectString(), base, 1)
		srv.ExpireSession(s.ID())
		if err := barrierResult(t, "Wait on an expired session", got); !errors.Is(err, ErrSessionLost) {
			t.Fatalf("Wait on an expired session: %v", err)
		}
	})
}

// barrierResult waits, with the test's deadline, for a blocked call's error.
func barrierResult(t *testing.T, what string, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
		return nil
	}
}

// barrierGone waits, on watches and with the test's deadline, until path
// does not exist.
func barrierGone(t *testing.T, s *Session, path string) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		exists, _, ch, err := s.Conn().ExistsW(path)
		if err != nil {
			t.Fatal(err)
		}
		if !exists {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s to go", path)
		}
	}
}
