package tui

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
)

// TestActorLeavesNoGoroutines: holding a lock or leading an election
// starts a watcher for its loss; letting go (Release, Resign) ends it. A
// leak of one goroutine per cycle would show as many more goroutines after
// the cycles than before them.
func TestActorLeavesNoGoroutines(t *testing.T) {
	connect := zktest.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := zkview.Dial(ctx, connect)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := newActor(c)
	dir, election := zktest.Path(t)+"/lock", zktest.Path(t)+"/election"
	cycle := func() {
		if err := a.Acquire(ctx, dir, "curator"); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(ctx, dir); err != nil {
			t.Fatal(err)
		}
		if err := a.Volunteer(ctx, election, "zkx"); err != nil {
			t.Fatal(err)
		}
		if err := a.Resign(ctx, election); err != nil {
			t.Fatal(err)
		}
	}
	cycle() // the recipes session and its goroutines start with the first
	base := settledGoroutines(t, -1)
	const cycles = 30
	for range cycles {
		cycle()
	}
	if n := settledGoroutines(t, base); n > base {
		t.Errorf("%d goroutines after %d acquire/release and volunteer/resign cycles, %d before", n, cycles, base)
	}
	if a.LockState(dir) != actorNone || a.CampaignState(election) != actorNone {
		t.Errorf("the actor still claims the lock (%v) or the election (%v)", a.LockState(dir), a.CampaignState(election))
	}
}

// settledGoroutines waits (at most 10 s) for the goroutine count to come
// down to want (or, with want < 0, to stop changing) and returns it: the
// goroutines of a finished cycle end a moment after it returns.
func settledGoroutines(t *testing.T, want int) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	last, stable := runtime.NumGoroutine(), 0
	for time.Now().Before(deadline) {
		<-tick.C
		n := runtime.NumGoroutine()
		switch {
		case want >= 0 && n <= want:
			return n
		case want < 0 && n == last:
			if stable++; stable == 10 {
				return n
			}
		default:
			stable = 0
		}
		last = n
	}
	return runtime.NumGoroutine()
}
