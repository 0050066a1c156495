package txnlog

import (
	"fmt"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Transaction types: the ops a transaction log records (TxnHeader.type).
const (
	TypeCreate          = jute.OpCreate
	TypeDelete          = jute.OpDelete
	TypeSetData         = jute.OpSetData
	TypeSetACL          = jute.OpSetACL
	TypeCheck           = jute.OpCheck
	TypeMulti           = jute.OpMulti
	TypeCreate2         = jute.OpCreate2
	TypeReconfig        = jute.OpReconfig
	TypeCreateContainer = jute.OpCreateContainer
	TypeDeleteContainer = jute.OpDeleteContainer
	TypeCreateTTL       = jute.OpCreateTTL
	TypeCreateSession   = jute.OpCreateSession
	TypeCloseSession    = jute.OpCloseSession
	TypeError           = jute.OpError
)

// loggedTypes are the types above, which TypeByName knows.
var loggedTypes = []jute.Op{
	TypeCreate, TypeDelete, TypeSetData, TypeSetACL, TypeCheck, TypeMulti, TypeCreate2, TypeReconfig,
	TypeCreateContainer, TypeDeleteContainer, TypeCreateTTL, TypeCreateSession, TypeCloseSession, TypeError,
}

// TypeByName is the logged type of the name ZooKeeper's tools print for
// it (jute.Op's String: "create", "closeSession", "createTtl" …), for
// filters; ok is false for a name ZooKeeper does not log.
func TypeByName(name string) (jute.Op, bool) {
	for _, t := range loggedTypes {
		if t.String() == name {
			return t, true
		}
	}
	return 0, false
}

// Header is TxnHeader: who (the session, and its request's xid), the zxid,
// the leader's wall-clock time in milliseconds, and the type.
type Header struct {
	Session int64
	Cxid    int32
	Zxid    int64
	Time    int64
	Type    jute.Op
}

// headerSize is TxnHeader's encoded size.
const headerSize = 8 + 4 + 8 + 8 + 4

func (h *Header) decode(d *jute.Decoder) {
	h.Session = d.Long()
	h.Cxid = d.Int()
	h.Zxid = d.Long()
	h.Time = d.Long()
	h.Type = jute.Op(d.Int())
}

// Digest is TxnDigest: the tree's digest after the transaction, logged
// since ZooKeeper 3.6 when digests are enabled (the default).
type Digest struct {
	Version    int32
	TreeDigest int64
}

// digestSize is TxnDigest's encoded size.
const digestSize = 4 + 8

// Txn is a transaction's record; its concrete type is one of this
// package's *…Txn types.
type Txn interface {
	// decode reads the record; a failure sticks in d.
	decode(d *jute.Decoder)
}

// CreateTxn is create and create2 (and a 3.3-era CreateTxnV0 without
// ParentCVersion, read as -1, as SerializeUtils does).
type CreateTxn struct {
	Path      string
	Data      []byte
	ACL       []jute.ACL
	Ephemeral bool
	// ParentCVersion is the parent's stored cversion after the create (the
	// count of its children's creates), -1 to let the tree add one.
	ParentCVersion int32
}

func (t *CreateTxn) decode(d *jute.Decoder) {
	t.Path = d.String()
	t.Data = d.Buffer()
	t.ACL = jute.ReadACLs(d)
	t.Ephemeral = d.Bool()
	if d.Err() == nil && d.Remaining() < 4 {
		t.ParentCVersion = -1 // CreateTxnV0
		return
	}
	t.ParentCVersion = d.Int()
}

// CreateTTLTxn is createTTL: a persistent node removed once it has had no
// children and no change for TTL milliseconds.
type CreateTTLTxn struct {
	Path           string
	Data           []byte
	ACL            []jute.ACL
	ParentCVersion int32
	TTL            int64
}

func (t *CreateTTLTxn) decode(d *jute.Decoder) {
	t.Path = d.String()
	t.Data = d.Buffer()
	t.ACL = jute.ReadACLs(d)
	t.ParentCVersion = d.Int()
	t.TTL = d.Long()
}

// CreateContainerTxn is createContainer: a node the server removes once
// its last child is gone.
type CreateContainerTxn struct {
	Path           string
	Data           []byte
	ACL            []jute.ACL
	ParentCVersion int32
}

func (t *CreateContainerTxn) decode(d *jute.Decoder) {
	t.Path = d.String()
	t.Data = d.Buffer()
	t.ACL = jute.ReadACLs(d)
	t.ParentCVersion = d.Int()
}

// DeleteTxn is delete and deleteContainer (the server's own removal of an
// empty container or an expired TTL node).
type DeleteTxn struct {
	Path string
}

func (t *DeleteTxn) decode(d *jute.Decoder) { t.Path = d.String() }

// SetDataTxn is setData (and reconfig, on /zookeeper/config): Version is
// the node's data version after the change.
type SetDataTxn struct {
	Path    string
	Data    []byte
	Version int32
}

func (t *SetDataTxn) decode(d *jute.Decoder) {
	t.Path = d.String()
	t.Data = d.Buffer()
	t.Version = d.Int()
}

// SetACLTxn is setACL: Version is the node's ACL version after the change.
type SetACLTxn struct {
	Path    string
	ACL     []jute.ACL
	Version int32
}

func (t *SetACLTxn) decode(d *jute.Decoder) {
	t.Path = d.String()
	t.ACL = jute.ReadACLs(d)
	t.Version = d.Int()
}

// CheckVersionTxn is a check inside a multi.
type CheckVersionTxn struct {
	Path    string
	Version int32
}

func (t *CheckVersionTxn) decode(d *jute.Decoder) {
	t.Path = d.String()
	t.Version = d.Int()
}

// CreateSessionTxn is createSession: the session's negotiated timeout.
type CreateSessionTxn struct {
	TimeoutMs int32
}

func (t *CreateSessionTxn) decode(d *jute.Decoder) { t.TimeoutMs = d.Int() }

// CloseSessionTxn is closeSession since 3.6: the ephemeral nodes the
// session's end deleted. A closeSession logged without it (older servers,
// or zookeeper.closeSessionTxn.enabled=false) has a nil Txn in its Entry.
type CloseSessionTxn struct {
	Paths []string
}

func (t *CloseSessionTxn) decode(d *jute.Decoder) { t.Paths = d.Strings() }

// ErrorTxn is a write that failed: the request took a zxid and its error
// code (KeeperException.Code) is what was logged.
type ErrorTxn struct {
	Err jute.Code
}

func (t *ErrorTxn) decode(d *jute.Decoder) { t.Err = jute.Code(d.Int()) }

// MultiTxn is multi: its operations in order. When one failed the
// multi is logged anyway, as PrepRequestProcessor writes it: the
// operations before the failed one with their records, the failed one as
// an ErrorTxn with its code, those after it as ErrorTxn -2
// (RUNTIMEINCONSISTENCY); DataTree.processTxn then applies none of them.
type MultiTxn struct {
	Ops []Op
}

// Op is one operation of a multi: its type and its record.
type Op struct {
	Type jute.Op
	Txn  Txn
}

// minOpSize is the smallest encoded Txn: a type and an empty buffer.
const minOpSize = 8

func (t *MultiTxn) decode(d *jute.Decoder) {
	n := d.Count(minOpSize)
	t.Ops = make([]Op, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		typ := jute.Op(d.Int())
		data := d.Buffer()
		if d.Err() != nil {
			return
		}
		rec := newOpTxn(typ)
		if rec == nil {
			d.Fail(fmt.Errorf("multi operation %d: type %d is not a multi operation", i, typ))
			return
		}
		sub := jute.NewDecoder(data)
		rec.decode(sub)
		if sub.Err() != nil {
			d.Fail(fmt.Errorf("multi operation %d (%s): %w", i, typ, sub.Err()))
			return
		}
		t.Ops = append(t.Ops, Op{Type: typ, Txn: rec})
	}
}

// Failed reports whether the multi failed (one of its operations is an
// error) and the code of the operation that failed.
func (t *MultiTxn) Failed() (bool, jute.Code) {
	failed, code := false, jute.ErrOK
	for _, op := range t.Ops {
		if op.Type != TypeError {
			continue
		}
		failed = true
		if e := op.Txn.(*ErrorTxn); e.Err != jute.ErrOK && e.Err != jute.ErrRuntimeInconsistency && code == jute.ErrOK {
			code = e.Err
		}
	}
	return failed, code
}

// newOpTxn is the record of a multi's operation type (DataTree.processTxn's
// list; create2 as create, which older servers logged inside a multi).
func newOpTxn(typ jute.Op) Txn {
	switch typ {
	case TypeCreate, TypeCreate2:
		return &CreateTxn{}
	case TypeCreateTTL:
		return &CreateTTLTxn{}
	case TypeCreateContainer:
		return &CreateContainerTxn{}
	case TypeDelete, TypeDeleteContainer:
		return &DeleteTxn{}
	case TypeSetData:
		return &SetDataTxn{}
	case TypeError:
		return &ErrorTxn{}
	case TypeCheck:
		return &CheckVersionTxn{}
	}
	return nil
}

// newTxn is the record of a logged transaction's type, as
// SerializeUtils.deserializeTxn chooses it.
func newTxn(typ jute.Op) (Txn, bool) {
	switch typ {
	case TypeCreateSession:
		return &CreateSessionTxn{}, true
	case TypeCloseSession:
		return &CloseSessionTxn{}, true
	case TypeCreate, TypeCreate2:
		return &CreateTxn{}, true
	case TypeCreateTTL:
		return &CreateTTLTxn{}, true
	case TypeCreateContainer:
		return &CreateContainerTxn{}, true
	case TypeDelete, TypeDeleteContainer:
		return &DeleteTxn{}, true
	case TypeReconfig, TypeSetData:
		return &SetDataTxn{}, true
	case TypeSetACL:
		return &SetACLTxn{}, true
	case TypeError:
		return &ErrorTxn{}, true
	case TypeMulti:
		return &MultiTxn{}, true
	}
	return nil, false
}

// Path is the path a transaction names, "" for those that name none
// (sessions, errors, a multi).
func Path(t Txn) string {
	switch t := t.(type) {
	case *CreateTxn:
		return t.Path
	case *CreateTTLTxn:
		return t.Path
	case *CreateContainerTxn:
		return t.Path
	case *DeleteTxn:
		return t.Path
	case *SetDataTxn:
		return t.Path
	case *SetACLTxn:
		return t.Path
	case *CheckVersionTxn:
		return t.Path
	}
	return ""
}
