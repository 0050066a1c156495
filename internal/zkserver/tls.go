package zkserver

import (
	"crypto/tls"
	"fmt"
	"net"
)

// ListenTLS serves TLS connections on addr too, as ZooKeeper's
// secureClientPort does (beside the plain port): four-letter words
// included. cfg carries the server's certificate and, when client
// certificates are required, the CA that must have signed them. It
// returns the address listened on (port 0 picks a free one).
func (s *Server) ListenTLS(addr string, cfg *tls.Config) (net.Addr, error) {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("zkserver: listen on %s: %w", addr, err)
	}
	ln := tls.NewListener(raw, cfg)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return nil, fmt.Errorf("zkserver: closed")
	}
	s.secure = append(s.secure, ln)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.serve(ln)
	}()
	s.cfg.Logger.Info("zkserver listening (TLS)", "addr", ln.Addr().String())
	return ln.Addr(), nil
}
