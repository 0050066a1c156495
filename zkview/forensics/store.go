package forensics

import (
	"fmt"
	"sort"
)

// Store holds a rebuilt tree: the memory of a history (memStore) or a
// read-only embedded server that an explorer reads (serverStore). Writes
// are a transaction's effects, one node at a time; the caller keeps the
// bookkeeping (a parent's cversion and pzxid are an Update of the parent).
type Store interface {
	Get(path string) (Node, bool)
	Children(path string) []string
	Create(path string, n Node) error
	Update(path string, n Node) error
	Delete(path string) error
	// Ephemerals lists the session's ephemeral nodes.
	Ephemerals(session int64) []string
	StartSession(id int64, timeoutMs int32)
	EndSession(id int64)
	// Load replaces everything: nodes parents first ("/" first), sessions
	// by id with their timeouts; about is roughly how many nodes come.
	Load(nodes func(yield func(path string, n Node) bool), about int, sessions map[int64]int32, zxid int64) error
}

// memNode is a node of memStore.
type memNode struct {
	Node
	children map[string]struct{}
}

// memStore is a Store in memory, for histories (which keep only the part
// of the tree they follow).
type memStore struct {
	nodes      map[string]*memNode
	ephemerals map[int64]map[string]struct{}
	sessions   map[int64]int32
}

func newMemStore() *memStore {
	return &memStore{nodes: map[string]*memNode{}, ephemerals: map[int64]map[string]struct{}{}, sessions: map[int64]int32{}}
}

func (m *memStore) Get(path string) (Node, bool) {
	n := m.nodes[path]
	if n == nil {
		return Node{}, false
	}
	out := n.Node
	out.NumChildren = len(n.children)
	return out, true
}

func (m *memStore) Children(path string) []string {
	n := m.nodes[path]
	if n == nil {
		return nil
	}
	out := make([]string, 0, len(n.children))
	for c := range n.children {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func (m *memStore) Create(path string, n Node) error {
	if path == "/" {
		m.nodes["/"] = &memNode{Node: n}
		return nil
	}
	parent := m.nodes[parentOf(path)]
	if parent == nil {
		return fmt.Errorf("create %s: no parent", path)
	}
	if m.nodes[path] != nil {
		return fmt.Errorf("create %s: node exists", path)
	}
	if parent.children == nil {
		parent.children = map[string]struct{}{}
	}
	parent.children[nameOf(path)] = struct{}{}
	n.NumChildren = 0
	m.nodes[path] = &memNode{Node: n}
	if s := Session(n.Stat.EphemeralOwner); s != 0 {
		set := m.ephemerals[s]
		if set == nil {
			set = map[string]struct{}{}
			m.ephemerals[s] = set
		}
		set[path] = struct{}{}
	}
	return nil
}

func (m *memStore) Update(path string, n Node) error {
	cur := m.nodes[path]
	if cur == nil {
		return fmt.Errorf("update %s: no node", path)
	}
	n.NumChildren = 0
	cur.Node = n
	return nil
}

func (m *memStore) Delete(path string) error {
	n := m.nodes[path]
	switch {
	case n == nil:
		return fmt.Errorf("delete %s: no node", path)
	case len(n.children) > 0:
		return fmt.Errorf("delete %s: it has %d children", path, len(n.children))
	}
	delete(m.nodes, path)
	if parent := m.nodes[parentOf(path)]; parent != nil {
		delete(parent.children, nameOf(path))
	}
	if s := Session(n.Stat.EphemeralOwner); s != 0 {
		delete(m.ephemerals[s], path)
		if len(m.ephemerals[s]) == 0 {
			delete(m.ephemerals, s)
		}
	}
	return nil
}

func (m *memStore) Ephemerals(session int64) []string {
	out := make([]string, 0, len(m.ephemerals[session]))
	for p := range m.ephemerals[session] {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func (m *memStore) StartSession(id int64, timeoutMs int32) { m.sessions[id] = timeoutMs }
func (m *memStore) EndSession(id int64)                    { delete(m.sessions, id) }

func (m *memStore) Load(nodes func(yield func(string, Node) bool), about int, sessions map[int64]int32, zxid int64) error {
	*m = *newMemStore()
	var err error
	nodes(func(path string, n Node) bool {
		err = m.Create(path, n)
		return err == nil
	})
	if err != nil {
		return err
	}
	if m.nodes["/"] == nil {
		return fmt.Errorf("the tree has no root")
	}
	for id, t := range sessions {
		m.sessions[id] = t
	}
	return nil
}
