package tui

import (
	"context"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// lockAroundLimit bounds the directories a lock's page reads around it
// to find the cycles of sessions it is in.
const lockAroundLimit = 64

// withDeadlocks is l marked with the deadlocks it is in (its first
// warning, red), found among the locks its contenders' sessions hold or
// wait in, as far as the servers' dump names their ephemeral nodes
// (recognize.LocksAround); l as it is when they name none.
func withDeadlocks(ctx context.Context, r zkview.Reader, l *recognize.Lock, tables *introspect.Snapshot, opts recognize.Options) *recognize.Lock {
	opts.Holds = nil // the page's clock is for its own lock
	ephemeralsOf := func(session int64) []string {
		if s := tables.Session(session); s != nil {
			return s.Ephemerals
		}
		return nil
	}
	around, _ := recognize.LocksAround(ctx, r, l, ephemeralsOf, opts, lockAroundLimit)
	marked := []recognize.Lock{*l}
	recognize.MarkDeadlocks(marked, around...)
	return &marked[0]
}
