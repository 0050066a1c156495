package demo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/redis/go-redis/v9"

	"github.com/zkx-dev/zkx/demo/redislock"
	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/recipes"
)

// locker is one contender's client and lock: a ZooKeeper session with a
// recipes.Mutex, or a Redis client with a redislock.Lock. The contender's
// loop is the same for both.
type locker interface {
	// lock waits for the lock and returns its fencing token (0: none).
	lock(ctx context.Context) (int64, error)
	unlock(ctx context.Context) error
	// broken reports that the client must start afresh before it can lock
	// again (its ZooKeeper session expired).
	broken() bool
	// session names the client (a ZooKeeper session id; 0 for Redis).
	session() int64
	freeze()
	thaw()
	// crash dies as a killed process: no release, no goodbye.
	crash()
	// close leaves cleanly: a held lock is released at once.
	close()
}

// zkLocker locks with a recipes.Mutex in a session of its own.
type zkLocker struct {
	gate  *netGate
	conn  *zk.Conn
	sess  *recipes.Session
	mutex *recipes.Mutex
	// timeout is the session timeout asked for.
	timeout time.Duration
}

func dialZK(l *Lane, id int, observe lockstats.Observer) (*zkLocker, error) {
	g := &netGate{}
	timeout := l.cfg.SessionTimeout
	conn, events, err := zk.Connect(l.cfg.Servers, timeout, zk.WithDialer(g.zkDial), zk.WithLogInfo(false), zk.WithLogger(quietLogger{}))
	if err != nil {
		return nil, err
	}
	sess, err := recipes.NewSession(conn, events, recipes.WithConnectTimeout(15*time.Second), recipes.WithSessionTimeout(timeout))
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("contender %d: %w", id, err)
	}
	instruments := lockstats.RecipeOption(lockstats.Instruments{
		Stats: l.stats, Observer: observe, Strategy: l.Kind.strategy(), PollInterval: l.cfg.Poll,
	}).(recipes.Option)
	m := recipes.NewMutex(sess, l.cfg.Dir, recipes.WithLookahead(false), instruments,
		recipes.WithData([]byte(fmt.Sprintf("demo %s contender %d", l.Name, id))))
	return &zkLocker{gate: g, conn: conn, sess: sess, mutex: m, timeout: timeout}, nil
}

func (z *zkLocker) lock(ctx context.Context) (int64, error) {
	if err := z.mutex.Lock(ctx); err != nil {
		return 0, err
	}
	return z.mutex.Token().Zxid, nil
}

func (z *zkLocker) unlock(ctx context.Context) error { return z.mutex.Unlock(ctx) }

func (z *zkLocker) broken() bool {
	select {
	case <-z.sess.Done():
		return true
	default:
		return false
	}
}

func (z *zkLocker) session() int64 { return z.sess.ID() }
func (z *zkLocker) freeze()        { z.gate.freeze() }
func (z *zkLocker) thaw()          { z.gate.thaw() }

// crash cuts the connection and makes no new one: the server frees the
// lock only when the session expires, a session timeout later.
func (z *zkLocker) crash() {
	z.gate.sever()
	go z.conn.Close() // tries to say goodbye on a severed line: gives up quickly
}

// close ends the session: its node goes at once.
func (z *zkLocker) close() {
	z.sess.Close()
	z.conn.Close()
}

// redisLocker locks with a redislock.Lock on a client of its own.
type redisLocker struct {
	gate   *netGate
	client *redis.Client
	lk     *redislock.Lock
}

func dialRedis(ctx context.Context, l *Lane, id int, observe lockstats.Observer) (*redisLocker, error) {
	g := &netGate{}
	client := redislock.NewClient(l.cfg.Redis, g.dial)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("redis %s: %w", l.cfg.Redis, err)
	}
	lk := redislock.New(client, l.cfg.Key, redislock.WithLease(l.cfg.Lease), redislock.WithRetry(l.cfg.Poll),
		redislock.WithStats(l.stats), redislock.WithObserver(observe), redislock.WithRenewals(&l.renewals),
		redislock.WithOwner(redisOwner(id)))
	return &redisLocker{gate: g, client: client, lk: lk}, nil
}

// redisOwner starts a contender's tokens, so the lane can tell from the
// key who holds it.
func redisOwner(id int) string { return fmt.Sprintf("contender-%d", id) }

// tokenOwner reads the contender id from a token, 0 when it is not one of
// ours.
func tokenOwner(token string) int {
	var id int
	rest, ok := strings.CutPrefix(token, "contender-")
	if !ok {
		return 0
	}
	if _, err := fmt.Sscanf(rest, "%d:", &id); err != nil {
		return 0
	}
	return id
}

func (r *redisLocker) lock(ctx context.Context) (int64, error) { return 0, r.lk.Lock(ctx) }

func (r *redisLocker) unlock(ctx context.Context) error { return r.lk.Unlock(ctx) }

func (r *redisLocker) broken() bool   { return false }
func (r *redisLocker) session() int64 { return 0 }
func (r *redisLocker) freeze()        { r.gate.freeze() }
func (r *redisLocker) thaw()          { r.gate.thaw() }

// crash stops the watchdog and the connections, releasing nothing: the
// key goes when its lease runs out.
func (r *redisLocker) crash() {
	r.lk.Abandon()
	r.gate.sever()
	r.client.Close()
}

// close releases a held lock and closes the client.
func (r *redisLocker) close() {
	if r.lk.Token() != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := r.lk.Unlock(ctx)
		cancel()
		_ = err // gone already (the lease ran out): nothing left to release
	}
	r.client.Close()
}

// isLost reports an error that means the lock or session is gone.
func isLost(err error) bool {
	return errors.Is(err, recipes.ErrSessionLost) || errors.Is(err, redislock.ErrNotHeld)
}
