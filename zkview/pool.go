package zkview

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
)

// Pool spreads bulk reads over several sessions. A ZooKeeper server works
// through each connection's requests in order, so one connection caps a
// walk of a large tree; a handful of them lets the server use its cores.
// A Pool is a Reader.
type Pool struct {
	clients []*Client
	next    atomic.Uint64
	owner   *Client // closed with the pool, when it was dialed for it
}

// DialPool opens n sessions to connect (with the same options).
func DialPool(ctx context.Context, connect string, n int, opts ...Option) (*Pool, error) {
	if n < 1 {
		n = 1
	}
	p := &Pool{clients: make([]*Client, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range p.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.clients[i], errs[i] = Dial(ctx, connect, opts...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// DialPool opens n more sessions as c was opened (same servers,
// credentials and options), for a bulk read beside c's own session: a
// scan that should not queue behind, or in front of, c's requests.
func (c *Client) DialPool(ctx context.Context, n int) (*Pool, error) {
	return DialPool(ctx, c.connect, n, c.opts...)
}

func (p *Pool) pick() *Client { return p.clients[p.next.Add(1)%uint64(len(p.clients))] }

// Children lists a node's children on one of the pool's sessions.
func (p *Pool) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	return p.pick().Children(ctx, path)
}

// Get reads a node on one of the pool's sessions.
func (p *Pool) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	return p.pick().Get(ctx, path)
}

// ACL reads a node's ACL on one of the pool's sessions.
func (p *Pool) ACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	return p.pick().ACL(ctx, path)
}

// Close ends every session of the pool.
func (p *Pool) Close() {
	for _, c := range p.clients {
		if c != nil {
			c.Close()
		}
	}
	if p.owner != nil {
		p.owner.Close()
	}
}
