package zkserver

import (
	"math"
	"strings"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Special ephemeralOwner values, as ZooKeeper's EphemeralType encodes them.
const (
	containerOwner int64  = math.MinInt64
	ttlOwnerMask   uint64 = 0xff00000000000000
	ttlFeatureMask uint64 = 0x00ffff0000000000
	maxTTL         int64  = 1<<40 - 1 // ms; the low 40 bits hold the TTL
)

type nodeKind uint8

const (
	kindPersistent nodeKind = iota
	kindEphemeral
	kindContainer
	kindTTL
)

func ownerKind(owner int64) nodeKind {
	switch {
	case owner == 0:
		return kindPersistent
	case owner == containerOwner:
		return kindContainer
	case uint64(owner)&ttlOwnerMask == ttlOwnerMask && uint64(owner)&ttlFeatureMask == 0:
		return kindTTL
	default:
		return kindEphemeral
	}
}

func ttlOwner(ttl int64) int64 { return int64(ttlOwnerMask | uint64(ttl)) }

func ttlOf(owner int64) int64 { return int64(uint64(owner) &^ (ttlOwnerMask | ttlFeatureMask)) }

// node is one znode. cversion counts the creates of children, as ZooKeeper
// stores it; the client sees 2*cversion-numChildren (one per create and per
// delete), and sequential names take the stored value.
type node struct {
	data     []byte
	acl      []jute.ACL // never modified in place: shared with callers
	czxid    int64
	mzxid    int64
	pzxid    int64
	ctime    int64
	mtime    int64
	version  int32
	cversion int32
	aversion int32
	owner    int64 // raw ephemeralOwner: session id, containerOwner or TTL
	children map[string]struct{}
}

func (n *node) kind() nodeKind { return ownerKind(n.owner) }

// stat returns the node's Stat as clients see it.
func (n *node) stat() jute.Stat {
	owner := n.owner
	if n.kind() != kindEphemeral {
		owner = 0 // containers and TTL nodes show no owner
	}
	return jute.Stat{
		Czxid: n.czxid, Mzxid: n.mzxid, Pzxid: n.pzxid,
		Ctime: n.ctime, Mtime: n.mtime,
		Version: n.version, Cversion: n.cversion*2 - int32(len(n.children)), Aversion: n.aversion,
		EphemeralOwner: owner,
		DataLength:     int32(len(n.data)),
		NumChildren:    int32(len(n.children)),
	}
}

// change is one effect of a transaction on the tree; the watch tables turn
// changes into notifications.
type change struct {
	kind changeKind
	path string
}

type changeKind uint8

const (
	changeCreated changeKind = iota
	changeDeleted
	changeData
)

// undoLog collects the inverse of each tree mutation so a failed multi can be
// rolled back; a nil *undoLog records nothing.
type undoLog []func()

func (u *undoLog) push(f func()) {
	if u != nil {
		*u = append(*u, f)
	}
}

func (u *undoLog) rollback() {
	for i := len(*u) - 1; i >= 0; i-- {
		(*u)[i]()
	}
	*u = nil
}

// tree is the in-memory znode tree with ZooKeeper's bookkeeping: ephemerals
// by session, container and TTL node sets.
type tree struct {
	nodes      map[string]*node
	ephemerals map[int64]map[string]struct{}
	containers map[string]struct{}
	ttls       map[string]struct{}
	quotas     map[string]bool // paths with a quota (see quota.go)
	dataSize   int64           // sum of path and data lengths, ZooKeeper's approximate data size
}

var (
	openACL     = []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
	readOnlyACL = []jute.ACL{{Perms: jute.PermRead, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
)

// newTree builds ZooKeeper's initial tree: /, /zookeeper, /zookeeper/quota and
// /zookeeper/config. Like ZooKeeper it links them without counting creates, so
// / shows cversion -1 and /zookeeper -2 on a fresh server.
func newTree() *tree {
	t := &tree{
		nodes:      map[string]*node{},
		ephemerals: map[int64]map[string]struct{}{},
		containers: map[string]struct{}{},
		ttls:       map[string]struct{}{},
		quotas:     map[string]bool{},
	}
	add := func(path string, acl []jute.ACL) {
		t.nodes[path] = &node{data: []byte{}, acl: acl, children: map[string]struct{}{}}
		t.dataSize += int64(len(path))
		if path != "/" {
			parent, name := splitPath(path)
			t.nodes[parent].children[name] = struct{}{}
		}
	}
	add("/", openACL)
	add("/zookeeper", openACL)
	add("/zookeeper/quota", openACL)
	add("/zookeeper/config", readOnlyACL)
	t.nodes["/zookeeper/config"].aversion = -1 // ZooKeeper sets its ACL with version -1
	return t
}

// splitPath returns the parent and the last name of an absolute path. The
// parent of a top-level node is "/".
func splitPath(path string) (parent, name string) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/", path[i+1:]
	}
	return path[:i], path[i+1:]
}

// get returns the node at path; like ZooKeeper, "" is an alias of the root.
func (t *tree) get(path string) *node {
	if path == "" {
		path = "/"
	}
	return t.nodes[path]
}

// nodeCount is what ZooKeeper reports as its node count: its map holds the
// root twice (as "" and "/").
func (t *tree) nodeCount() int { return len(t.nodes) + 1 }

func (t *tree) trackOwner(path string, owner int64) {
	switch ownerKind(owner) {
	case kindContainer:
		t.containers[path] = struct{}{}
	case kindTTL:
		t.ttls[path] = struct{}{}
	case kindEphemeral:
		set := t.ephemerals[owner]
		if set == nil {
			set = map[string]struct{}{}
			t.ephemerals[owner] = set
		}
		set[path] = struct{}{}
	}
}

func (t *tree) untrackOwner(path string, owner int64) {
	switch ownerKind(owner) {
	case kindContainer:
		delete(t.containers, path)
	case kindTTL:
		delete(t.ttls, path)
	case kindEphemeral:
		if set := t.ephemerals[owner]; set != nil {
			delete(set, path)
			if len(set) == 0 {
				delete(t.ephemerals, owner)
			}
		}
	}
}

// create adds a node under an existing parent. The caller has validated the
// request; create only does the bookkeeping. Data may be nil: ZooKeeper keeps
// null data apart from empty data.
func (t *tree) create(path string, data []byte, acl []jute.ACL, owner, zxid, now int64, u *undoLog) (*node, change) {
	parentPath, name := splitPath(path)
	parent := t.nodes[parentPath]
	oldCversion, oldPzxid := parent.cversion, parent.pzxid
	n := &node{
		data: data, acl: acl,
		czxid: zxid, mzxid: zxid, pzxid: zxid,
		ctime: now, mtime: now,
		owner:    owner,
		children: map[string]struct{}{},
	}
	parent.children[name] = struct{}{}
	parent.cversion++
	parent.pzxid = zxid
	t.nodes[path] = n
	t.trackOwner(path, owner)
	t.dataSize += int64(len(path) + len(n.data))
	u.push(func() {
		delete(parent.children, name)
		parent.cversion, parent.pzxid = oldCversion, oldPzxid
		delete(t.nodes, path)
		t.untrackOwner(path, owner)
		t.dataSize -= int64(len(path) + len(n.data))
	})
	t.quotaNodeCreated(parentPath, name, u)
	t.quotaChange(path, 1, int64(len(n.data)), u)
	return n, change{changeCreated, path}
}

// remove deletes a childless node. Like ZooKeeper, a delete moves the
// parent's pzxid but not its stored cversion.
func (t *tree) remove(path string, zxid int64, u *undoLog) change {
	parentPath, name := splitPath(path)
	parent := t.nodes[parentPath]
	n := t.nodes[path]
	oldPzxid := parent.pzxid
	delete(parent.children, name)
	if zxid > parent.pzxid {
		parent.pzxid = zxid
	}
	delete(t.nodes, path)
	t.untrackOwner(path, n.owner)
	t.dataSize -= int64(len(path) + len(n.data))
	u.push(func() {
		parent.children[name] = struct{}{}
		parent.pzxid = oldPzxid
		t.nodes[path] = n
		t.trackOwner(path, n.owner)
		t.dataSize += int64(len(path) + len(n.data))
	})
	t.quotaNodeDeleted(parentPath, name, u)
	t.quotaChange(path, -1, -int64(len(n.data)), u)
	return change{changeDeleted, path}
}

// setData replaces a node's data and bumps its version.
func (t *tree) setData(path string, n *node, data []byte, zxid, now int64, u *undoLog) change {
	old := *n
	t.dataSize += int64(len(data) - len(n.data))
	n.data = data
	n.version++
	n.mzxid = zxid
	n.mtime = now
	u.push(func() {
		t.dataSize -= int64(len(n.data) - len(old.data))
		n.data, n.version, n.mzxid, n.mtime = old.data, old.version, old.mzxid, old.mtime
	})
	t.quotaChange(path, 0, int64(len(data)-len(old.data)), u)
	return change{changeData, path}
}

// setACL replaces a node's ACL and bumps its aversion.
func (t *tree) setACL(n *node, acl []jute.ACL) {
	n.acl = acl
	n.aversion++
}

// descendants counts the nodes below path, as getAllChildrenNumber does.
func (t *tree) descendants(path string) int {
	if path == "/" {
		return len(t.nodes) - 1
	}
	count := 0
	var walk func(*node, string)
	walk = func(n *node, p string) {
		for name := range n.children {
			child := p + "/" + name
			count++
			if c := t.nodes[child]; c != nil {
				walk(c, child)
			}
		}
	}
	if n := t.nodes[path]; n != nil {
		walk(n, path)
	}
	return count
}
