package zkdial

import (
	"sort"
	"time"
)

// Progress is how the dials stand, for a user waiting on them.
type Progress struct {
	// Member is the member tried last, and Phase what is awaited of it
	// ("opening a connection", "waiting for its answer to the session
	// request", "session open") since Since.
	Member string
	Phase  string
	Since  time.Time
	// Failed are the members that failed so far, "member: how".
	Failed []string
}

// Progress returns how the dials stand.
func (w *Watch) Progress() Progress {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.progress
	p.Failed = nil
	for m, f := range w.failed {
		p.Failed = append(p.Failed, m+": "+memberLine(f.err))
	}
	sort.Strings(p.Failed)
	return p
}

func (w *Watch) setPhase(member, phase string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.progress.Member, w.progress.Phase, w.progress.Since = member, phase, time.Now()
}
