package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestHoldViewPaces: a server change that comes less than changesDrawEvery
// after the last screen is held, with a redraw due when that time is up;
// a key held behind it gets a redraw of its own a frame after the last
// screen, not the change's; and a redraw that finds the screen drawn
// since keeps it.
func TestHoldViewPaces(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	now := t0
	a := &app{shared: &sharedState{Pace: func() time.Time { return now }}}
	a.viewAt = t0 // a screen drawn at t0

	now = t0.Add(10 * time.Millisecond)
	if cmd := a.holdView(treeUpdateMsg{}); cmd == nil || !a.viewHeld || !a.redrawAt.Equal(t0.Add(changesDrawEvery)) {
		t.Fatalf("a change 10ms after a screen: held %v, redraw at %v (cmd %v); want held, a redraw at +%v", a.viewHeld, a.redrawAt.Sub(t0), cmd != nil, changesDrawEvery)
	}
	now = t0.Add(20 * time.Millisecond)
	if cmd := a.holdView(tea.KeyPressMsg{}); cmd == nil || !a.viewHeld || !a.redrawAt.Equal(t0.Add(frameInterval)) {
		t.Fatalf("a key behind it: held %v, redraw at %v (cmd %v); want held, a redraw at +%v", a.viewHeld, a.redrawAt.Sub(t0), cmd != nil, frameInterval)
	}
	// The key's redraw comes: the screen is drawn (View, as Bubble Tea
	// calls it after Update).
	now = t0.Add(frameInterval)
	a.holdView(redrawMsg{at: t0.Add(frameInterval)})
	if a.viewHeld || !a.redrawAt.IsZero() {
		t.Fatalf("the key's redraw: held %v, redraw still due at %v; want drawn, none due", a.viewHeld, a.redrawAt.Sub(t0))
	}
	a.viewAt, a.undrawn = now, false // what View does when it draws
	// The change's redraw, still on its way, finds nothing new: the screen stands.
	now = t0.Add(changesDrawEvery)
	if cmd := a.holdView(redrawMsg{at: t0.Add(changesDrawEvery)}); cmd != nil || !a.viewHeld || !a.redrawAt.IsZero() {
		t.Fatalf("a moot redraw: held %v, redraw at %v (cmd %v); want the screen kept, none due", a.viewHeld, a.redrawAt.Sub(t0), cmd != nil)
	}
}
