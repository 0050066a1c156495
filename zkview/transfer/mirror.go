package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// MirrorOptions tunes Mirror.
type MirrorOptions struct {
	// DryRun reads both sides and reports the plan without writing.
	DryRun bool
	// Ignore are globs of nodes left alone on both sides (DiffOptions).
	Ignore []string
	// Planned, when set, is called with each operation as it is planned
	// (before it is written): the plan of a dry run.
	Planned func(MirrorOp)
}

// MirrorOp is one planned write to the destination.
type MirrorOp struct {
	// Op is create, set, setacl, delete — or skip, a node left alone (an
	// ephemeral one) with its Reason.
	Op   string `json:"op"`
	Path string `json:"path"`
	// Version is the destination's version the write is conditional on
	// (data version for set and delete, ACL version for setacl).
	Version *int32 `json:"version,omitempty"`
	Bytes   *int   `json:"bytes,omitempty"`  // data written by create and set
	Reason  string `json:"reason,omitempty"` // why a skip
}

// MirrorReport is what a mirror did (or, dry, would do).
type MirrorReport struct {
	Created int `json:"created"`
	Updated int `json:"updated"` // data replaced
	ACLs    int `json:"acls"`    // ACLs replaced
	Deleted int `json:"deleted"`
	// Ephemeral counts the ephemeral nodes left alone: the source's are
	// not recreated, the destination's (and the nodes above them that
	// would otherwise go) not deleted — they belong to live sessions.
	Ephemeral    int       `json:"ephemeral"`
	Refused      int       `json:"refused"`
	Refusals     []Refusal `json:"refusals,omitempty"`
	Transactions int       `json:"transactions"`
	DryRun       bool      `json:"dry_run,omitempty"`
	// Compared are the nodes read on each side.
	SourceNodes      int `json:"source_nodes"`
	DestinationNodes int `json:"destination_nodes"`
}

// Mirror makes the destination subtree equal to the source's: it creates
// what the source has and the destination lacks, replaces data and ACLs
// that differ, and deletes only what the source lacks. It compares the
// two as Diff does (streams, neither held), then writes in transactions
// (multi) of up to 1000 operations or 512 KiB, every set and delete
// conditional on the version read, so a destination changed meanwhile
// fails the transaction rather than lose that change; ACLs, which a
// transaction cannot set, follow each transaction one by one, each
// conditional on its ACL version — but an ACL change that only adds
// permissions goes before its transaction, whose writes below the node may
// need them. Ephemeral nodes are left alone on both sides, and the plan
// says so (skip). The source's root goes to the destination's root
// (dst.Root()).
func Mirror(ctx context.Context, w *zkview.BulkWriter, src, dst Source, opts MirrorOptions) (MirrorReport, error) {
	m := &mirror{bulk: w, opts: opts, dstRoot: dst.Root(), refused: map[string]bool{}}
	m.rep.DryRun = opts.DryRun
	st, err := Diff(ctx, dst, src, DiffOptions{Ignore: opts.Ignore}, func(d Difference) error {
		return m.take(ctx, d)
	})
	m.rep.SourceNodes, m.rep.DestinationNodes = st.NodesB, st.NodesA
	if err != nil {
		return m.rep, err
	}
	if err := m.endSubtree(ctx); err != nil {
		return m.rep, err
	}
	return m.rep, m.flush(ctx)
}

type mirror struct {
	bulk    *zkview.BulkWriter
	opts    MirrorOptions
	dstRoot string
	rep     MirrorReport

	ops  []zkview.WriteOp
	acls []aclWrite
	// widen are ACL writes that only add permissions: written before the
	// transaction, whose writes below such a node may need them (a node
	// whose ACL was made read-only, its data and children to put back).
	widen []aclWrite
	size  int

	// A subtree only the destination has, gathered to delete children
	// first: its root (under the roots) and its records in preorder.
	gone     string
	goneRecs []*Record
	// refused are destination paths not written: nothing below them is.
	refused map[string]bool
}

type aclWrite struct {
	path    string
	acl     []zk.ACL
	version int32
}

