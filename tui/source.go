package tui

import (
	"github.com/zkx-dev/zkx/zkview/recognize"

	"github.com/zkx-dev/zkx/zkview/introspect"

	"context"
	"errors"
)

// source is where the list pages read server state: the explorer's
// client, or canned answers in tests. Every call blocks and runs in a
// tea.Cmd, never in Update.
type source struct {
	scan       func(ctx context.Context, root string, opts recognize.Options) (recognize.Result, error)
	recognize  func(ctx context.Context, dir string, opts recognize.Options) (recognize.Recipe, error)
	introspect func(ctx context.Context) (*introspect.Snapshot, error)
}

var errNoClient = errors.New("not connected to ZooKeeper")

// clientSource reads through the explorer's client.
func clientSource(c *Context) source {
	client, opts := c.Client, c.Introspect
	if client == nil {
		return source{
			scan: func(context.Context, string, recognize.Options) (recognize.Result, error) {
				return recognize.Result{}, errNoClient
			},
			recognize:  func(context.Context, string, recognize.Options) (recognize.Recipe, error) { return nil, errNoClient },
			introspect: func(context.Context) (*introspect.Snapshot, error) { return nil, errNoClient },
		}
	}
	return source{
		scan: func(ctx context.Context, root string, o recognize.Options) (recognize.Result, error) {
			return recognize.Scan(ctx, client, root, o)
		},
		recognize: func(ctx context.Context, dir string, o recognize.Options) (recognize.Recipe, error) {
			return recognize.Dir(ctx, client, dir, o)
		},
		introspect: func(ctx context.Context) (*introspect.Snapshot, error) {
			return introspect.Ask(ctx, client.Target(), opts)
		},
	}
}
