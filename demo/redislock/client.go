package redislock

import (
	"context"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Dialer opens a connection to a Redis server; nil dials plainly.
type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

// NewClient returns a go-redis client for addr whose connect handshake
// every Redis from 6.0 on, and miniredis, accept without an error: RESP2
// (HELLO 2 rather than 3), no CLIENT SETINFO (Redis 7.2+) and no
// CLIENT MAINT_NOTIFICATIONS, so the server's error statistics stay clean.
// Commands are never retried: a SET NX sent twice could take the lock and
// then report it taken by someone else.
func NewClient(addr string, dial Dialer) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		Dialer:                   dial,
		Protocol:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		MaxRetries:               -1,
		DialTimeout:              5 * time.Second,
		PoolSize:                 4, // the contender and its watchdog
	})
}
