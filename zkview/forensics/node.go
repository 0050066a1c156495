package forensics

import (
	"math"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/snapshot"
)

// Node is a znode as the server keeps it: its data, ACL and persisted stat
// (Cversion counts its children's creates; EphemeralOwner is raw).
type Node struct {
	Data []byte
	ACL  []jute.ACL
	Stat snapshot.Stat
	// NumChildren is filled in by Store.Get; writes ignore it.
	NumChildren int
}

// Special ephemeralOwner values (EphemeralType): a container's, and the
// high byte of a TTL node's.
const (
	containerOwner int64  = math.MinInt64
	ttlOwnerMask   uint64 = 0xff00000000000000
	ttlFeatureMask uint64 = 0x00ffff0000000000
)

// Session returns the session owning an ephemeral node, 0 for others
// (persistent, container and TTL nodes).
func Session(owner int64) int64 {
	switch {
	case owner == 0, owner == containerOwner:
		return 0
	case uint64(owner)&ttlOwnerMask == ttlOwnerMask && uint64(owner)&ttlFeatureMask == 0:
		return 0
	}
	return owner
}

func ttlOwner(ttl int64) int64 { return int64(ttlOwnerMask | uint64(ttl)) }

// ClientStat is the node's stat as a client reads it (DataNode.copyStat):
// cversion counts creates and deletes, the owner only of ephemerals.
func (n Node) ClientStat() *zk.Stat {
	st := n.Stat
	return &zk.Stat{
		Czxid: st.Czxid, Mzxid: st.Mzxid, Ctime: st.Ctime, Mtime: st.Mtime,
		Version: st.Version, Cversion: st.Cversion*2 - int32(n.NumChildren), Aversion: st.Aversion,
		EphemeralOwner: Session(st.EphemeralOwner), DataLength: int32(len(n.Data)),
		NumChildren: int32(n.NumChildren), Pzxid: st.Pzxid,
	}
}

// parentOf returns a path's parent; the root's children have "/".
func parentOf(path string) string {
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == '/' {
			return path[:i]
		}
	}
	return "/"
}

// nameOf returns a path's last element.
func nameOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

// under reports whether p is root or below it.
func under(p, root string) bool {
	if root == "/" || p == root {
		return true
	}
	return len(p) > len(root) && p[:len(root)] == root && p[len(root)] == '/'
}
