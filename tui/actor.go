package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/zkview"
)

// actor takes part in recipes as "you": it locks, enqueues and
// volunteers through the recipes package on the explorer's own session,
// so its nodes show in the chains under the explorer's session id. Its
// methods block; pages call them from tea.Cmds.
type actor struct {
	client *zkview.Client

	mu        sync.Mutex
	session   *recipes.Session
	locks     map[string]*heldLock
	campaigns map[string]*campaign
}

// heldLock is a lock the explorer holds or waits for.
type heldLock struct {
	mutex  *recipes.Mutex
	cancel context.CancelFunc // ends a wait
	held   bool
	// over is closed when the explorer lets go of the lock (Release,
	// Close), which ends its watcher: the mutex's Done is closed only when
	// the holding is lost, never by Unlock.
	over chan struct{}
}

// campaign is the explorer's candidacy in an election.
type campaign struct {
	election *recipes.Election
	cancel   context.CancelFunc
	leader   bool
	over     chan struct{} // as heldLock's: Resign does not close Done
}

// actorState is what the explorer does in one recipe directory.
type actorState int

const (
	actorNone actorState = iota
	actorWaiting
	actorHolding
)

func newActor(c *zkview.Client) *actor {
	return &actor{client: c, locks: map[string]*heldLock{}, campaigns: map[string]*campaign{}}
}

// recipeSession returns a live recipes session on the explorer's
// connection, opening a new one after the last was lost (an expiry ends
// every lock it held; recipes reports that through Done).
func (a *actor) recipeSession() (*recipes.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.session != nil {
		select {
		case <-a.session.Done():
			a.session = nil
		default:
			return a.session, nil
		}
	}
	s, err := newRecipeSession(a.client)
	if err != nil {
		return nil, fmt.Errorf("recipes session: %w", err)
	}
	a.session = s
	return s, nil
}

// lockFormat maps a recognised lock's format to the layout zkx writes
// into it, refusing layouts zkx cannot take part in.
func lockFormat(format string) (recipes.Format, error) {
	switch format {
	case "zkx", "curator", "":
		return recipes.Curator, nil
	case "kazoo":
		return recipes.Kazoo, nil
	}
	return 0, fmt.Errorf("zkx takes part only in Curator, Kazoo and zkx locks; this one is %s", format)
}

// Acquire queues for the lock at dir (a user path) and blocks until the
// explorer holds it, Release cancels the wait, or ctx ends.
func (a *actor) Acquire(ctx context.Context, dir, format string) error {
	f, err := lockFormat(format)
	if err != nil {
		return err
	}
	s, err := a.recipeSession()
	if err != nil {
		return err
	}
	a.mu.Lock()
	if _, busy := a.locks[dir]; busy {
		a.mu.Unlock()
		return fmt.Errorf("you already hold or wait for %s", dir)
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &heldLock{mutex: recipes.NewMutex(s, a.client.Abs(dir), recipes.WithFormat(f)), cancel: cancel, over: make(chan struct{})}
	a.locks[dir] = h
	a.mu.Unlock()

	err = h.mutex.Lock(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		delete(a.locks, dir)
		cancel()
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("stopped waiting for %s", dir)
		}
		return fmt.Errorf("lock %s: %w", dir, err)
	}
	h.held = true
	go a.forgetWhenLost(dir, h, h.mutex.Done())
	return nil
}

// forgetWhenLost drops a held lock whose holding was lost (its session
// ended, its node was deleted), so the explorer no longer claims it; it
// ends when the explorer lets go of the lock itself.
func (a *actor) forgetWhenLost(dir string, h *heldLock, lost <-chan struct{}) {
	select {
	case <-lost:
	case <-h.over:
		return
	}
	a.mu.Lock()
	if a.locks[dir] == h {
		delete(a.locks, dir)
	}
	a.mu.Unlock()
}

// Release lets go of the lock at dir, or stops waiting for it.
func (a *actor) Release(ctx context.Context, dir string) error {
	a.mu.Lock()
	h := a.locks[dir]
	if h == nil {
		a.mu.Unlock()
		return fmt.Errorf("you neither hold nor wait for %s", dir)
	}
	if !h.held {
		a.mu.Unlock()
		h.cancel() // Acquire removes it and our node
		return nil
	}
	delete(a.locks, dir)
	a.mu.Unlock()
	close(h.over)
	defer h.cancel()
	if err := h.mutex.Unlock(ctx); err != nil {
		return fmt.Errorf("unlock %s: %w", dir, err)
	}
	return nil
}

