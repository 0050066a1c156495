package forensics

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/txnlog"
)

// Transaction is one logged transaction, flattened for telling: what
// zkx txnlog prints and what the explorer on the past says at each step.
type Transaction struct {
	Zxid    int64
	Time    time.Time
	Session int64
	Cxid    int32
	// Type is ZooKeeper's name for it (create, closeSession, multi …).
	Type string
	Path string
	// Data is a create's or setData's data; HasData tells null from none.
	Data    []byte
	HasData bool
	ACL     []jute.ACL
	// NodeKind is a create's: persistent, ephemeral, container or ttl.
	NodeKind string
	TTLMs    int64
	// Version is setData's data version, setACL's ACL version, check's
	// expected version, after the change.
	Version int32
	// ParentCVersion is a create's parent cversion after it.
	ParentCVersion int32
	// Err is an error transaction's code (KeeperException.Code).
	Err jute.Code
	// TimeoutMs is createSession's negotiated timeout.
	TimeoutMs int32
	// Removed are the ephemerals a closeSession deleted; RemovedKnown is
	// false when the log does not name them (before ZooKeeper 3.6).
	Removed      []string
	RemovedKnown bool
	// ByServer: a closeSession the server issued itself (cxid 0), as its
	// session expirer does (ZooKeeperServer.expire); a client's own
	// close carries its request's xid.
	ByServer bool
	// Ops are a multi's operations, each a Transaction with only its own
	// fields; Failed says the multi failed (nothing applied) and FailedErr
	// with which error.
	Ops       []Transaction
	Failed    bool
	FailedErr jute.Code
	Digest    *txnlog.Digest
	// Offset is where the entry starts in its file.
	Offset int64
}

// Describe flattens a log entry.
func Describe(e txnlog.Entry) Transaction {
	h := e.Header
	t := Transaction{Zxid: h.Zxid, Time: time.UnixMilli(h.Time), Session: h.Session, Cxid: h.Cxid,
		Type: h.Type.String(), Digest: e.Digest, Offset: e.Offset}
	t.fill(h.Type, e.Txn)
	if h.Type == txnlog.TypeCloseSession {
		t.ByServer = h.Cxid == 0
	}
	return t
}

func (t *Transaction) fill(typ jute.Op, txn txnlog.Txn) {
	switch r := txn.(type) {
	case *txnlog.CreateTxn:
		t.Path, t.Data, t.HasData, t.ACL, t.ParentCVersion = r.Path, r.Data, r.Data != nil, r.ACL, r.ParentCVersion
		t.NodeKind = "persistent"
		if r.Ephemeral {
			t.NodeKind = "ephemeral"
		}
	case *txnlog.CreateTTLTxn:
		t.Path, t.Data, t.HasData, t.ACL, t.ParentCVersion = r.Path, r.Data, r.Data != nil, r.ACL, r.ParentCVersion
		t.NodeKind, t.TTLMs = "ttl", r.TTL
	case *txnlog.CreateContainerTxn:
		t.Path, t.Data, t.HasData, t.ACL, t.ParentCVersion = r.Path, r.Data, r.Data != nil, r.ACL, r.ParentCVersion
		t.NodeKind = "container"
	case *txnlog.DeleteTxn:
		t.Path = r.Path
	case *txnlog.SetDataTxn:
		t.Path, t.Data, t.HasData, t.Version = r.Path, r.Data, r.Data != nil, r.Version
	case *txnlog.SetACLTxn:
		t.Path, t.ACL, t.Version = r.Path, r.ACL, r.Version
	case *txnlog.CheckVersionTxn:
		t.Path, t.Version = r.Path, r.Version
	case *txnlog.CreateSessionTxn:
		t.TimeoutMs = r.TimeoutMs
	case *txnlog.CloseSessionTxn:
		t.Removed, t.RemovedKnown = r.Paths, true
	case *txnlog.ErrorTxn:
		t.Err = r.Err
	case *txnlog.MultiTxn:
		t.Failed, t.FailedErr = r.Failed()
		t.Ops = make([]Transaction, len(r.Ops))
		for i, op := range r.Ops {
			t.Ops[i].Type = op.Type.String()
			t.Ops[i].fill(op.Type, op.Txn)
		}
	}
}

// Paths are the paths the transaction names: its own, its operations',
// the ephemerals a closeSession removed.
func (t *Transaction) Paths() []string {
	var out []string
	if t.Path != "" {
		out = append(out, t.Path)
	}
	out = append(out, t.Removed...)
	for i := range t.Ops {
		out = append(out, t.Ops[i].Paths()...)
	}
	return out
}

// Touches reports whether the transaction names a path at or under
// prefix.
func (t *Transaction) Touches(prefix string) bool {
	for _, p := range t.Paths() {
		if under(p, prefix) {
			return true
		}
	}
	return false
}

// Summary tells the transaction in one line: "create /a/b (ephemeral)",
// "closeSession (expired: closed by the server), removed /a/lock-1", "multi
// (failed: node exists): create /a; delete /b".
func (t Transaction) Summary() string {
	var b strings.Builder
	b.WriteString(t.Type)
	if t.Path != "" {
		b.WriteString(" " + display.Line(t.Path))
	}
	switch {
	case t.NodeKind != "" && t.NodeKind != "persistent":
		b.WriteString(" (" + t.NodeKind + ")")
	case t.Type == "createSession":
		fmt.Fprintf(&b, " 0x%x, timeout %d ms", uint64(t.Session), t.TimeoutMs)
	case t.Type == "closeSession":
		fmt.Fprintf(&b, " 0x%x", uint64(t.Session))
		if t.ByServer {
			b.WriteString(" (expired: closed by the server)")
		} else {
			b.WriteString(" (closed by its client)")
		}
		if len(t.Removed) > 0 {
			b.WriteString(", removed " + display.Line(strings.Join(t.Removed, ", ")))
		}
	case t.Type == "error":
		b.WriteString(": " + t.Err.String())
	case t.Type == "multi":
		if t.Failed {
			b.WriteString(" (failed: " + t.FailedErr.String() + ")")
		}
		b.WriteString(":")
		for i, op := range t.Ops {
			if i > 0 {
				b.WriteString(";")
			}
			b.WriteString(" " + op.Type)
			if op.Path != "" {
				b.WriteString(" " + display.Line(op.Path))
			}
		}
	}
	return b.String()
}
