package demo

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// netGate is a contender's network, under the demo's control: it can be
// frozen, as a process in a stop-the-world pause is (nothing read, nothing
// written: no ZooKeeper pings, no lease renewals, though the client's own
// goroutines still run), and severed, as a crashed process's connections
// are (cut, and no new one made).
type netGate struct {
	mu      sync.Mutex
	severed bool
	frozen  chan struct{} // closed on thaw; nil when not frozen
	conns   []net.Conn
}

var errCrashed = errors.New("demo: this contender crashed")

// dial connects for go-redis.
func (g *netGate) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.severed {
		return nil, errCrashed
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	g.conns = append(g.conns, c)
	return gatedConn{Conn: c, gate: g}, nil
}

// zkDial connects for go-zookeeper.
func (g *netGate) zkDial(network, addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return g.dial(ctx, network, addr)
}

// freeze stops all traffic until thaw.
func (g *netGate) freeze() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.frozen == nil {
		g.frozen = make(chan struct{})
	}
}

func (g *netGate) thaw() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.frozen != nil {
		close(g.frozen)
		g.frozen = nil
	}
}

// sever cuts every connection and refuses new ones.
func (g *netGate) sever() {
	g.mu.Lock()
	g.severed = true
	conns := g.conns
	g.conns = nil
	g.mu.Unlock()
	g.thaw()
	for _, c := range conns {
		c.Close()
	}
}

// wait blocks while the gate is frozen.
func (g *netGate) wait() {
	g.mu.Lock()
	ch := g.frozen
	g.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

// gatedConn holds back what it reads and writes while its gate is frozen:
// a read that was already waiting on the socket (the client always has
// one) delivers its bytes only after the thaw.
type gatedConn struct {
	net.Conn
	gate *netGate
}

func (c gatedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.gate.wait()
	return n, err
}

func (c gatedConn) Write(b []byte) (int, error) {
	c.gate.wait()
	return c.Conn.Write(b)
}
