package zkserver

import (
	"net"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// The server's bounds (Config.MaxClientCnxns, MaxTreeBytes, MaxWatches):
// what one client may take of a server that others share. Each refusal is
// what ZooKeeper answers in the nearest case: a connection past
// maxClientCnxns closed unanswered, a write past an enforced quota
// refused with QUOTAEXCEEDED, a request it will not execute refused with
// THROTTLEDOP.

// nodeOverhead is what a node costs the server beyond its path and data
// (its struct, its entries in the tree's and its parent's maps), measured
// at about 250 bytes for an empty leaf.
const nodeOverhead = 256

// treeBytes is the tree's size as MaxTreeBytes bounds it: ZooKeeper's
// approximate data size (every path and datum) and nodeOverhead a node.
// The caller holds s.mu.
func (t *tree) treeBytes() int64 { return t.dataSize + nodeOverhead*int64(len(t.nodes)) }

// roomForLocked says whether the tree may grow by grow bytes:
// ErrQuotaExceeded when that would pass MaxTreeBytes.
func (s *Server) roomForLocked(grow int64) jute.Code {
	if s.cfg.MaxTreeBytes <= 0 || grow <= 0 || s.tree.treeBytes()+grow <= s.cfg.MaxTreeBytes {
		return jute.ErrOK
	}
	s.cfg.Logger.Warn("refusing a write: the tree would pass its bound", "bytes", s.tree.treeBytes(), "grow", grow, "max", s.cfg.MaxTreeBytes)
	return jute.ErrQuotaExceeded
}

// createGrowth is what a create adds to the tree.
func createGrowth(path string, data []byte) int64 { return int64(len(path)+len(data)) + nodeOverhead }

// admitLocked counts a new connection against its address's bound; false
// when the address has MaxClientCnxns already (the caller closes it).
func (s *Server) admitLocked(c *conn) bool {
	if c.ip == "" { // an in-process pipe (Pipe): no address to bound
		return true
	}
	if s.cfg.MaxClientCnxns > 0 && s.perAddress[c.ip] >= s.cfg.MaxClientCnxns {
		s.refused++
		if now := time.Now(); now.Sub(s.refusedLogged) >= time.Second {
			// Logged at most once a second, with the count since: a client
			// in a reconnect loop would fill the log otherwise.
			s.cfg.Logger.Warn("too many connections from one address: closed", "addr", c.ip, "max", s.cfg.MaxClientCnxns, "refused", s.refused)
			s.refusedLogged, s.refused = now, 0
		}
		return false
	}
	s.perAddress[c.ip]++
	c.counted = true
	return true
}

// releaseLocked gives back a connection's place in its address's count.
func (s *Server) releaseLocked(c *conn) {
	if !c.counted {
		return
	}
	c.counted = false
	if s.perAddress[c.ip]--; s.perAddress[c.ip] <= 0 {
		delete(s.perAddress, c.ip)
	}
}

// closeAtOnce drops a refused connection as ZooKeeper's fastCloseSock
// does: a reset, no linger.
func closeAtOnce(nc net.Conn) {
	if tcp, ok := nc.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	nc.Close()
}

// watchRefusalLocked is THROTTLEDOP for a request that would set watches
// past MaxWatches (body: the request after its header); ErrOK otherwise.
// Such a request is not executed at all.
func (s *Server) watchRefusalLocked(op jute.Op, body []byte) jute.Code {
	if s.cfg.MaxWatches <= 0 {
		return jute.ErrOK
	}
	need := watchesAsked(op, body)
	if need == 0 || s.watches.count()+need <= s.cfg.MaxWatches {
		return jute.ErrOK
	}
	s.cfg.Logger.Warn("refusing a request: the watches would pass their bound", "watches", s.watches.count(), "asked", need, "max", s.cfg.MaxWatches)
	return jute.ErrThrottled
}

// watchesAsked is how many watches a request may set (at most: one that
// is there already is not set twice).
func watchesAsked(op jute.Op, body []byte) int {
	d := jute.NewDecoder(body)
	switch op {
	case jute.OpExists, jute.OpGetData, jute.OpGetChildren, jute.OpGetChildren2:
		var req jute.PathWatchRequest
		if req.Decode(d); d.Err() == nil && req.Watch {
			return 1
		}
	case jute.OpAddWatch:
		return 2 // in the data and the child tables
	case jute.OpSetWatches, jute.OpSetWatches2:
		req := jute.SetWatches{HasPersistent: op == jute.OpSetWatches2}
		if req.Decode(d); d.Err() == nil {
			return len(req.DataWatches) + len(req.ExistWatches) + len(req.ChildWatches) +
				2*(len(req.PersistentWatches)+len(req.PersistentRecursiveWatches))
		}
	case jute.OpMultiRead:
		var req jute.MultiRequest
		req.Decode(d)
		n := 0
		for _, op := range req.Ops {
			if r, ok := op.Rec.(*jute.PathWatchRequest); ok && r.Watch {
				n++
			}
		}
		return n
	}
	return 0
}
