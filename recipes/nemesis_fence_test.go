package recipes

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The nemesis tests' referee: a fenced resource that contenders use while
// they hold a lock, a lease or the leadership, and that judges them.
//
// A holder reports four things: granted (Lock, Acquire or Campaign
// returned), enter and exit (it starts and stops using the resource), op (one
// use, in between), and release (it calls Unlock, Release or Resign, and what
// that returned). The fence keeps the highest fencing token it has admitted,
// as a storage service guarded by fencing tokens would, and finds:
//
//   - overlaps: a holder enters while a conflicting holder is inside (any
//     other for exclusive access; a writer for shared access), or a lease
//     holder enters while capacity holders are inside;
//   - stale tokens: an entry or an op whose token is below one already
//     admitted (tokens must grow in entry order), which the fence rejects;
//   - unreported losses: a holding that was lost, by evidence independent of
//     the recipe, whose holder was never told (Done not closed and the
//     release said nothing of it);
//   - inconsistent reports: Done closed, then the release succeeded.
//
// Evidence of a loss comes from three places. A later holder: when two
// conflicting holdings are both granted and not yet released, one of them
// must have been lost, and for locks and elections it is the one with the
// lower token (a node can only hold once every lower node has gone); for a
// semaphore, when more than capacity holdings are granted and not yet
// released, at least the excess were lost. The audit: an observer finds the
// node of a holding gone while the holding is still held. The nemesis: it
// expired the holding's session.

// access is how a holding uses the fenced resource.
type access int

const (
	exclusive access = iota // Mutex, RWMutex writer, Election leader
	shared                  // RWMutex reader: excludes exclusive holders only
	leased                  // Semaphore lease: at most capacity at once
)

func (a access) String() string {
	switch a {
	case shared:
		return "reader"
	case leased:
		return "lease"
	}
	return "exclusive"
}

// conflicts reports whether two holdings may not be inside at once (for
// leases the capacity decides instead).
func (a access) conflicts(b access) bool {
	return a == exclusive || b == exclusive
}

// holding is one acquisition, from grant to the end of its release.
type holding struct {
	id      int
	who     string
	access  access
	token   Token
	granted time.Time
	held    bool // granted, release not yet called
	inside  bool
	entries int // entries so far (more than one after resuming)
	closed  bool
	// reported says how the holder learned of a loss ("" when it did not).
	reported string
	// evidence lists why the holding must have been lost, once it is known.
	evidence []string
	watched  bool // an obligation names it: keep it after release
}

func (h *holding) String() string {
	return fmt.Sprintf("#%d %s (%v, %v)", h.id, h.who, h.access, h.token)
}

// obligation: at least need of the holdings ids must report their loss.
type obligation struct {
	ids  []int
	need int
	why  string
}

// evidence kinds, for the counts.
const (
	byLaterHolder = "later holder"
	byAudit       = "audit"
	byNemesis     = "nemesis expiry"
)

// fenceCounts are what the fence counted.
type fenceCounts struct {
	grants, entries, resumes, ops, exits  uint64
	suspendedGrants, suspensions          uint64
	overlaps, stale, inconsistent         uint64
	reportedDone, reportedErr, releasedOK uint64
	releaseErrors                         uint64
	reportedNotLocked                     uint64 // of reportedErr: ErrNotLocked, not ErrSessionLost
	obligations, met                      uint64
	provenLost                            uint64 // holdings, each counted once
	evidence                              map[string]uint64
	maxInside                             int
}

type fence struct {
	name     string
	capacity int // leases at once for leased; 1 otherwise

	mu          sync.Mutex
	nextID      int
	all         map[int]*holding // open holdings, and closed ones an obligation names
	held        map[int]*holding
	inside      map[int]*holding
	topEntered  int64 // highest token admitted
	topWriter   int64 // highest token admitted for exclusive access
	counts      fenceCounts
	obligations []obligation
	problems    []string
	progress    chan struct{} // closed and replaced at every grant
}

func newFence(name string, capacity int) *fence {
	return &fence{
		name: name, capacity: capacity,
		all: map[int]*holding{}, held: map[int]*holding{}, inside: map[int]*holding{},
		counts:   fenceCounts{evidence: map[string]uint64{}},
		progress: make(chan struct{}),
	}
}

