package zkview

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// maxOneShotNodes bounds the subtree followOneShot follows: each node
// holds a data and a children watch, re-armed after every event.
const maxOneShotNodes = 10000

// ErrTooManyToFollow is a subtree too large to follow node by node with
// one-shot watches.
var ErrTooManyToFollow = fmt.Errorf("more than %d nodes to follow with one-shot watches (a server with persistent watches, ZooKeeper 3.6+, follows any number with one)", maxOneShotNodes)

// followOneShot follows every node of path's subtree with one-shot
// watches (Follow on each, children included), for a server without
// persistent watches: nodes created below are followed as they come,
// deleted ones let go. Changes made between a watch firing and its
// re-arming are seen as one, and those of a node created and deleted in
// that moment not at all; changes of different nodes may be reported out
// of the server's order.
func (c *Client) followOneShot(ctx context.Context, path string, started func(), changed func(Change) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := &oneShotTree{client: c, ctx: ctx, changed: changed, nodes: map[string]context.CancelFunc{}, errc: make(chan error, 1)}
	err := Walk(ctx, c, path, WalkOptions{}, func(n WalkNode) error {
		if n.Err != nil && !IsNoNode(n.Err) {
			return n.Err
		}
		return t.start(n.Path)
	})
	if err != nil {
		return err
	}
	started()
	select {
	case err := <-t.errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type oneShotTree struct {
	client  *Client
	ctx     context.Context
	changed func(Change) error

	mu    sync.Mutex // serialises changed, guards nodes
	nodes map[string]context.CancelFunc
	errc  chan error
}

// start follows one node (once).
func (t *oneShotTree) start(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.nodes[path]; ok {
		return nil
	}
	if len(t.nodes) >= maxOneShotNodes {
		return ErrTooManyToFollow
	}
	ctx, cancel := context.WithCancel(t.ctx)
	t.nodes[path] = cancel
	go func() {
		err := t.client.Follow(ctx, path, true, func(ch Change) error { return t.report(ctx, path, ch) })
		if err != nil && ctx.Err() == nil {
			t.fail(err)
		}
	}()
	return nil
}

// report passes a change on and follows what it adds or removes.
func (t *oneShotTree) report(ctx context.Context, path string, ch Change) error {
	t.mu.Lock()
	if ctx.Err() != nil {
		t.mu.Unlock()
		return ctx.Err() // let go of meanwhile: say nothing more of it
	}
	err := t.changed(ch)
	if ch.Kind == ChangeDeleted {
		t.stopLocked(path)
	}
	for _, name := range ch.Removed {
		t.stopLocked(ChildPath(path, name)) // gone before its own watch saw it
	}
	t.mu.Unlock()
	if err != nil {
		t.fail(err)
		return err
	}
	if ch.Kind == ChangeChildren {
		for _, name := range ch.Added {
			if err := t.start(ChildPath(path, name)); err != nil {
				t.fail(err)
				return err
			}
		}
	}
	return nil
}

// stopLocked lets go of one node; the caller holds mu.
func (t *oneShotTree) stopLocked(path string) {
	if cancel, ok := t.nodes[path]; ok {
		cancel()
		delete(t.nodes, path)
	}
}

func (t *oneShotTree) fail(err error) {
	if errors.Is(err, context.Canceled) && t.ctx.Err() != nil {
		return
	}
	select {
	case t.errc <- err:
	default:
	}
}
