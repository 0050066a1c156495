package demo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zkx-dev/zkx/demo/redislock"
)

// RedisKey is the Redis lane's lock key as last read from the server.
type RedisKey struct {
	Key   string
	Token string        // "" when the key is absent
	Owner int           // the contender the token belongs to, 0 if unknown
	TTL   time.Duration // the remaining lease when read
	At    time.Time     // when it was read
	Err   string        // the read failed
}

// Remaining is the TTL left at now, counting down from the last read.
func (k RedisKey) Remaining(now time.Time) time.Duration {
	if k.Token == "" || k.At.IsZero() {
		return 0
	}
	return max(k.TTL-now.Sub(k.At), 0)
}

// inspectEvery is how often the Redis lane's key is read for the view.
const inspectEvery = 100 * time.Millisecond

// redisInspector reads the lock's key and TTL on a client of its own, for
// the view: who holds it, and how long its lease has left.
type redisInspector struct {
	client *redis.Client
	key    string
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	seen RedisKey
}

func startRedisInspector(addr, key string) *redisInspector {
	ctx, cancel := context.WithCancel(context.Background())
	r := &redisInspector{client: redislock.NewClient(addr, nil), key: key, cancel: cancel, done: make(chan struct{})}
	r.seen = RedisKey{Key: key}
	go r.run(ctx)
	return r
}

func (r *redisInspector) run(ctx context.Context) {
	defer close(r.done)
	tick := time.NewTicker(inspectEvery)
	defer tick.Stop()
	for {
		r.read(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (r *redisInspector) read(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	pipe := r.client.Pipeline()
	get := pipe.Get(rctx, r.key)
	pttl := pipe.PTTL(rctx, r.key)
	_, err := pipe.Exec(rctx)
	k := RedisKey{Key: r.key, At: time.Now()}
	switch {
	case err != nil && !errors.Is(err, redis.Nil):
		if ctx.Err() != nil {
			return
		}
		k.Err = err.Error()
	case get.Err() == nil:
		k.Token = get.Val()
		k.Owner = tokenOwner(k.Token)
		k.TTL = max(pttl.Val(), 0)
	}
	r.mu.Lock()
	r.seen = k
	r.mu.Unlock()
}

func (r *redisInspector) last() RedisKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

func (r *redisInspector) stop() {
	r.cancel()
	<-r.done
	r.client.Close()
}
