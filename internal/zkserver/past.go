package zkserver

import (
	"crypto/rand"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// A read-only server (Config.ReadOnly) shows a state its caller rebuilds
// from ZooKeeper's files (zkview/forensics: a snapshot, then the log
// replayed): Past is how the caller loads and changes it. Every change is
// applied under the server's lock and notifies the watches it fires, as a
// live server's would, so a client sees a step in time as live changes.
// The caller keeps the bookkeeping a transaction implies (a parent's
// cversion and pzxid, an ephemeral's session): Past stores what it is given.

// PastNode is a znode as a snapshot stores it (StatPersisted): Cversion
// counts its children's creates, Owner is the raw ephemeralOwner (a
// session, or a container's or TTL node's mark).
type PastNode struct {
	Data                              []byte
	ACL                               []jute.ACL
	Czxid, Mzxid, Pzxid, Ctime, Mtime int64
	Version, Cversion, Aversion       int32
	Owner                             int64
}

// Past changes a read-only server's state.
type Past struct{ server *Server }

// ErrNotReadOnly is Past's answer on a server without Config.ReadOnly:
// it must not change what live clients rely on.
var ErrNotReadOnly = errors.New("zkserver: Past needs a server started with Config.ReadOnly")

// Past returns the handle that changes a read-only server's state.
func (s *Server) Past() (*Past, error) {
	if !s.cfg.ReadOnly {
		return nil, ErrNotReadOnly
	}
	return &Past{server: s}, nil
}

// Load replaces the whole tree with the nodes next yields, parents before
// children (as a snapshot lists them; "/" first), and the session table
// with sessions, which never expire; about is roughly how many nodes come
// (maps are sized for them). Clients watching anything are told
// it changed. The tree is built before the server's lock is taken: clients
// read the old state until the new one is whole.
func (p *Past) Load(next func(yield func(path string, n PastNode) bool), about int, sessions map[int64]time.Duration, zxid int64) error {
	s := p.server
	t := &tree{
		nodes:      make(map[string]*node, max(about, 0)),
		ephemerals: map[int64]map[string]struct{}{},
		containers: map[string]struct{}{},
		ttls:       map[string]struct{}{},
		quotas:     map[string]bool{},
	}
	var err error
	next(func(path string, pn PastNode) bool {
		if path == "/" {
			t.nodes["/"] = pastToNode(pn)
			t.dataSize += int64(len(path) + len(pn.Data))
			return true
		}
		if err = t.attach(path, pn); err != nil {
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	if t.nodes["/"] == nil {
		return errors.New("zkserver: the loaded tree has no root")
	}
	t.setupQuotas()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.tree
	s.tree = t
	for id, sess := range s.sessions {
		if sess.timer == nil {
			delete(s.sessions, id)
		}
	}
	for id, timeout := range sessions {
		s.addPastSessionLocked(id, timeout)
	}
	s.setZxidLocked(zxid)
	s.notifyReloadLocked(old)
	return nil
}

// attach links a new node under its existing parent, with the
// bookkeeping every node has (owner sets, data size, quotas); the
// parent's stat is left as it is.
func (t *tree) attach(path string, pn PastNode) error {
	parentPath, name := splitPath(path)
	parent := t.nodes[parentPath]
	if parent == nil {
		return fmt.Errorf("zkserver: %s comes before its parent %s", path, parentPath)
	}
	if _, dup := t.nodes[path]; dup {
		return fmt.Errorf("zkserver: %s: node exists", path)
	}
	if parent.children == nil {
		parent.children = map[string]struct{}{}
	}
	parent.children[name] = struct{}{}
	t.nodes[path] = pastToNode(pn)
	t.trackOwner(path, pn.Owner)
	t.dataSize += int64(len(path) + len(pn.Data))
	return nil
}

// pastToNode makes a node; its children map is made with its first child,
// which saves a map per leaf of a large snapshot.
func pastToNode(pn PastNode) *node {
	return &node{
		data: pn.Data, acl: pn.ACL,
		czxid: pn.Czxid, mzxid: pn.Mzxid, pzxid: pn.Pzxid, ctime: pn.Ctime, mtime: pn.Mtime,
		version: pn.Version, cversion: pn.Cversion, aversion: pn.Aversion, owner: pn.Owner,
	}
}

func nodeToPast(n *node) PastNode {
	return PastNode{
		Data: n.data, ACL: n.acl,
		Czxid: n.czxid, Mzxid: n.mzxid, Pzxid: n.pzxid, Ctime: n.ctime, Mtime: n.mtime,
		Version: n.version, Cversion: n.cversion, Aversion: n.aversion, Owner: n.owner,
	}
}

// setupQuotas finds the quotas of a loaded tree, as DataTree.setupQuota
// does after a snapshot: limits first, then the stats they count into.
func (t *tree) setupQuotas() {
	var limits, stats []string
	for p := range t.nodes {
		if !strings.HasPrefix(p, quotaRoot+"/") {
			continue
		}
		switch {
		case strings.HasSuffix(p, "/"+quotaLimitNode):
			limits = append(limits, p)
		case strings.HasSuffix(p, "/"+quotaStatNode):
			stats = append(stats, p)
		}
	}
	for _, p := range append(limits, stats...) {
		parent, name := splitPath(p)
		t.quotaNodeCreated(parent, name, nil)
	}
}

// notifyReloadLocked tells every watcher that what it watches may have
// changed after the tree was replaced: a data watch hears of its node's
// creation, change or deletion, a child watch of its node's children or
// deletion.
func (s *Server) notifyReloadLocked(old *tree) {
	var data, child []string
	for p := range s.watches.data.byPath {
		data = append(data, p)
	}
	for p := range s.watches.child.byPath {
		child = append(child, p)
	}
	sort.Strings(data)
	sort.Strings(child)
	send := func(set map[*conn]struct{}, eventType jute.EventType, path string) {
		for c := range set {
			c.sendEvent(eventType, path)
		}
	}
	for _, p := range data {
		before, now := old.get(p), s.tree.get(p)
		switch {
		case now == nil && before != nil:
			send(s.watches.data.trigger(p, jute.EventNodeDeleted), jute.EventNodeDeleted, p)
		case now != nil && before == nil:
			send(s.watches.data.trigger(p, jute.EventNodeCreated), jute.EventNodeCreated, p)
		case now != nil:
			send(s.watches.data.trigger(p, jute.EventNodeDataChanged), jute.EventNodeDataChanged, p)
		}
	}
	for _, p := range child {
		if s.tree.get(p) == nil {
			send(s.watches.child.trigger(p, jute.EventNodeDeleted), jute.EventNodeDeleted, p)
		} else {
			send(s.watches.child.trigger(p, jute.EventNodeChildrenChanged), jute.EventNodeChildrenChanged, p)
		}
	}
}

// Node returns the node at path.
func (p *Past) Node(path string) (PastNode, int, bool) {
	p.server.mu.Lock()
	defer p.server.mu.Unlock()
	n := p.server.tree.get(path)
	if n == nil {
		return PastNode{}, 0, false
	}
	return nodeToPast(n), len(n.children), true
}

// Children returns the names of path's children, sorted.
func (p *Past) Children(path string) []string {
	p.server.mu.Lock()
	defer p.server.mu.Unlock()
	n := p.server.tree.get(path)
	if n == nil {
		return nil
	}
	return sortedKeys(n.children)
}

// Ephemerals returns the paths of a session's ephemeral nodes, sorted.
func (p *Past) Ephemerals(session int64) []string {
	p.server.mu.Lock()
	defer p.server.mu.Unlock()
	return sortedKeys(p.server.tree.ephemerals[session])
}

// Create adds a node under its existing parent: the node's watchers and
// the parent's child watchers hear of it.
func (p *Past) Create(path string, pn PastNode) error {
	s := p.server
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tree.attach(path, pn); err != nil {
		return err
	}
	parent, name := splitPath(path)
	s.tree.quotaNodeCreated(parent, name, nil)
	s.tree.quotaChange(path, 1, int64(len(pn.Data)), nil)
	s.deliver([]change{{changeCreated, path}})
	return nil
}

// Update replaces a node's data, ACL and stat, keeping its children; its
// data watchers hear of it when the data changed (a new mzxid), as a
// setData's would. A parent's stat moved by its child's create or delete
// changes nothing a watcher hears.
func (p *Past) Update(path string, pn PastNode) error {
	s := p.server
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.tree.get(path)
	if n == nil {
		return fmt.Errorf("zkserver: update %s: no node", path)
	}
	if n.owner != pn.Owner {
		s.tree.untrackOwner(path, n.owner)
		s.tree.trackOwner(path, pn.Owner)
	}
	dataChanged := n.mzxid != pn.Mzxid
	bytesDiff := int64(len(pn.Data) - len(n.data))
	s.tree.dataSize += bytesDiff
	children := n.children
	*n = *pastToNode(pn)
	n.children = children
	if dataChanged {
		s.tree.quotaChange(path, 0, bytesDiff, nil)
		s.deliver([]change{{changeData, path}})
	}
	return nil
}

// Delete removes a childless node: its watchers and the parent's child
// watchers hear of it.
func (p *Past) Delete(path string) error {
	s := p.server
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.tree.get(path)
	switch {
	case n == nil:
		return fmt.Errorf("zkserver: delete %s: no node", path)
	case len(n.children) > 0:
		return fmt.Errorf("zkserver: delete %s: it has %d children", path, len(n.children))
	case path == "/":
		return errors.New("zkserver: the root cannot be deleted")
	}
	parentPath, name := splitPath(path)
	delete(s.tree.nodes[parentPath].children, name)
	delete(s.tree.nodes, path)
	s.tree.untrackOwner(path, n.owner)
	s.tree.dataSize -= int64(len(path) + len(n.data))
	s.tree.quotaNodeDeleted(parentPath, name, nil)
	s.tree.quotaChange(path, -1, -int64(len(n.data)), nil)
	s.deliver([]change{{changeDeleted, path}})
	return nil
}

// StartSession adds a session that never expires (it owns nodes of the
// past, whatever the clock says now).
func (p *Past) StartSession(id int64, timeout time.Duration) {
	p.server.mu.Lock()
	defer p.server.mu.Unlock()
	p.server.addPastSessionLocked(id, timeout)
}

// EndSession forgets a session the caller ended (its ephemerals are the
// caller's to delete first).
func (p *Past) EndSession(id int64) {
	p.server.mu.Lock()
	defer p.server.mu.Unlock()
	if sess := p.server.sessions[id]; sess != nil && sess.timer == nil {
		delete(p.server.sessions, id)
	}
}

// SetZxid sets the zxid the server reports (srvr, replies): the moment
// shown.
func (p *Past) SetZxid(zxid int64) {
	p.server.mu.Lock()
	defer p.server.mu.Unlock()
	p.server.setZxidLocked(zxid)
}

func (s *Server) setZxidLocked(zxid int64) {
	s.zxid = zxid
	s.lastZxid.Store(zxid)
}

// addPastSessionLocked adds a session with no connection and no timer.
func (s *Server) addPastSessionLocked(id int64, timeout time.Duration) {
	if _, ok := s.sessions[id]; ok {
		return
	}
	sess := &session{id: id, passwd: make([]byte, 16), timeout: timeout}
	rand.Read(sess.passwd) // nobody re-attaches to a session of the past
	sess.touch()
	s.sessions[id] = sess
}
