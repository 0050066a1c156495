package zkserver

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// newTestConn returns a server with no listener and one established session
// on a pipe, for driving the request path directly.
func newTestConn(t testing.TB) (*Server, *conn) {
	s := New(Config{})
	server, client := net.Pipe()
	t.Cleanup(func() { client.Close(); s.Close() })
	c := newConn(s, server)
	s.mu.Lock()
	s.conns[c] = struct{}{}
	sess := s.newSessionLocked(10 * time.Second)
	sess.conn, c.sess = c, sess
	s.mu.Unlock()
	return s, c
}

func requestPacket(xid int32, op jute.Op, body jute.Record) []byte {
	e := jute.NewEncoder(nil)
	(&jute.RequestHeader{Xid: xid, Type: op}).Encode(e)
	if body != nil {
		body.Encode(e)
	}
	return e.Bytes()
}

// FuzzRequest drives arbitrary request packets through the whole request
// path of an established session. Nothing may panic, and the tree must stay
// consistent whatever was applied or rolled back.
func FuzzRequest(f *testing.F) {
	acl := []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
	seeds := [][]byte{
		requestPacket(1, jute.OpCreate, &jute.CreateRequest{Path: "/a", Data: []byte("x"), ACL: acl}),
		requestPacket(1, jute.OpCreate, &jute.CreateRequest{Path: "/a/s-", ACL: acl, Flags: jute.ModeEphemeralSequential}),
		requestPacket(1, jute.OpCreateTTL, &jute.CreateRequest{Path: "/t", ACL: acl, Flags: jute.ModePersistentWithTTL, TTL: 100, HasTTL: true}),
		requestPacket(1, jute.OpCreateContainer, &jute.CreateRequest{Path: "/c", ACL: acl, Flags: jute.ModeContainer}),
		requestPacket(1, jute.OpDelete, &jute.PathIntRequest{Path: "/a", Value: -1}),
		requestPacket(1, jute.OpSetData, &jute.SetDataRequest{Path: "/a", Data: []byte("y"), Version: -1}),
		requestPacket(1, jute.OpSetACL, &jute.SetACLRequest{Path: "/a", ACL: acl, Version: -1}),
		requestPacket(1, jute.OpGetData, &jute.PathWatchRequest{Path: "/a", Watch: true}),
		requestPacket(1, jute.OpGetChildren2, &jute.PathWatchRequest{Path: "/", Watch: true}),
		requestPacket(1, jute.OpAddWatch, &jute.PathIntRequest{Path: "/", Value: jute.AddWatchPersistentRecursive}),
		requestPacket(1, jute.OpRemoveWatches, &jute.PathIntRequest{Path: "/", Value: jute.WatcherAny}),
		requestPacket(-8, jute.OpSetWatches2, &jute.SetWatches{HasPersistent: true, DataWatches: []string{"/a"}, PersistentRecursiveWatches: []string{"/"}}),
		requestPacket(1, jute.OpMulti, &jute.MultiRequest{Ops: []jute.MultiOp{
			{Type: jute.OpCreate, Rec: &jute.CreateRequest{Path: "/m", ACL: acl}},
			{Type: jute.OpCreate, Rec: &jute.CreateRequest{Path: "/m/s-", ACL: acl, Flags: jute.ModePersistentSequential}},
			{Type: jute.OpCheck, Rec: &jute.PathIntRequest{Path: "/m", Value: 5}},
		}}),
		requestPacket(1, jute.OpMultiRead, &jute.MultiRequest{Ops: []jute.MultiOp{{Type: jute.OpGetData, Rec: &jute.PathWatchRequest{Path: "/"}}}}),
		requestPacket(-4, jute.OpAuth, &jute.AuthPacket{Scheme: "digest", Auth: []byte("u:p")}),
		requestPacket(1, jute.OpWhoAmI, nil),
		requestPacket(1, jute.OpGetEphemerals, &jute.PathRequest{Path: "/"}),
		requestPacket(1, jute.OpCloseSession, nil),
		{0, 0, 0, 1},
	}
	for _, s := range seeds {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		s, c := newTestConn(t)
		for _, packet := range [][]byte{first, second} {
			if c.closing.Load() {
				break
			}
			c.handle(packet)
			c.out.drain()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.tree.check(); err != "" {
			t.Fatal(err)
		}
	})
}

// check reports the first inconsistency of the tree's bookkeeping, or "".
func (t *tree) check() string {
	size := int64(0)
	for path, n := range t.nodes {
		size += int64(len(path) + len(n.data))
		for name := range n.children {
			child := path + "/" + name
			if path == "/" {
				child = "/" + name
			}
			if t.nodes[child] == nil {
				return "child " + child + " listed but missing"
			}
		}
		if path == "/" {
			continue
		}
		parent, name := splitPath(path)
		p := t.nodes[parent]
		if p == nil {
			return path + " has no parent"
		}
		if _, ok := p.children[name]; !ok {
			return path + " not listed by its parent"
		}
		switch n.kind() {
		case kindEphemeral:
			if _, ok := t.ephemerals[n.owner][path]; !ok {
				return path + " missing from its session's ephemerals"
			}
		case kindContainer:
			if _, ok := t.containers[path]; !ok {
				return path + " missing from containers"
			}
		case kindTTL:
			if _, ok := t.ttls[path]; !ok {
				return path + " missing from TTL nodes"
			}
		}
	}
	for owner, set := range t.ephemerals {
		for path := range set {
			if n := t.nodes[path]; n == nil || n.owner != owner {
				return "stale ephemeral " + path
			}
		}
	}
	if size != t.dataSize {
		return "data size bookkeeping is off"
	}
	return ""
}

func TestFrameLengthPrefix(t *testing.T) {
	t.Parallel()
	b := replyFrame(7, 9, jute.ErrNoNode, nil)
	if n := binary.BigEndian.Uint32(b); int(n) != len(b)-4 {
		t.Fatalf("length prefix %d for %d bytes", n, len(b)-4)
	}
}
