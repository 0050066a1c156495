package zkserver

import "time"

// Containers and TTL nodes are removed by the server itself, in their own
// transactions (ZooKeeper's ContainerManager, deleteContainer). ZooKeeper
// scans for them every checkIntervalMs; here a deletion or a TTL deadline
// schedules a check of just the node concerned, so nothing polls.

// afterDelete looks at the parent of a deleted node: an emptied container
// (one that ever had a child) goes, and an emptied TTL node may be due.
// The caller holds s.mu.
func (s *Server) afterDelete(path string) {
	if t := s.timers[path]; t != nil {
		t.Stop()
		delete(s.timers, path)
	}
	if path == "/" {
		return
	}
	parentPath, _ := splitPath(path)
	parent := s.tree.get(parentPath)
	if parent == nil || len(parent.children) > 0 {
		return
	}
	switch parent.kind() {
	case kindContainer:
		s.scheduleReapAt(parentPath, time.Now())
	case kindTTL:
		s.scheduleReap(parentPath, parent)
	}
}

// scheduleReap arms a check of a TTL node for when its TTL runs out.
func (s *Server) scheduleReap(path string, n *node) {
	s.scheduleReapAt(path, time.UnixMilli(n.mtime+ttlOf(n.owner)+1))
}

func (s *Server) scheduleReapAt(path string, at time.Time) {
	if t := s.timers[path]; t != nil {
		t.Stop()
	}
	s.timers[path] = time.AfterFunc(time.Until(at), func() { s.reap(path) })
}

// reap deletes path if it is still an empty container that once had
// children, or an empty TTL node whose TTL has passed since its last change.
func (s *Server) reap(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.timers, path)
	if s.closed {
		return
	}
	if s.pause.paused() { // a frozen server removes nothing; look again later
		s.scheduleReapAt(path, time.Now().Add(s.cfg.TickTime))
		return
	}
	n := s.tree.get(path)
	if n == nil || len(n.children) > 0 {
		return
	}
	switch n.kind() {
	case kindContainer:
		if n.cversion == 0 {
			return
		}
	case kindTTL:
		if left := time.Until(time.UnixMilli(n.mtime + ttlOf(n.owner))); left >= 0 {
			s.scheduleReapAt(path, time.Now().Add(left+time.Millisecond))
			return
		}
	default:
		return
	}
	zxid := s.nextZxid()
	s.deliver([]change{s.tree.remove(path, zxid, nil)})
}
