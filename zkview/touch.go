package zkview

import (
	"context"
	"sync"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Toucher makes one cheap request (exists of "/", which no ACL guards) on
// each of its sessions and returns their ids: each server then holds an
// answer from a moment ago among its connections, the present moment
// against which introspect measures how long other sessions have been
// silent (introspect.Options.Touch).
type Toucher interface {
	Touch(ctx context.Context) []int64
}

// Touch implements Toucher for the client's one session.
func (c *Client) Touch(ctx context.Context) []int64 {
	if _, err := c.Exists(ctx, "/"); err != nil {
		return nil
	}
	return []int64{c.SessionID()}
}

// Touch implements Toucher for every connection of the batch.
func (b *Batch) Touch(ctx context.Context) []int64 {
	conns := b.connections()
	ids := make([]int64, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var resp jute.StatResponse
			if c.Call(ctx, jute.OpExists, &jute.PathWatchRequest{Path: "/"}, &resp) == nil {
				ids[i] = c.SessionID()
			}
		}()
	}
	wg.Wait()
	ids = nonZero(ids)
	if b.owner != nil {
		ids = append(ids, b.owner.Touch(ctx)...)
	}
	return ids
}

// Touch implements Toucher for every session of the pool.
func (p *Pool) Touch(ctx context.Context) []int64 {
	ids := make([][]int64, len(p.clients))
	var wg sync.WaitGroup
	for i, c := range p.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = c.Touch(ctx)
		}()
	}
	wg.Wait()
	var out []int64
	for _, s := range ids {
		out = append(out, s...)
	}
	if p.owner != nil {
		out = append(out, p.owner.Touch(ctx)...)
	}
	return out
}

func nonZero(ids []int64) []int64 {
	out := ids[:0]
	for _, id := range ids {
		if id != 0 {
			out = append(out, id)
		}
	}
	return out
}
