package recognize

import (
	"sync"
	"time"
)

// HoldClock remembers, for a viewer that recognises the same recipes again
// and again as they change (the explorer follows their directories live),
// when each holder began to hold: a node first recognised as waiting and
// later as holding began at the recognition that first showed it holding,
// which follows the change that let it in (its predecessor going) by the
// time a recognition takes. A holder never seen waiting (it held before
// the viewer looked) has no start. Safe for concurrent use.
type HoldClock struct {
	mu     sync.Mutex
	nodes  map[holdKey]*holdState
	pruned time.Time
}

// holdKey names a contender: its recipe, node and session (a node name is
// reused only by a new directory's counter).
type holdKey struct {
	recipe, node string
	session      int64
}

type holdState struct {
	since time.Time // zero while waiting
	seen  time.Time // the last recognition that showed it
}

// holdClockForget is how long a contender not seen again is remembered:
// longer than any gap between two recognitions of a followed recipe.
const holdClockForget = 10 * time.Minute

// NewHoldClock returns an empty clock.
func NewHoldClock() *HoldClock { return &HoldClock{nodes: map[holdKey]*holdState{}} }

// waits records that a contender was recognised waiting at now.
func (h *HoldClock) waits(recipe, node string, session int64, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := holdKey{recipe, node, session}
	st := h.nodes[k]
	if st == nil {
		st = &holdState{}
		h.nodes[k] = st
	}
	st.since, st.seen = time.Time{}, now
	h.prune(now)
}

// began returns when a contender recognised holding at now began to hold:
// now, when it was last seen waiting; the start recorded then, when it was
// already seen holding; zero when it was never seen waiting.
func (h *HoldClock) began(recipe, node string, session int64, now time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.nodes[holdKey{recipe, node, session}]
	if st == nil {
		return time.Time{}
	}
	if st.since.IsZero() {
		st.since = now
	}
	st.seen = now
	return st.since
}

// prune forgets contenders not recognised for holdClockForget; the caller
// holds mu.
func (h *HoldClock) prune(now time.Time) {
	if now.Sub(h.pruned) < time.Minute {
		return
	}
	h.pruned = now
	for k, st := range h.nodes {
		if now.Sub(st.seen) > holdClockForget {
			delete(h.nodes, k)
		}
	}
}
