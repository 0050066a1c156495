package forensics

import (
	"time"

	"github.com/zkx-dev/zkx/internal/snapshot"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// serverStore keeps the rebuilt tree in a read-only embedded server, so
// that clients — the explorer — read it and hear each step as watch
// events.
type serverStore struct {
	past *zkserver.Past
}

func toPast(n Node) zkserver.PastNode {
	st := n.Stat
	return zkserver.PastNode{Data: n.Data, ACL: n.ACL,
		Czxid: st.Czxid, Mzxid: st.Mzxid, Pzxid: st.Pzxid, Ctime: st.Ctime, Mtime: st.Mtime,
		Version: st.Version, Cversion: st.Cversion, Aversion: st.Aversion, Owner: st.EphemeralOwner}
}

func fromPast(pn zkserver.PastNode, children int) Node {
	return Node{Data: pn.Data, ACL: pn.ACL, NumChildren: children, Stat: snapshot.Stat{
		Czxid: pn.Czxid, Mzxid: pn.Mzxid, Pzxid: pn.Pzxid, Ctime: pn.Ctime, Mtime: pn.Mtime,
		Version: pn.Version, Cversion: pn.Cversion, Aversion: pn.Aversion, EphemeralOwner: pn.Owner}}
}

func (s serverStore) Get(path string) (Node, bool) {
	pn, children, ok := s.past.Node(path)
	if !ok {
		return Node{}, false
	}
	return fromPast(pn, children), true
}

func (s serverStore) Children(path string) []string     { return s.past.Children(path) }
func (s serverStore) Create(path string, n Node) error  { return s.past.Create(path, toPast(n)) }
func (s serverStore) Update(path string, n Node) error  { return s.past.Update(path, toPast(n)) }
func (s serverStore) Delete(path string) error          { return s.past.Delete(path) }
func (s serverStore) Ephemerals(session int64) []string { return s.past.Ephemerals(session) }
func (s serverStore) EndSession(id int64)               { s.past.EndSession(id) }

func (s serverStore) StartSession(id int64, timeoutMs int32) {
	s.past.StartSession(id, time.Duration(timeoutMs)*time.Millisecond)
}

func (s serverStore) Load(nodes func(yield func(string, Node) bool), about int, sessions map[int64]int32, zxid int64) error {
	durations := make(map[int64]time.Duration, len(sessions))
	for id, ms := range sessions {
		durations[id] = time.Duration(ms) * time.Millisecond
	}
	return s.past.Load(func(yield func(string, zkserver.PastNode) bool) {
		nodes(func(path string, n Node) bool { return yield(path, toPast(n)) })
	}, about, durations, zxid)
}
