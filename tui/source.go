package tui

import (
	"context"
	"errors"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// source is where the list pages read server state: the explorer's
// client, or canned answers in tests. Every call blocks and runs in a
// tea.Cmd, never in Update.
type source struct {
	// scan is recognize.ScanContended: a walk, or, when list gives the
	// servers' ephemeral nodes first, their directories alone.
	scan       func(ctx context.Context, root string, opts recognize.Options, list recognize.EphemeralList) (recognize.Result, error)
	recognize  func(ctx context.Context, dir string, opts recognize.Options) (recognize.Recipe, error)
	introspect func(ctx context.Context) (*introspect.Snapshot, error)
	// ephemerals reads the tree's ephemeral nodes by owner, for when the
	// servers refuse to list them (zkview.EphemeralOwners); nil: not read.
	ephemerals func(ctx context.Context) (map[int64][]string, int, error)
}

var errNoClient = errors.New("not connected to ZooKeeper")

// scanSessions is how many sessions a scan of a recipe list reads over.
const scanSessions = 3

// clientSource reads through the explorer's client.
func clientSource(shared *sharedState) source {
	client := shared.Client
	if client == nil {
		return source{
			scan: func(context.Context, string, recognize.Options, recognize.EphemeralList) (recognize.Result, error) {
				return recognize.Result{}, errNoClient
			},
			recognize:  func(context.Context, string, recognize.Options) (recognize.Recipe, error) { return nil, errNoClient },
			introspect: func(context.Context) (*introspect.Snapshot, error) { return nil, errNoClient },
			ephemerals: func(context.Context) (map[int64][]string, int, error) { return nil, 0, errNoClient },
		}
	}
	return source{
		scan: func(ctx context.Context, root string, o recognize.Options, list recognize.EphemeralList) (recognize.Result, error) {
			// A scan reads over sessions of its own: the server answers
			// each connection in order, so on the explorer's own a walk
			// of a large tree would be slow, and would hold up the pages'
			// reads behind it.
			var r zkview.Reader = client
			if bulk, err := client.DialBulk(ctx, scanSessions); err == nil {
				defer bulk.Close()
				r = bulk
			}
			return recognize.ScanContended(ctx, r, root, o, list)
		},
		recognize: func(ctx context.Context, dir string, o recognize.Options) (recognize.Recipe, error) {
			return recognize.Dir(ctx, client, dir, o)
		},
		introspect: func(ctx context.Context) (*introspect.Snapshot, error) {
			return introspect.Ask(ctx, client.Target(), shared.introspectOptions())
		},
		ephemerals: func(ctx context.Context) (map[int64][]string, int, error) {
			var r zkview.Reader = client
			if bulk, err := client.DialBulk(ctx, scanSessions); err == nil {
				defer bulk.Close()
				r = bulk
			}
			return zkview.EphemeralOwners(ctx, r, "/")
		},
	}
}
