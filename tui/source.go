package tui

import (
	"github.com/zkx-dev/zkx/zkview/introspect"

	"context"
	"errors"

	"github.com/zkx-dev/zkx/zkview"
)

// source is where the list pages read server state: the explorer's
// client, or canned answers in tests. Every call blocks and runs in a
// tea.Cmd, never in Update.
type source struct {
	scan       func(ctx context.Context, root string, opts zkview.ScanOptions) (zkview.ScanResult, error)
	recognize  func(ctx context.Context, dir string, opts zkview.ScanOptions) (any, error)
	introspect func(ctx context.Context) (*introspect.Snapshot, error)
}

var errNoClient = errors.New("not connected to ZooKeeper")

// clientSource reads through the explorer's client.
func clientSource(c *Context) source {
	client, opts := c.Client, c.Introspect
	if client == nil {
		return source{
			scan: func(context.Context, string, zkview.ScanOptions) (zkview.ScanResult, error) {
				return zkview.ScanResult{}, errNoClient
			},
			recognize:  func(context.Context, string, zkview.ScanOptions) (any, error) { return nil, errNoClient },
			introspect: func(context.Context) (*introspect.Snapshot, error) { return nil, errNoClient },
		}
	}
	return source{
		scan: func(ctx context.Context, root string, o zkview.ScanOptions) (zkview.ScanResult, error) {
			return zkview.Scan(ctx, client, root, o)
		},
		recognize: func(ctx context.Context, dir string, o zkview.ScanOptions) (any, error) {
			return zkview.RecognizeDir(ctx, client, dir, o)
		},
		introspect: func(ctx context.Context) (*introspect.Snapshot, error) {
			return introspect.Ask(ctx, client.Target(), opts)
		},
	}
}
