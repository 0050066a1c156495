package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// A verdict that acts or alarms — F's force-release, a lock's two
// holders — is read after the explorer's member has caught up with the
// leader (ZooKeeper's sync): a follower that lags, catching up after a
// pause, would show a holder that is gone or miss a new one.

// syncedVerdictMsg is the recipe read again after a sync, for an action.
type syncedVerdictMsg struct {
	path    string
	recipe  recognize.Recipe
	readErr error // the recognition's
	err     error // the sync failed: nothing was read again
}

// syncedVerdict syncs the explorer's member and recognises the recipe
// again, with the tables already read.
func (v *recipePane) syncedVerdict() tea.Cmd {
	c, ctx, p := v.shared.Client, v.shared.Ctx, v.path
	opts := v.shared.scanOptions(nil)
	if v.tables != nil {
		opts.Tables = v.tables.Tables()
	}
	now := v.shared.Now
	return withTimeout(ctx, requestTimeout, func(ctx context.Context) tea.Msg {
		if err := c.Sync(ctx, p); err != nil {
			return syncedVerdictMsg{path: p, err: fmt.Errorf("no sync with the leader before the verdict: %w", err)}
		}
		opts.Now = now()
		r, err := recognize.Dir(ctx, c, p, opts)
		return syncedVerdictMsg{path: p, recipe: r, readErr: err}
	})
}

// syncedIfAlarmed is r, or when r alarms (a lock with two holders) the
// recipe recognised again once c's member has caught up with the leader.
func syncedIfAlarmed(ctx context.Context, c *zkview.Client, p string, opts recognize.Options, r recognize.Recipe) (recognize.Recipe, error) {
	l, ok := r.(*recognize.Lock)
	if !ok || !l.Broken {
		return r, nil
	}
	if err := c.Sync(ctx, p); err != nil {
		return r, nil // the verdict stands as read; the next load tries again
	}
	return recognize.Dir(ctx, c, p, opts)
}