// LockState reports whether the explorer waits for or holds dir.
func (a *actor) LockState(dir string) actorState {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch h := a.locks[dir]; {
	case h == nil:
		return actorNone
	case h.held:
		return actorHolding
	default:
		return actorWaiting
	}
}

// Enqueue puts data at the tail of a qn- queue.
func (a *actor) Enqueue(ctx context.Context, dir, format string, data []byte) (string, error) {
	q, err := a.queue(dir, format)
	if err != nil {
		return "", err
	}
	node, err := q.Put(ctx, data)
	if err != nil {
		return "", fmt.Errorf("enqueue on %s: %w", dir, err)
	}
	return a.client.Rel(node), nil
}

// Dequeue takes the head of a qn- queue, without waiting when it is
// empty.
func (a *actor) Dequeue(ctx context.Context, dir, format string) ([]byte, error) {
	q, err := a.queue(dir, format)
	if err != nil {
		return nil, err
	}
	data, err := q.Poll(ctx)
	if errors.Is(err, recipes.ErrEmpty) {
		return nil, fmt.Errorf("%s is empty", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("dequeue from %s: %w", dir, err)
	}
	return data, nil
}

func (a *actor) queue(dir, format string) (*recipes.Queue, error) {
	if format != "zookeeper-recipes" && format != "zkx" && format != "" {
		return nil, fmt.Errorf("zkx enqueues and dequeues only qn- queues (ZooKeeper's and Curator's simple queue); this one is %s", format)
	}
	s, err := a.recipeSession()
	if err != nil {
		return nil, err
	}
	return recipes.NewQueue(s, a.client.Abs(dir)), nil
}

// Volunteer stands as a candidate in the election at dir and blocks
// until the explorer leads, Resign withdraws, or ctx ends.
func (a *actor) Volunteer(ctx context.Context, dir, format string) error {
	if format != "zkx" && format != "curator" && format != "" {
		return fmt.Errorf("zkx stands only in Curator LeaderLatch and zkx elections; this one is %s", format)
	}
	s, err := a.recipeSession()
	if err != nil {
		return err
	}
	a.mu.Lock()
	if _, busy := a.campaigns[dir]; busy {
		a.mu.Unlock()
		return fmt.Errorf("you already stand in %s", dir)
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &campaign{election: recipes.NewElection(s, a.client.Abs(dir)), cancel: cancel, over: make(chan struct{})}
	a.campaigns[dir] = c
	a.mu.Unlock()

	err = c.election.Campaign(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		delete(a.campaigns, dir)
		cancel()
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("withdrew from %s", dir)
		}
		return fmt.Errorf("campaign in %s: %w", dir, err)
	}
	c.leader = true
	go func(lost <-chan struct{}) {
		select {
		case <-lost:
		case <-c.over:
			return
		}
		a.mu.Lock()
		if a.campaigns[dir] == c {
			delete(a.campaigns, dir)
		}
		a.mu.Unlock()
	}(c.election.Done())
	return nil
}

// Resign gives up leadership or candidacy in dir.
func (a *actor) Resign(ctx context.Context, dir string) error {
	a.mu.Lock()
	c := a.campaigns[dir]
	if c == nil {
		a.mu.Unlock()
		return fmt.Errorf("you do not stand in %s", dir)
	}
	if !c.leader {
		a.mu.Unlock()
		c.cancel()
		return nil
	}
	delete(a.campaigns, dir)
	a.mu.Unlock()
	close(c.over)
	defer c.cancel()
	if err := c.election.Resign(ctx); err != nil {
		return fmt.Errorf("resign from %s: %w", dir, err)
	}
	return nil
}

// CampaignState reports whether the explorer stands in or leads dir.
func (a *actor) CampaignState(dir string) actorState {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch c := a.campaigns[dir]; {
	case c == nil:
		return actorNone
	case c.leader:
		return actorHolding
	default:
		return actorWaiting
	}
}

// Close releases everything the explorer holds: waits are cancelled and
// locks and candidacies released, best effort, within ctx.
func (a *actor) Close(ctx context.Context) {
	a.mu.Lock()
	locks, campaigns := a.locks, a.campaigns
	a.locks, a.campaigns = map[string]*heldLock{}, map[string]*campaign{}
	a.mu.Unlock()
	for _, h := range locks {
		if h.held {
			close(h.over)
			_ = h.mutex.Unlock(ctx)
		}
		h.cancel()
	}
	for _, c := range campaigns {
		if c.leader {
			close(c.over)
			_ = c.election.Resign(ctx)
		}
		c.cancel()
	}
}