// maxProblems bounds the problems kept in full; all are counted.
const maxProblems = 20

func (f *fence) problemLocked(format string, args ...any) {
	if len(f.problems) < maxProblems {
		f.problems = append(f.problems, fmt.Sprintf(format, args...))
	}
}

// grant records a successful acquisition, and what it proves about the
// holdings still held.
func (f *fence) grant(who string, a access, tok Token) *holding {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	h := &holding{id: f.nextID, who: who, access: a, token: tok, granted: time.Now(), held: true}
	f.counts.grants++
	f.all[h.id] = h // before the obligations, which may name it
	if a == leased {
		if len(f.held)+1 > f.capacity {
			ids := []int{h.id}
			names := []string{h.String()}
			for _, o := range f.held {
				ids = append(ids, o.id)
				names = append(names, o.String())
			}
			f.obligeLocked(ids, len(ids)-f.capacity, byLaterHolder,
				fmt.Sprintf("%d leases granted and not released at once (capacity %d): %s",
					len(ids), f.capacity, strings.Join(names, ", ")))
		}
	} else {
		for _, o := range f.held {
			if !o.access.conflicts(a) {
				continue
			}
			lower, higher := o, h
			if h.token.Zxid < o.token.Zxid {
				lower, higher = h, o
			}
			f.obligeLocked([]int{lower.id}, 1, byLaterHolder,
				fmt.Sprintf("%v was still held when %v was granted", lower, higher))
		}
	}
	f.held[h.id] = h
	close(f.progress)
	f.progress = make(chan struct{})
	return h
}

func (f *fence) obligeLocked(ids []int, need int, kind, why string) {
	if len(ids) == 1 && need == 1 {
		// One holding proven lost: one obligation for it, however many
		// times and ways it is proven.
		h := f.all[ids[0]]
		if h == nil {
			return
		}
		if slices.Contains(h.evidence, kind) {
			return
		}
		f.counts.evidence[kind]++
		first := len(h.evidence) == 0
		h.evidence = append(h.evidence, kind)
		h.watched = true
		if !first {
			return
		}
		f.counts.provenLost++
	} else {
		for _, id := range ids {
			if h := f.all[id]; h != nil {
				h.watched = true
			}
		}
		f.counts.evidence[kind+" (over capacity)"]++
	}
	f.obligations = append(f.obligations, obligation{ids: ids, need: need, why: kind + ": " + why})
	f.counts.obligations++
}

// lostWhileHeld records outside evidence (the audit, the nemesis) that h
// was lost, if it is still held: held means its holder has not asked to
// release, so the node did not go by its own hand. It reports whether the
// evidence was new.
func (f *fence) lostWhileHeld(h *holding, kind, why string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !h.held || slices.Contains(h.evidence, kind) {
		return false
	}
	f.obligeLocked([]int{h.id}, 1, kind, fmt.Sprintf("%v: %s", h, why))
	return true
}

// sessionExpired records that the nemesis expired a session: every holding
// of that session still held was lost with it.
func (f *fence) sessionExpired(session int64, why string) {
	f.mu.Lock()
	var hs []*holding
	for _, h := range f.held {
		if h.token.Session == session {
			hs = append(hs, h)
		}
	}
	f.mu.Unlock()
	for _, h := range hs {
		f.lostWhileHeld(h, byNemesis, why)
	}
}

// heldNow returns the holdings granted and not yet released.
func (f *fence) heldNow() []*holding {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*holding, 0, len(f.held))
	for _, h := range f.held {
		out = append(out, h)
	}
	return out
}

// suspended counts a holder that stopped using the resource because its
// session left Connected, or (atGrant) did not start because it had left
// already when the grant came.
func (f *fence) suspended(h *holding, atGrant bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if atGrant {
		f.counts.suspendedGrants++
	} else {
		f.counts.suspensions++
	}
}

