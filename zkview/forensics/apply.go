package forensics

import (
	"fmt"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/txnlog"
)

// ChangeKind is what a transaction did to one node.
type ChangeKind uint8

const (
	// Created: the node appeared.
	Created ChangeKind = iota
	// Deleted: the node went.
	Deleted
	// Updated: the node's data, ACL or stat changed (a parent's cversion
	// and pzxid when a child comes or goes, too).
	Updated
)

// Change is one node's change by a transaction, with the node before and
// after it (Before is zero for Created, After for Deleted).
type Change struct {
	Kind          ChangeKind
	Path          string
	Before, After Node
}

// DataChanged reports whether an Updated change is a change of data (a
// setData), not only of the stat or the ACL.
func (c Change) DataChanged() bool {
	return c.Kind == Updated && c.Before.Stat.Mzxid != c.After.Stat.Mzxid
}

// sessionChange is a session's start or end by a transaction.
type sessionChange struct {
	started   bool
	id        int64
	timeoutMs int32
}

// Step is one transaction applied to a Store: what it changed, in order,
// so that it can be told and undone.
type Step struct {
	Entry    txnlog.Entry
	Changes  []Change
	sessions []sessionChange
}

// Touches reports whether the step changed path or one of its children.
func (s *Step) Touches(path string) bool {
	for _, c := range s.Changes {
		if c.Path == path || (c.Kind != Updated && parentOf(c.Path) == path) {
			return true
		}
	}
	return false
}

// applier applies transactions to a store as DataTree.processTxn does;
// keep, when not nil, says which paths the store follows (a history keeps
// only its recipe's part of the tree and the path to it).
type applier struct {
	st   Store
	keep func(path string) bool
	// sessions are the sessions alive, by id, with their timeouts.
	sessions map[int64]int32
}

func newApplier(st Store, keep func(string) bool) *applier {
	return &applier{st: st, keep: keep, sessions: map[int64]int32{}}
}

func (a *applier) kept(path string) bool { return a.keep == nil || a.keep(path) }

// Apply applies one logged transaction. Failures of a single operation
// (a node missing, one that exists) are ignored as ZooKeeper ignores them
// while it replays: they are the transactions a fuzzy snapshot already
// holds.
func (a *applier) Apply(e txnlog.Entry) *Step {
	s := &Step{Entry: e}
	h := e.Header
	a.applyTxn(s, h, h.Type, e.Txn)
	return s
}

func (a *applier) applyTxn(s *Step, h txnlog.Header, typ jute.Op, txn txnlog.Txn) {
	switch t := txn.(type) {
	case *txnlog.CreateTxn:
		owner := int64(0)
		if t.Ephemeral {
			owner = h.Session
		}
		a.create(s, typ, t.Path, t.Data, t.ACL, owner, t.ParentCVersion, h)
	case *txnlog.CreateTTLTxn:
		a.create(s, typ, t.Path, t.Data, t.ACL, ttlOwner(t.TTL), t.ParentCVersion, h)
	case *txnlog.CreateContainerTxn:
		a.create(s, typ, t.Path, t.Data, t.ACL, containerOwner, t.ParentCVersion, h)
	case *txnlog.DeleteTxn:
		a.delete(s, t.Path, h.Zxid)
	case *txnlog.SetDataTxn:
		if !a.kept(t.Path) {
			return
		}
		if n, ok := a.st.Get(t.Path); ok {
			after := n
			after.Data = t.Data
			after.Stat.Mtime, after.Stat.Mzxid, after.Stat.Version = h.Time, h.Zxid, t.Version
			a.update(s, t.Path, n, after)
		}
	case *txnlog.SetACLTxn:
		if !a.kept(t.Path) {
			return
		}
		if n, ok := a.st.Get(t.Path); ok {
			after := n
			after.ACL, after.Stat.Aversion = t.ACL, t.Version
			a.update(s, t.Path, n, after)
		}
	case *txnlog.CreateSessionTxn:
		a.st.StartSession(h.Session, t.TimeoutMs)
		a.sessions[h.Session] = t.TimeoutMs
		s.sessions = append(s.sessions, sessionChange{started: true, id: h.Session, timeoutMs: t.TimeoutMs})
	case *txnlog.CloseSessionTxn, nil:
		if typ != txnlog.TypeCloseSession {
			return
		}
		// DataTree.killSession: the paths the transaction names, then
		// any the session still owns here.
		if cs, ok := txn.(*txnlog.CloseSessionTxn); ok {
			for _, p := range cs.Paths {
				a.delete(s, p, h.Zxid)
			}
		}
		for _, p := range a.st.Ephemerals(h.Session) {
			a.delete(s, p, h.Zxid)
		}
		a.st.EndSession(h.Session)
		s.sessions = append(s.sessions, sessionChange{id: h.Session, timeoutMs: a.sessions[h.Session]})
		delete(a.sessions, h.Session)
	case *txnlog.MultiTxn:
		if failed, _ := t.Failed(); failed {
			return // processTxn turns every operation into an error
		}
		for _, op := range t.Ops {
			a.applyTxn(s, h, op.Type, op.Txn)
		}
	}
	// ErrorTxn and CheckVersionTxn change nothing.
}

