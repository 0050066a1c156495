package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/zkx-dev/zkx/demo/redislock"
)

// StartRedis returns the Redis the redis lane runs on: addr, checked with
// a PING, or, when addr is "", an embedded miniredis whose keys expire in
// real time (ClockTTL), as a real server's do; stop lets it go.
func StartRedis(ctx context.Context, addr string, progress io.Writer) (where string, stop func(), err error) {
	if addr != "" {
		c := redislock.NewClient(addr, nil)
		defer c.Close()
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := c.Ping(pctx).Err(); err != nil {
			return "", nil, fmt.Errorf("--redis %s: %w", addr, err)
		}
		return addr, func() {}, nil
	}
	m := miniredis.NewMiniRedis()
	m.ClockTTL(true)
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		return "", nil, fmt.Errorf("embedded Redis: %w", err)
	}
	if progress != nil {
		fmt.Fprintf(progress, "embedded Redis (miniredis) on %s\n", m.Addr())
	}
	return m.Addr(), m.Close, nil
}