// enter admits h into the resource, or rejects it (false) when its token is
// stale: below a token admitted before, or, when h comes back after a
// suspension, no longer the newest.
func (f *fence) enter(h *holding) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h.inside {
		f.problemLocked("%v entered twice", h)
		return true
	}
	tok := h.token.Zxid
	switch h.access {
	case exclusive:
		if tok < f.topEntered || (tok == f.topEntered && h.entries == 0) {
			f.counts.stale++
			f.problemLocked("stale token: %v entered after token zxid=0x%x was admitted", h, f.topEntered)
			return false
		}
	case shared:
		if tok <= f.topWriter {
			f.counts.stale++
			f.problemLocked("stale token: reader %v entered after writer token zxid=0x%x was admitted", h, f.topWriter)
			return false
		}
	}
	var others []string
	for _, o := range f.inside {
		if h.access == leased || o.access.conflicts(h.access) {
			others = append(others, o.String())
		}
	}
	if (h.access == leased && len(others)+1 > f.capacity) || (h.access != leased && len(others) > 0) {
		f.counts.overlaps++
		f.problemLocked("overlap: %v entered while inside: %s", h, strings.Join(others, ", "))
	}
	if h.access != leased {
		f.topEntered = max(f.topEntered, tok)
		if h.access == exclusive {
			f.topWriter = max(f.topWriter, tok)
		}
	}
	if h.entries > 0 {
		f.counts.resumes++
	}
	h.entries++
	h.inside = true
	f.inside[h.id] = h
	f.counts.entries++
	f.counts.maxInside = max(f.counts.maxInside, len(f.inside))
	return true
}

// op is one use of the resource by h, which the fence rejects (false) when
// a newer token has been admitted since h entered.
func (f *fence) op(h *holding) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !h.inside {
		f.problemLocked("%v used the resource without entering", h)
	}
	tok := h.token.Zxid
	switch {
	case h.access == exclusive && tok < f.topEntered,
		h.access == shared && tok < f.topWriter:
		f.counts.stale++
		f.problemLocked("stale token: %v used the resource after token zxid=0x%x was admitted", h, max(f.topEntered, f.topWriter))
		return false
	}
	f.counts.ops++
	return true
}

func (f *fence) exit(h *holding) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h.inside {
		h.inside = false
		delete(f.inside, h.id)
		f.counts.exits++
	}
}

// releasing: the holder is about to call Unlock, Release or Resign; from
// now on the node may go by its own hand.
func (f *fence) releasing(h *holding) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h.inside {
		f.problemLocked("%v released while inside", h)
		h.inside = false
		delete(f.inside, h.id)
	}
	h.held = false
	delete(f.held, h.id)
}

// released records what the release returned; doneBefore is whether the
// holding's Done was closed before the release was called.
func (f *fence) released(h *holding, err error, doneBefore bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h.closed = true
	lostErr := errors.Is(err, ErrSessionLost) || errors.Is(err, ErrNotLocked)
	switch {
	case doneBefore && err == nil:
		f.counts.inconsistent++
		f.problemLocked("inconsistent: %v: Done was closed, then the release succeeded", h)
	case doneBefore:
		h.reported = "Done closed"
		f.counts.reportedDone++
	case lostErr:
		h.reported = "release: " + err.Error()
		f.counts.reportedErr++
		if errors.Is(err, ErrNotLocked) {
			f.counts.reportedNotLocked++
		}
	case err == nil:
		f.counts.releasedOK++
	default:
		f.counts.releaseErrors++
		f.problemLocked("%v: release failed: %v", h, err)
	}
	if !h.watched {
		delete(f.all, h.id)
	}
}

// waitGrants waits until n more grants than now have happened, or the
// deadline passes.
func (f *fence) waitGrants(n int, deadline time.Time) bool {
	f.mu.Lock()
	target := f.counts.grants + uint64(n)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		got, ch := f.counts.grants, f.progress
		f.mu.Unlock()
		if got >= target {
			return true
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
			return false
		}
	}
}