// create is DataTree.createNode, with processTxn's fix-up of a create that
// finds its node already there (a fuzzy snapshot's).
func (a *applier) create(s *Step, typ jute.Op, path string, data []byte, acl []jute.ACL, owner int64, parentCVersion int32, h txnlog.Header) {
	if !a.kept(path) {
		return
	}
	parentPath := parentOf(path)
	parent, ok := a.st.Get(parentPath)
	if !ok {
		return
	}
	if _, exists := a.st.Get(path); exists {
		if typ == txnlog.TypeCreate { // DataTree.setCversionPzxid
			if parentCVersion == -1 {
				parentCVersion = parent.Stat.Cversion + 1
			}
			if parentCVersion > parent.Stat.Cversion {
				after := parent
				after.Stat.Cversion, after.Stat.Pzxid = parentCVersion, h.Zxid
				a.update(s, parentPath, parent, after)
			}
		}
		return
	}
	if parentCVersion == -1 {
		parentCVersion = parent.Stat.Cversion + 1
	}
	if parentCVersion > parent.Stat.Cversion {
		after := parent
		after.Stat.Cversion, after.Stat.Pzxid = parentCVersion, h.Zxid
		a.update(s, parentPath, parent, after)
	}
	n := Node{Data: data, ACL: acl}
	n.Stat.Czxid, n.Stat.Mzxid, n.Stat.Pzxid = h.Zxid, h.Zxid, h.Zxid
	n.Stat.Ctime, n.Stat.Mtime = h.Time, h.Time
	n.Stat.EphemeralOwner = owner
	if a.st.Create(path, n) == nil {
		s.Changes = append(s.Changes, Change{Kind: Created, Path: path, After: n})
	}
}

// delete is DataTree.deleteNode: the parent's pzxid moves even when the
// node is already gone (a fuzzy snapshot's).
func (a *applier) delete(s *Step, path string, zxid int64) {
	if !a.kept(path) || path == "/" {
		return
	}
	parentPath := parentOf(path)
	parent, ok := a.st.Get(parentPath)
	if !ok {
		return
	}
	if zxid > parent.Stat.Pzxid {
		after := parent
		after.Stat.Pzxid = zxid
		a.update(s, parentPath, parent, after)
	}
	n, ok := a.st.Get(path)
	if !ok {
		return
	}
	if a.st.Delete(path) == nil {
		s.Changes = append(s.Changes, Change{Kind: Deleted, Path: path, Before: n})
	}
}

func (a *applier) update(s *Step, path string, before, after Node) {
	if a.st.Update(path, after) == nil {
		before.NumChildren, after.NumChildren = 0, 0
		s.Changes = append(s.Changes, Change{Kind: Updated, Path: path, Before: before, After: after})
	}
}

// Undo takes a step back: each change undone, last first.
func (a *applier) Undo(s *Step) error {
	for i := len(s.sessions) - 1; i >= 0; i-- {
		sc := s.sessions[i]
		if sc.started {
			a.st.EndSession(sc.id)
			delete(a.sessions, sc.id)
		} else {
			a.st.StartSession(sc.id, sc.timeoutMs)
			a.sessions[sc.id] = sc.timeoutMs
		}
	}
	for i := len(s.Changes) - 1; i >= 0; i-- {
		c := s.Changes[i]
		var err error
		switch c.Kind {
		case Created:
			err = a.st.Delete(c.Path)
		case Deleted:
			err = a.st.Create(c.Path, c.Before)
		case Updated:
			err = a.st.Update(c.Path, c.Before)
		}
		if err != nil {
			return fmt.Errorf("undo zxid 0x%x: %w", s.Entry.Header.Zxid, err)
		}
	}
	return nil
}