// take plans the writes one difference asks for.
func (m *mirror) take(ctx context.Context, d Difference) error {
	if m.gone != "" && !under(d.Path, m.gone) {
		if err := m.endSubtree(ctx); err != nil {
			return err
		}
	}
	dst := joinRel(m.dstRoot, d.Path)
	if m.blocked(dst) {
		m.refuse(dst, "the node above it was not written")
		return nil
	}
	switch d.Kind {
	case Unreadable:
		why := d.A.Error
		if why == "" {
			why = d.B.Error
		}
		m.refuse(dst, "could not be read: "+why)
	case Added:
		return m.create(ctx, dst, d.B)
	case Removed:
		if m.gone == "" {
			m.gone = d.Path
		}
		m.goneRecs = append(m.goneRecs, d.A)
	case Changed:
		return m.update(ctx, dst, d)
	}
	return nil
}

// joinRel is the destination path of a node under the roots.
func joinRel(root, rel string) string {
	switch {
	case rel == "/":
		return root
	case root == "/":
		return rel
	}
	return root + rel
}

// blocked reports whether a node above dst was refused.
func (m *mirror) blocked(dst string) bool {
	for p := dst; p != "/" && p != "."; {
		i := strings.LastIndexByte(p, '/')
		if i <= 0 {
			break
		}
		p = p[:i]
		if m.refused[p] {
			return true
		}
	}
	return false
}

func (m *mirror) create(ctx context.Context, dst string, rec *Record) error {
	if rec.Ephemeral() {
		m.plan(MirrorOp{Op: "skip", Path: dst, Reason: "ephemeral in the source (of session " + rec.EphemeralOwner + "): not recreated"})
		m.rep.Ephemeral++
		m.refused[dst] = true // nothing below an ephemeral anyway
		return nil
	}
	acl, err := rec.ZKACL()
	if err != nil {
		m.refuse(dst, err.Error())
		return nil
	}
	if len(acl) == 0 {
		acl = zk.WorldACL(zk.PermAll)
	}
	n := len(rec.Data)
	m.plan(MirrorOp{Op: "create", Path: dst, Bytes: &n})
	m.rep.Created++
	return m.add(ctx, zkview.WriteOp{Kind: zkview.OpCreate, Path: dst, Data: rec.Data, ACL: acl})
}

func (m *mirror) update(ctx context.Context, dst string, d Difference) error {
	if slices.Contains(d.What, WhatEphemeral) {
		m.plan(MirrorOp{Op: "skip", Path: dst, Reason: "ephemeral on one side only: left as it is"})
		m.rep.Ephemeral++
		m.refuse(dst, "ephemeral on one side only: left as it is (an ephemeral node belongs to a live session)")
		return nil
	}
	if d.A.Ephemeral() {
		m.plan(MirrorOp{Op: "skip", Path: dst, Reason: "ephemeral on both sides: its session's"})
		m.rep.Ephemeral++
		return nil
	}
	if slices.Contains(d.What, WhatData) {
		v, n := d.A.Version, len(d.B.Data)
		m.plan(MirrorOp{Op: "set", Path: dst, Version: &v, Bytes: &n})
		m.rep.Updated++
		if err := m.add(ctx, zkview.WriteOp{Kind: zkview.OpSetData, Path: dst, Data: d.B.Data, Version: v}); err != nil {
			return err
		}
	}
	if slices.Contains(d.What, WhatACL) {
		acl, err := d.B.ZKACL()
		if err != nil {
			m.refuse(dst, "its ACL: "+err.Error())
			return nil
		}
		v := d.A.Aversion
		m.plan(MirrorOp{Op: "setacl", Path: dst, Version: &v})
		m.rep.ACLs++
		w := aclWrite{path: dst, acl: acl, version: v}
		if widens(d.A.ACL, d.B.ACL) {
			m.widen = append(m.widen, w)
		} else {
			m.acls = append(m.acls, w)
		}
	}
	return nil
}

