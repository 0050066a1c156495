package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/syslayout"
	"github.com/zkx-dev/zkx/recipes"
)

// SeedOptions configure Seed.
type SeedOptions struct {
	Servers []string
	// Base is the directory the state goes under (default Base).
	Base string
	// Rotate is how long a seeded holder holds before it lets the next
	// one in and queues again, so the explorer shows locks changing hands;
	// zero holds for ever (tests). The stuck lock never rotates.
	Rotate time.Duration
	// Session adds options to every seeded session (credentials).
	Session []recipes.SessionOption
}

// SeedPaths name what Seed sets up, each under the base.
var SeedPaths = struct {
	Services, Config, ZkxLock, CuratorLock, KazooLock, StuckLock, RWLock, Semaphore, Queue, Election, Systems string
}{
	Services:    "services",
	Config:      "config",
	ZkxLock:     "app/locks/orders",
	CuratorLock: "app/locks/payments",
	KazooLock:   "app/locks/inventory",
	StuckLock:   "app/locks/nightly-report",
	RWLock:      "app/locks/catalog",
	Semaphore:   "app/semaphores/exports",
	Queue:       "queues/jobs",
	Election:    "elections/scheduler",
	Systems:     "systems",
}

// seedRoots are the directories Seed creates under the base, removed by
// Close.
var seedRoots = []string{"services", "config", "app", "queues", "elections", "systems"}

// seedSessionTimeout is short, so a seeded node outlives a killed zkx by
// seconds only.
const seedSessionTimeout = 6 * time.Second

// Seeded is the state Seed set up: its contenders keep their sessions
// (and so their nodes) until Close.
type Seeded struct {
	Base string

	opts   SeedOptions
	admin  *recipes.Session
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	sessions []*recipes.Session
}

// Sessions returns how many sessions (connections) the seeded state keeps
// open.
func (s *Seeded) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Seed sets up realistic coordination state under o.Base for the explorer
// to find: services registered as Curator's ServiceDiscovery registers
// them, with JSON config; mutexes laid out as zkx, Curator and Kazoo lay
// them out, a stuck one, a read-write lock and a semaphore, each with a
// holder and waiters in sessions of their own; a queue of JSON jobs; an
// election with a leader and candidates. On error what was set up is
// released.
func Seed(ctx context.Context, o SeedOptions) (*Seeded, error) {
	if o.Base == "" {
		o.Base = Base
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &Seeded{Base: o.Base, opts: o, ctx: sctx, cancel: cancel}
	admin, err := s.dial()
	if err != nil {
		cancel()
		return nil, err
	}
	s.admin = admin
	steps := []func(context.Context) error{
		s.seedServices, s.seedQueue, s.seedLocks, s.seedRWLock, s.seedSemaphore, s.seedElection, s.seedSystems,
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("seed %s: %w", o.Base, err)
		}
	}
	return s, nil
}

// Path returns the absolute path of one of SeedPaths.
func (s *Seeded) Path(rel string) string { return path.Join(s.Base, rel) }

// dial opens a session of its own for one seeded client.
func (s *Seeded) dial() (*recipes.Session, error) {
	opts := append([]recipes.SessionOption{recipes.WithSessionTimeout(seedSessionTimeout)}, s.opts.Session...)
	sess, err := recipes.Dial(s.opts.Servers, opts...)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.sessions = append(s.sessions, sess)
	s.mu.Unlock()
	return sess, nil
}

// seedServices registers service instances (ephemeral, as Curator's
// DYNAMIC instances are) and writes each service's config.
func (s *Seeded) seedServices(ctx context.Context) error {
	services := []struct {
		name  string
		port  int
		addrs []string
		cfg   map[string]any
	}{
		{"orders", 8080, []string{"10.0.3.17", "10.0.3.18"}, map[string]any{
			"db":           map[string]any{"url": "jdbc:postgresql://db-orders:5432/orders", "pool": 20},
			"featureFlags": map[string]bool{"newCheckout": true, "splitPayments": false}, "timeoutMs": 2500}},
		{"payments", 8443, []string{"10.0.4.21"}, map[string]any{
			"provider": "acquirer-eu", "retry": map[string]any{"max": 3, "backoffMs": 200}, "currencies": []string{"EUR", "USD", "GBP"}}},
		{"inventory", 9090, []string{"10.0.5.9", "10.0.5.10"}, map[string]any{
			"cache": map[string]any{"ttlSeconds": 30, "maxEntries": 50000}, "warehouses": []string{"ams-1", "fra-2"}}},
	}
	conn := s.admin.Conn()
	registered := time.Now().UnixMilli()
	for _, svc := range services {
		cfg, err := json.MarshalIndent(svc.cfg, "", "  ")
		if err != nil {
			return err
		}
		if err := s.create(ctx, path.Join(s.Base, SeedPaths.Config, svc.name), cfg, zk.FlagPersistent); err != nil {
			return err
		}
		dir := path.Join(s.Base, SeedPaths.Services, svc.name)
		if err := s.create(ctx, dir, nil, zk.FlagPersistent); err != nil {
			return err
		}
		for i, addr := range svc.addrs {
			id := syslayout.InstanceID(i, svc.port, registered+int64(i))
			data, err := json.Marshal(syslayout.NewServiceInstance(svc.name, id, addr, svc.port, registered))
			if err != nil {
				return err
			}
			if _, err := conn.Create(path.Join(dir, id), data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
				return fmt.Errorf("register %s instance %s: %w", svc.name, id, err)
			}
		}
	}
	return nil
}