// verdict settles the obligations (every holding must have been released
// by now) and returns the counts and the problems found.
func (f *fence) verdict() (fenceCounts, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	problems := append([]string(nil), f.problems...)
	unmet := 0
	for _, o := range f.obligations {
		reported, open := 0, 0
		for _, id := range o.ids {
			h := f.all[id]
			switch {
			case h == nil:
			case !h.closed:
				open++
			case h.reported != "":
				reported++
			}
		}
		if reported >= o.need {
			f.counts.met++
			continue
		}
		unmet++
		if len(problems) < maxProblems {
			var who []string
			for _, id := range o.ids {
				if h := f.all[id]; h != nil {
					who = append(who, fmt.Sprintf("%v reported %q", h, h.reported))
				}
			}
			problems = append(problems, fmt.Sprintf("unreported loss: %s; needed %d reports, got %d (%d never released): %s",
				o.why, o.need, reported, open, strings.Join(who, "; ")))
		}
	}
	if n := len(f.held); n > 0 {
		problems = append(problems, fmt.Sprintf("%d holdings never released", n))
	}
	c := f.counts
	c.evidence = map[string]uint64{}
	for k, v := range f.counts.evidence {
		c.evidence[k] = v
	}
	if unmet > 0 && len(problems) == 0 {
		problems = append(problems, fmt.Sprintf("%d unreported losses", unmet))
	}
	return c, problems
}

// violations is the number of findings that fail the test.
func (c fenceCounts) violations() uint64 {
	return c.overlaps + c.stale + c.inconsistent + (c.obligations - c.met)
}

