package recipes

import (
	"slices"
	"sync"
	"testing"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestObserverTellsTheWait checks a waiter reports, in order, its node, what
// it watches, the notification and the acquisition.
func TestObserverTellsTheWait(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		holder := NewMutex(dialTest(t, connect), dir, WithLookahead(false))
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var events []lockstats.Event
		waiter := NewMutex(dialTest(t, connect), dir, WithLookahead(false), withInstruments(lockstats.Instruments{Observer: func(ev lockstats.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}}))
		got := make(chan error, 1)
		go func() { got <- waiter.Lock(ctx) }()
		holderPath := holder.Token().Path
		waitWatched(t, connect, holderPath, 2) // the holder's own watch and the waiter's
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if err := waiter.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		holderNode := holderPath[len(dir)+1:]
		var kinds []lockstats.EventKind
		for _, ev := range events {
			kinds = append(kinds, ev.Kind)
		}
		if !slices.Equal(kinds, []lockstats.EventKind{lockstats.Queued, lockstats.Waiting, lockstats.Notified, lockstats.Acquired, lockstats.Released}) {
			t.Fatalf("events %v", events)
		}
		if !slices.Equal(events[1].Watching, []string{holderNode}) || events[2].Node != holderNode || events[3].Path == "" {
			t.Fatalf("events %+v (holder node %s)", events, holderNode)
		}
	})
}
