package fakezk

import (
	"errors"
	"net"
	"sync"
	"testing"
)

// Behaviour is what a fake server does with one accepted connection. It
// returns when it is done with it (the connection is then closed) or when
// the peer's connection fails.
type Behaviour func(p *Peer)

// Server is a fake ZooKeeper server on a loopback port.
type Server struct {
	ln        net.Listener
	behaviour Behaviour

	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
	done   chan struct{}
	wg     sync.WaitGroup
}

// Start listens on a free loopback port and serves b there until Close.
func Start(b Behaviour) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, behaviour: b, conns: map[net.Conn]bool{}, done: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// New starts a server for a test and closes it when the test ends.
func New(t testing.TB, b Behaviour) *Server {
	t.Helper()
	s, err := Start(b)
	if err != nil {
		t.Fatalf("fakezk: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops listening, closes every connection and waits for the
// behaviours to return.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
		s.ln.Close()
		for c := range s.conns {
			c.Close()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				continue
			}
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			s.behaviour(newPeer(c, s.done))
		}()
	}
}