func (c fenceCounts) String() string {
	kinds := make([]string, 0, len(c.evidence))
	for k := range c.evidence {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	ev := make([]string, 0, len(kinds))
	for _, k := range kinds {
		ev = append(ev, fmt.Sprintf("%s %d", k, c.evidence[k]))
	}
	return fmt.Sprintf("acquisitions %d, entries %d (resumed after reconnect %d), ops %d, most inside at once %d; "+
		"overlaps %d, stale tokens rejected %d, inconsistent reports %d; "+
		"stopped on Suspended %d, granted while not connected %d; "+
		"lost-lock reports %d (Done closed %d, release error %d, of which ErrNotLocked %d), released cleanly %d, release errors %d; "+
		"holdings proven lost %d (evidence: %s), obligations to report %d, met %d",
		c.grants, c.entries, c.resumes, c.ops, c.maxInside,
		c.overlaps, c.stale, c.inconsistent,
		c.suspensions, c.suspendedGrants,
		c.reportedDone+c.reportedErr, c.reportedDone, c.reportedErr, c.reportedNotLocked, c.releasedOK, c.releaseErrors,
		c.provenLost, strings.Join(ev, ", "), c.obligations, c.met)
}

// TestNemesisFence checks the referee itself: each case feeds it a history
// and expects what it must find.
func TestNemesisFence(t *testing.T) {
	t.Parallel()
	tok := func(zxid int64) Token { return Token{Zxid: zxid, Session: zxid * 100, Path: fmt.Sprintf("/n%d", zxid)} }
	lost := fmt.Errorf("wrapped: %w", ErrSessionLost)
	type want struct{ overlaps, stale, inconsistent, unmet, obligations uint64 }
	for _, tc := range []struct {
		name     string
		capacity int
		run      func(f *fence)
		want     want
	}{
		{"clean handoffs", 1, func(f *fence) {
			for z := int64(1); z <= 3; z++ {
				h := f.grant("a", exclusive, tok(z))
				f.enter(h)
				f.op(h)
				f.exit(h)
				f.releasing(h)
				f.released(h, nil, false)
			}
		}, want{}},
		{"overlap and stale op", 1, func(f *fence) {
			a := f.grant("a", exclusive, tok(1))
			f.enter(a)
			b := f.grant("b", exclusive, tok(2)) // a still held: a must report
			f.enter(b)                           // a still inside: overlap
			if f.op(a) {
				panic("a stale op was admitted")
			}
			f.exit(a)
			f.exit(b)
			f.releasing(b)
			f.released(b, nil, false)
			f.releasing(a)
			f.released(a, nil, false) // a silently lost
		}, want{overlaps: 1, stale: 1, unmet: 1, obligations: 1}},
		{"stale entry", 1, func(f *fence) {
			b := f.grant("b", exclusive, tok(2))
			f.enter(b)
			f.exit(b)
			a := f.grant("a", exclusive, tok(1)) // b held: a (lower) must report
			if f.enter(a) {
				panic("a stale entry was admitted")
			}
			f.releasing(a)
			f.released(a, lost, false)
			f.releasing(b)
			f.released(b, nil, false)
		}, want{stale: 1, obligations: 1}},
		{"loss reported by Done", 1, func(f *fence) {
			a := f.grant("a", exclusive, tok(1))
			f.enter(a)
			f.exit(a) // stopped on Suspended
			b := f.grant("b", exclusive, tok(2))
			f.enter(b)
			f.exit(b)
			f.releasing(b)
			f.released(b, nil, false)
			f.releasing(a)
			f.released(a, lost, true)
		}, want{obligations: 1}},
		{"Done closed, then release succeeded", 1, func(f *fence) {
			a := f.grant("a", exclusive, tok(1))
			f.releasing(a)
			f.released(a, nil, true)
		}, want{inconsistent: 1}},
		{"resume after reconnect", 1, func(f *fence) {
			a := f.grant("a", exclusive, tok(1))
			f.enter(a)
			f.exit(a)
			if !f.enter(a) {
				panic("a resumed holder was rejected")
			}
			f.exit(a)
			f.releasing(a)
			f.released(a, nil, false)
		}, want{}},
		{"resume after someone else held", 1, func(f *fence) {
			a := f.grant("a", exclusive, tok(1))
			f.enter(a)
			f.exit(a)
			b := f.grant("b", exclusive, tok(2))
			f.enter(b)
			f.exit(b)
			f.releasing(b)
			f.released(b, nil, false)
			f.enter(a) // the session said connected, but the lock went
			f.releasing(a)
			f.released(a, nil, false)
		}, want{stale: 1, unmet: 1, obligations: 1}},
		{"readers share, writers exclude", 1, func(f *fence) {
			r1 := f.grant("r1", shared, tok(1))
			r2 := f.grant("r2", shared, tok(2))
			f.enter(r1)
			f.enter(r2)
			w := f.grant("w", exclusive, tok(3)) // r1 and r2 held: both must report
			f.enter(w)                           // overlap with both
			f.exit(w)
			f.exit(r1)
			f.exit(r2)
			for _, h := range []*holding{w, r1, r2} {
				f.releasing(h)
				f.released(h, nil, false)
			}
		}, want{overlaps: 1, unmet: 2, obligations: 2}},
		{"reader after a newer writer", 1, func(f *fence) {
			w := f.grant("w", exclusive, tok(5))
			f.enter(w)
			f.exit(w)
			f.releasing(w)
			f.released(w, nil, false)
			r := f.grant("r", shared, tok(4))
			f.enter(r)
			f.releasing(r)
			f.released(r, nil, false)
		}, want{stale: 1}},
		{"leases within capacity", 2, func(f *fence) {
			a := f.grant("a", leased, tok(1))
			b := f.grant("b", leased, tok(2))
			f.enter(a)
			f.enter(b)
			f.exit(a)
			f.exit(b)
			for _, h := range []*holding{a, b} {
				f.releasing(h)
				f.released(h, nil, false)
			}
		}, want{}},
		{"leases over capacity", 2, func(f *fence) {
			a := f.grant("a", leased, tok(1))
			b := f.grant("b", leased, tok(2))
			c := f.grant("c", leased, tok(3)) // one of the three must report
			f.enter(a)
			f.enter(b)
			f.enter(c) // three inside
			for _, h := range []*holding{a, b, c} {
				f.exit(h)
				f.releasing(h)
				f.released(h, nil, false)
			}
		}, want{overlaps: 1, unmet: 1, obligations: 1}},
		{"audit and nemesis evidence", 1, func(f *fence) {
			a := f.grant("a", exclusive, tok(1))
			f.lostWhileHeld(a, byAudit, "node gone")
			f.sessionExpired(a.token.Session, "expired")
			f.releasing(a)
			if f.lostWhileHeld(a, byAudit, "node gone after release") {
				panic("evidence taken after the release was asked for")
			}
			f.released(a, nil, false)
		}, want{unmet: 1, obligations: 1}}, // one holding, proven lost twice
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFence(tc.name, tc.capacity)
			tc.run(f)
			c, problems := f.verdict()
			got := want{c.overlaps, c.stale, c.inconsistent, c.obligations - c.met, c.obligations}
			if got != tc.want {
				t.Errorf("got %+v, want %+v; problems: %q", got, tc.want, problems)
			}
			if (c.violations() == 0) != (len(problems) == 0) {
				t.Errorf("%d violations but problems %q", c.violations(), problems)
			}
		})
	}
}
