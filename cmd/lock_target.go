package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// heldLock is a lock recognised for a command that acts on its holder
// (zkx unlock, zkx revoke): the session, its writer, the servers' tables
// when they could be read, and the lock.
type heldLock struct {
	client *zkview.Client
	writer *zkview.Writer
	tables recognize.ServerTables // nil when not read
	// snapshot is the servers' answer the tables come from (nil when not
	// read): it names each session's ephemeral nodes.
	snapshot *introspect.Snapshot
	// opts are the options the lock was recognised with, to recognise it
	// again alike.
	opts recognize.Options
	lock *recognize.Lock
	// ensemble is what should be said of the members (ensembleHelp).
	ensemble []introspect.MemberNote
}

// openHeldLock connects, reads the servers' tables (warning on stderr when
// it cannot) and recognises the lock at path as zkx locks does. The
// caller closes the client.
func openHeldLock(ctx context.Context, cmd *cobra.Command, g *globalOptions, path string, timeout time.Duration) (*heldLock, error) {
	cs, err := g.connect()
	if err != nil {
		return nil, err
	}
	c, err := g.dial(ctx)
	if err != nil {
		return nil, timedOut(err, timeout)
	}
	hl := &heldLock{client: c}
	if hl.writer, err = c.Writer(); err != nil {
		c.Close()
		return nil, err
	}
	opts := recognize.Options{Viewer: c.SessionID()}
	// The verdict is read after zkx's member has caught up with the
	// leader: a lagging follower may show a holder that is gone.
	read := syncFor(ctx, cmd.ErrOrStderr(), c, path)
	in, err := g.introspectTouching(ctx, cmd.ErrOrStderr(), cs, serversAsk{own: c, read: read, notes: true})
	if err != nil {
		warnf(cmd.ErrOrStderr(), "%v; client addresses, connections and watches are unknown", err)
	} else {
		opts.Tables = in.Tables()
		hl.tables, hl.snapshot = opts.Tables, in
	}
	hl.opts = opts
	hl.ensemble = in.MemberNotes(read)
	r, err := recognize.Dir(ctx, c, path, opts)
	if err != nil {
		c.Close()
		return nil, timedOut(err, timeout)
	}
	l, ok := r.(*recognize.Lock)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("%s is not a lock zkx recognises (zkx locks %s lists what is)", path, path)
	}
	hl.lock = l
	return hl, nil
}
