package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestHoldViewPaces: a server change that comes less than changesDrawEvery
// after the last screen is held, with a redraw due when that time is up;
// a key is drawn at once; for userDrawsFor after it, changes are held
// userChangesDrawEvery at most, with a redraw of their own sooner than the
// one due; a redraw that finds the screen drawn since keeps it.
func TestHoldViewPaces(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	now := t0
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	a := &app{shared: &sharedState{Pace: func() time.Time { return now }}}
	drawn := func() { a.viewAt, a.undrawn = now, false } // what View does when it draws
	drawn()

	now = at(10 * time.Millisecond)
	if cmd := a.holdView(treeUpdateMsg{}); cmd == nil || !a.viewHeld || !a.redrawAt.Equal(at(changesDrawEvery)) {
		t.Fatalf("a change 10ms after a screen: held %v, redraw at %v (cmd %v); want held, a redraw at +%v", a.viewHeld, a.redrawAt.Sub(t0), cmd != nil, changesDrawEvery)
	}
	now = at(20 * time.Millisecond)
	if a.holdView(tea.KeyPressMsg{}); a.viewHeld {
		t.Fatal("a key 20ms after a screen: held; want it drawn at once")
	}
	drawn()
	now = at(40 * time.Millisecond)
	if cmd := a.holdView(treeUpdateMsg{}); cmd == nil || !a.viewHeld || !a.redrawAt.Equal(at(20*time.Millisecond+userChangesDrawEvery)) {
		t.Fatalf("a change 20ms after the key's screen: held %v, redraw at %v (cmd %v); want held, a redraw at +%v",
			a.viewHeld, a.redrawAt.Sub(t0), cmd != nil, 20*time.Millisecond+userChangesDrawEvery)
	}
	now = at(20*time.Millisecond + userChangesDrawEvery)
	if a.holdView(redrawMsg{at: now}); a.viewHeld || !a.redrawAt.IsZero() {
		t.Fatalf("its redraw: held %v, redraw still due at %v; want drawn, none due", a.viewHeld, a.redrawAt.Sub(t0))
	}
	drawn()
	// The first change's redraw, still on its way, finds nothing new.
	now = at(changesDrawEvery)
	if cmd := a.holdView(redrawMsg{at: now}); cmd != nil || !a.viewHeld || !a.redrawAt.IsZero() {
		t.Fatalf("a moot redraw: held %v, redraw at %v (cmd %v); want the screen kept, none due", a.viewHeld, a.redrawAt.Sub(t0), cmd != nil)
	}
	// Past userDrawsFor after the key, changes wait for the changes' pace again.
	now = at(20*time.Millisecond + userDrawsFor)
	drawn()
	now = now.Add(userChangesDrawEvery)
	if a.holdView(treeUpdateMsg{}); !a.viewHeld {
		t.Fatalf("a change %v after the last screen, %v after the key: drawn; want it held", userChangesDrawEvery, now.Sub(at(20*time.Millisecond)))
	}
}
