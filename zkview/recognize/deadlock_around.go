package recognize

import (
	"context"
	"path"

	"github.com/zkx-dev/zkx/zkview"
)

// LocksAround recognises the locks a cycle of sessions through l may pass
// through, for a viewer of l alone: those holding the ephemeral nodes of
// l's contenders' sessions, then those of their contenders' sessions, and
// so on, at most limit directories in all. ephemeralsOf gives a session's
// ephemeral nodes (full paths; the servers' dump), nil when not known.
// l itself is not among them.
func LocksAround(ctx context.Context, r zkview.Reader, l *Lock, ephemeralsOf func(session int64) []string, opts Options, limit int) ([]Lock, error) {
	seenSession := map[int64]bool{}
	seenDir := map[string]bool{l.Path: true}
	var out []Lock
	queue := sessionsOf(l)
	for len(queue) > 0 && len(seenDir) < limit {
		var ephemerals []string
		for _, s := range queue {
			if seenSession[s] {
				continue
			}
			seenSession[s] = true
			for _, e := range ephemeralsOf(s) {
				if dir := path.Dir(e); !seenDir[dir] && len(seenDir) < limit {
					seenDir[dir] = true
					ephemerals = append(ephemerals, e)
				}
			}
		}
		queue = nil
		if len(ephemerals) == 0 {
			break
		}
		res, err := FromEphemerals(ctx, r, "/", ephemerals, opts)
		if err != nil && !res.Partial {
			return out, err
		}
		for i := range res.Locks {
			if res.Locks[i].Path == l.Path {
				continue
			}
			out = append(out, res.Locks[i])
			queue = append(queue, sessionsOf(&res.Locks[i])...)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// sessionsOf are the sessions of a lock's contenders.
func sessionsOf(l *Lock) []int64 {
	var out []int64
	for _, p := range l.Lineup() {
		if p.SessionID != 0 {
			out = append(out, p.SessionID)
		}
	}
	return out
}