// endSubtree deletes the gathered subtree only the destination has,
// deepest first, keeping its ephemeral nodes and the nodes above them.
func (m *mirror) endSubtree(ctx context.Context) error {
	recs := m.goneRecs
	m.gone, m.goneRecs = "", nil
	keep := map[string]bool{}
	for _, r := range recs {
		if r.Ephemeral() || r.Error != "" {
			for p := r.Path; ; {
				keep[p] = true
				i := strings.LastIndexByte(p, '/')
				if i <= 0 {
					break
				}
				p = p[:i]
			}
		}
	}
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		switch {
		case r.Error != "":
			m.refuse(r.Path, "could not be read: "+r.Error)
		case r.Ephemeral():
			m.plan(MirrorOp{Op: "skip", Path: r.Path, Reason: "ephemeral of a live session (" + r.EphemeralOwner + "): not deleted"})
			m.rep.Ephemeral++
		case keep[r.Path]:
			m.refuse(r.Path, "holds an ephemeral node of a live session (left, with it)")
		default:
			v := r.Version
			m.plan(MirrorOp{Op: "delete", Path: r.Path, Version: &v})
			m.rep.Deleted++
			if err := m.add(ctx, zkview.WriteOp{Kind: zkview.OpDelete, Path: r.Path, Version: v}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *mirror) plan(op MirrorOp) {
	if m.opts.Planned != nil {
		m.opts.Planned(op)
	}
}

func (m *mirror) refuse(dst, reason string) {
	m.refused[dst] = true
	m.rep.Refused++
	if len(m.rep.Refusals) < maxRefusals {
		m.rep.Refusals = append(m.rep.Refusals, Refusal{Path: dst, Reason: reason})
	}
}

// add queues one operation, writing the transaction when it is full.
func (m *mirror) add(ctx context.Context, op zkview.WriteOp) error {
	n := op.Size()
	if len(m.ops) > 0 && (len(m.ops) >= batchOps || m.size+n > batchBytes) {
		if err := m.flush(ctx); err != nil {
			return err
		}
	}
	m.ops = append(m.ops, op)
	m.size += n
	return nil
}

// flush writes the queued transaction, then the ACLs planned with it.
func (m *mirror) flush(ctx context.Context) error {
	ops, acls, widen := m.ops, m.acls, m.widen
	m.ops, m.acls, m.widen, m.size = nil, nil, nil, 0
	if len(ops) == 0 && len(acls) == 0 && len(widen) == 0 {
		return nil
	}
	if m.opts.DryRun {
		if len(ops) > 0 {
			m.rep.Transactions++
		}
		return nil
	}
	for _, a := range widen {
		if err := m.bulk.SetACL(ctx, a.path, a.acl, a.version); err != nil {
			return fmt.Errorf("mirror stopped: %w (%d transactions written)", err, m.rep.Transactions)
		}
	}
	if len(ops) > 0 {
		if err := m.bulk.Multi(ctx, ops); err != nil {
			var me *zkview.MultiError
			why := err
			if errors.As(err, &me) && zkview.IsBadVersion(me.Err) {
				why = fmt.Errorf("%w: the destination changed since it was read", err)
			}
			return fmt.Errorf("mirror stopped: %w (nothing of this transaction was written; %d before it were; run the mirror again to go on)", why, m.rep.Transactions)
		}
		m.rep.Transactions++
	}
	for _, a := range acls {
		if err := m.bulk.SetACL(ctx, a.path, a.acl, a.version); err != nil {
			return fmt.Errorf("mirror stopped: %w (%d transactions written)", err, m.rep.Transactions)
		}
	}
	return nil
}

// widens reports whether an ACL change only adds permissions: every id of
// from keeps at least its permissions in to.
func widens(from, to []ACL) bool {
	for _, f := range from {
		kept := false
		for _, t := range to {
			kept = kept || (t.Scheme == f.Scheme && t.ID == f.ID && containsPerms(t.Perms, f.Perms))
		}
		if !kept {
			return false
		}
	}
	return true
}

// containsPerms reports whether perms (cdrwa letters) has every one of
// want's.
func containsPerms(perms, want string) bool {
	for _, c := range want {
		if !strings.ContainsRune(perms, c) {
			return false
		}
	}
	return true
}

// emptySource is a subtree with no node: a destination root that does not
// exist yet.
type emptySource struct{ root string }

// EmptySource is a Source with no records under root.
func EmptySource(root string) Source { return emptySource{root} }

func (s emptySource) Root() string          { return s.root }
func (s emptySource) Next() (Record, error) { return Record{}, io.EOF }
