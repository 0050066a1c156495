package zkview

import (
	"context"
	"errors"
	"sync"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Syncer makes the members its sessions read through catch up with the
// leader (ZooKeeper's sync) before a verdict that acts or alarms: a
// follower that lags (catching up after a pause) would otherwise show a
// holder that is gone, or miss a new one. Client, Batch and Pool are
// Syncers.
type Syncer interface {
	// Sync returns once every member read through has applied what the
	// leader had committed when the sync reached it. path is any path
	// under the chroot (ZooKeeper syncs the whole member).
	Sync(ctx context.Context, path string) error
	// Server is the member read through ("" when not connected).
	Server() string
}

// Sync implements Syncer for the client's session.
func (c *Client) Sync(ctx context.Context, path string) error {
	_, err := do(ctx, c, "sync", path, func(string) (string, error) {
		return c.conn.Sync(c.Abs(path))
	})
	return err
}

// Sync implements Syncer: the batch's connections share one member, so
// one sync on one of them serves them all.
func (b *Batch) Sync(ctx context.Context, path string) error {
	var resp jute.PathResponse
	if err := b.conns[0].Call(ctx, jute.OpSync, &jute.PathRequest{Path: b.target.Abs(path)}, &resp); err != nil {
		return &PathError{Op: "sync", Path: path, Server: b.server, Err: err}
	}
	return nil
}

// Server implements Syncer.
func (b *Batch) Server() string { return b.server }

// Sync implements Syncer: every session of the pool, at once (they may
// read through different members).
func (p *Pool) Sync(ctx context.Context, path string) error {
	errs := make([]error, len(p.clients))
	var wg sync.WaitGroup
	for i, c := range p.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Sync(ctx, path)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Server implements Syncer: the member of the pool's first session.
func (p *Pool) Server() string {
	if len(p.clients) == 0 {
		return ""
	}
	return p.clients[0].Server()
}