// create makes a persistent node and its parents; one that exists is
// given the data.
func (s *Seeded) create(ctx context.Context, p string, data []byte, flags int32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	conn := s.admin.Conn()
	acl := zk.WorldACL(zk.PermAll)
	// Parents first, top down.
	var parents []string
	for dir := path.Dir(p); dir != "/" && dir != "."; dir = path.Dir(dir) {
		parents = append([]string{dir}, parents...)
	}
	for _, dir := range parents {
		if _, err := conn.Create(dir, nil, zk.FlagPersistent, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	if _, err := conn.Create(p, data, flags, acl); err != nil {
		if !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
		if _, err := conn.Set(p, data, -1); err != nil {
			return fmt.Errorf("set %s: %w", p, err)
		}
	}
	return nil
}

// seedQueue puts JSON jobs in a queue laid out as ZooKeeper's
// DistributedQueue and Curator's SimpleDistributedQueue (qn-SEQ).
func (s *Seeded) seedQueue(ctx context.Context) error {
	q := recipes.NewQueue(s.admin, path.Join(s.Base, SeedPaths.Queue))
	jobs := []map[string]any{
		{"job": "resize-images", "bucket": "uploads-2025-03", "priority": "low"},
		{"job": "send-invoice", "order": 48213, "email": "billing@example.com"},
		{"job": "reindex", "index": "catalog", "shards": 12},
		{"job": "send-invoice", "order": 48214, "email": "ap@example.org"},
		{"job": "export-report", "report": "daily-sales", "format": "csv"},
		{"job": "expire-carts", "olderThanHours": 48},
	}
	for _, j := range jobs {
		data, err := json.Marshal(j)
		if err != nil {
			return err
		}
		if _, err := q.Put(ctx, data); err != nil {
			return fmt.Errorf("queue %s: %w", SeedPaths.Queue, err)
		}
	}
	return nil
}

// seedLock is one lock directory to seed: its format, and the data each
// contender writes (nil: zkx's "host pid").
type seedLock struct {
	dir    string
	opts   []recipes.Option
	data   []string
	rotate bool
}

// seedLocks seeds the mutexes: one holder and waiters each.
func (s *Seeded) seedLocks(ctx context.Context) error {
	locks := []seedLock{
		{dir: SeedPaths.ZkxLock, data: []string{"", "", ""}, rotate: true},
		// Curator writes the client's IP address by default.
		{dir: SeedPaths.CuratorLock, data: []string{"10.0.4.21", "10.0.4.22", "10.0.4.23"}, rotate: true},
		// Kazoo writes the lock's identifier.
		{dir: SeedPaths.KazooLock, opts: []recipes.Option{recipes.WithFormat(recipes.Kazoo)},
			data: []string{"inventory-worker-1", "inventory-worker-2", "inventory-worker-3"}, rotate: true},
		// The stuck lock: taken at seed time and never let go.
		{dir: SeedPaths.StuckLock, data: []string{"10.0.7.3", "10.0.7.4"}},
	}
	for _, l := range locks {
		dir := path.Join(s.Base, l.dir)
		for i, d := range l.data {
			opts := append([]recipes.Option(nil), l.opts...)
			if d != "" {
				opts = append(opts, recipes.WithData([]byte(d)))
			}
			sess, err := s.dial()
			if err != nil {
				return err
			}
			m := recipes.NewMutex(sess, dir, opts...)
			hold := s.opts.Rotate
			if !l.rotate {
				hold = 0
			}
			s.run(func(ctx context.Context) (func(context.Context) error, error) {
				if err := m.Lock(ctx); err != nil {
					return nil, err
				}
				return m.Unlock, nil
			}, hold)
			if err := s.waitChildren(ctx, dir, i+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedRWLock seeds a read-write lock in Curator's layout: two readers
// share it, a writer waits for them, and a reader waits behind the writer.
func (s *Seeded) seedRWLock(ctx context.Context) error {
	dir := path.Join(s.Base, SeedPaths.RWLock)
	for i, writer := range []bool{false, false, true, false} {
		sess, err := s.dial()
		if err != nil {
			return err
		}
		rw := recipes.NewRWMutex(sess, dir, recipes.WithData([]byte(fmt.Sprintf("10.0.6.%d", 30+i))))
		if writer {
			s.run(func(ctx context.Context) (func(context.Context) error, error) {
				return rw.Unlock, rw.Lock(ctx)
			}, s.opts.Rotate)
		} else {
			s.run(func(ctx context.Context) (func(context.Context) error, error) {
				return rw.RUnlock, rw.RLock(ctx)
			}, s.opts.Rotate)
		}
		if err := s.waitChildren(ctx, dir, i+1); err != nil {
			return err
		}
	}
	return nil
}

// seedSemaphore seeds a Curator semaphore of two leases, both taken, and
// a third client waiting for one.
func (s *Seeded) seedSemaphore(ctx context.Context) error {
	dir := path.Join(s.Base, SeedPaths.Semaphore)
	for i := 0; i < 3; i++ {
		sess, err := s.dial()
		if err != nil {
			return err
		}
		sem := recipes.NewSemaphore(sess, dir, 2, recipes.WithData([]byte(fmt.Sprintf("10.0.8.%d", 11+i))))
		s.run(func(ctx context.Context) (func(context.Context) error, error) {
			lease, err := sem.Acquire(ctx)
			if err != nil {
				return nil, err
			}
			return lease.Release, nil
		}, s.opts.Rotate)
		if err := s.waitChildren(ctx, path.Join(dir, "leases"), i+1); err != nil {
			return err
		}
	}
	return nil
}

// seedElection seeds an election in Curator's LeaderLatch layout: a leader
// and two candidates behind it. Leaders do not rotate: a leader leads
// until it goes.
func (s *Seeded) seedElection(ctx context.Context) error {
	dir := path.Join(s.Base, SeedPaths.Election)
	for i := 0; i < 3; i++ {
		sess, err := s.dial()
		if err != nil {
			return err
		}
		e := recipes.NewElection(sess, dir, recipes.WithData([]byte(fmt.Sprintf("scheduler-%d", i+1))))
		s.run(func(ctx context.Context) (func(context.Context) error, error) {
			return e.Resign, e.Campaign(ctx)
		}, 0)
		if err := s.waitChildren(ctx, dir, i+1); err != nil {
			return err
		}
	}
	return nil
}

// run keeps a contender going until Close: acquire, hold for hold (for
// ever when zero), release, and queue again.
func (s *Seeded) run(acquire func(context.Context) (func(context.Context) error, error), hold time.Duration) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			release, err := acquire(s.ctx)
			if err != nil {
				if s.ctx.Err() != nil || errors.Is(err, recipes.ErrSessionLost) {
					return
				}
				if !sleep(s.ctx, time.Second) { // connection trouble: try again
					return
				}
				continue
			}
			if hold <= 0 {
				<-s.ctx.Done()
				return // Close ends the session, and the node with it
			}
			if !sleep(s.ctx, hold) {
				return
			}
			rctx, cancel := context.WithTimeout(context.Background(), seedSessionTimeout)
			release(rctx)
			cancel()
		}
	}()
}

// waitChildren waits until dir has at least n children, so contenders
// queue in the order they were started.
func (s *Seeded) waitChildren(ctx context.Context, dir string, n int) error {
	deadline := time.Now().Add(15 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		children, _, err := s.admin.Conn().Children(dir)
		if err == nil && len(children) >= n {
			return nil
		}
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("list %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d of %d contenders in line after 15s", dir, len(children), n)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close releases everything Seed set up: the contenders stop, their
// sessions close (their nodes go at once), and the seeded directories are
// deleted.
func (s *Seeded) Close() error {
	s.cancel()
	s.wg.Wait()
	s.mu.Lock()
	sessions := s.sessions
	s.sessions = nil
	s.mu.Unlock()
	var errs []error
	for _, sess := range sessions {
		if sess != s.admin {
			sess.Close()
		}
	}
	if s.admin != nil {
		for _, root := range seedRoots {
			if err := deleteTree(s.admin.Conn(), path.Join(s.Base, root)); err != nil {
				errs = append(errs, err)
			}
		}
		s.admin.Close()
	}
	return errors.Join(errs...)
}

// deleteTree deletes p and everything below it; a node already gone is
// fine.
func deleteTree(conn *zk.Conn, p string) error {
	children, _, err := conn.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", p, err)
	}
	for _, c := range children {
		if err := deleteTree(conn, path.Join(p, c)); err != nil {
			return err
		}
	}
	if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	return nil
}
