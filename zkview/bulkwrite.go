package zkview

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/zklimit"
	"github.com/zkx-dev/zkx/internal/zkwire"
)

// WriteKind is what one operation of a multi does.
type WriteKind int

const (
	// OpCreate creates Path with Data, ACL and Flags.
	OpCreate WriteKind = iota
	// OpSetData replaces Path's data (Version -1: any).
	OpSetData
	// OpDelete removes Path (Version -1: any).
	OpDelete
)

// WriteOp is one operation of a transaction (multi).
type WriteOp struct {
	Kind    WriteKind
	Path    string // under the chroot
	Data    []byte
	ACL     []zk.ACL
	Flags   jute.CreateMode
	Version int32
}

// Size is the operation's share of a multi request, header included.
func (op WriteOp) Size() int {
	switch op.Kind {
	case OpCreate:
		return zklimit.MultiOpHeader + zklimit.CreateSize(op.Path, op.Data, op.ACL)
	case OpSetData:
		return zklimit.MultiOpHeader + zklimit.SetDataSize(op.Path, op.Data)
	}
	return zklimit.MultiOpHeader + zklimit.DeleteSize(op.Path)
}

// MultiError is a transaction ZooKeeper refused as a whole: Index is the
// operation that failed (every other was rolled back with it).
type MultiError struct {
	Index int
	Op    WriteOp
	Err   error
}

func (e *MultiError) Error() string {
	return fmt.Sprintf("operation %d of the transaction (%s): %v", e.Index+1, e.Op.Path, e.Err)
}

func (e *MultiError) Unwrap() error { return e.Err }

// BulkWriter writes many nodes in few requests: transactions (multi) and
// pipelined single requests, over a connection of its own with the
// client's credentials. Only a Writer hands one out, so a read-only
// client has none.
type BulkWriter struct {
	batch *Batch
}

// DialBulk opens a bulk writer beside the writer's client.
func (w *Writer) DialBulk(ctx context.Context) (*BulkWriter, error) {
	b, err := w.client.dialWire(ctx, 1)
	if err != nil {
		return nil, err
	}
	return &BulkWriter{batch: b}, nil
}

// Close ends the writer's session.
func (bw *BulkWriter) Close() { bw.batch.Close() }

// Multi applies ops as one transaction: all or none. A refusal is a
// *MultiError naming the operation; an oversized request is refused
// before it is sent (zklimit).
func (bw *BulkWriter) Multi(ctx context.Context, ops []WriteOp) error {
	return bw.multi(ctx, ops, false)
}

// Validate asks the server whether ops would apply, as Multi would, and
// applies none: the transaction it sends ends with a check of a node that
// does not exist, which fails it whole once every op before it has been
// judged. A refusal is a *MultiError as Multi's. (The failed transaction
// takes a zxid, as every transaction does; it changes no node.)
func (bw *BulkWriter) Validate(ctx context.Context, ops []WriteOp) error {
	return bw.multi(ctx, ops, true)
}

// CheckSize refuses an operation too large for a ZooKeeper request, alone
// in a transaction.
func (bw *BulkWriter) CheckSize(op WriteOp) error {
	op.Path = bw.batch.target.Abs(op.Path)
	return zklimit.CheckMulti("the "+opName(op.Kind)+" of "+op.Path, 1, op.Size()-zklimit.MultiOpHeader)
}

// validationEnd is the node a Validate transaction checks last: random, so
// that it never exists, with a version no node has, so that even then the
// check fails.
func validationEnd() *jute.PathIntRequest {
	var b [16]byte
	rand.Read(b[:])
	return &jute.PathIntRequest{Path: "/zkx-dry-run-" + hex.EncodeToString(b[:]), Value: -2}
}

func (bw *BulkWriter) multi(ctx context.Context, ops []WriteOp, validate bool) error {
	req := &jute.MultiRequest{Ops: make([]jute.MultiOp, len(ops))}
	records := 0
	for i, op := range ops {
		records += op.Size() - zklimit.MultiOpHeader
		abs := bw.batch.target.Abs(op.Path)
		switch op.Kind {
		case OpCreate:
			req.Ops[i] = jute.MultiOp{Type: jute.OpCreate, Rec: &jute.CreateRequest{Path: abs, Data: op.Data, ACL: juteACL(op.ACL), Flags: op.Flags}}
		case OpSetData:
			req.Ops[i] = jute.MultiOp{Type: jute.OpSetData, Rec: &jute.SetDataRequest{Path: abs, Data: op.Data, Version: op.Version}}
		case OpDelete:
			req.Ops[i] = jute.MultiOp{Type: jute.OpDelete, Rec: &jute.PathIntRequest{Path: abs, Value: op.Version}}
		}
	}
	if len(ops) == 0 {
		return nil
	}
	if validate {
		end := validationEnd()
		req.Ops = append(req.Ops, jute.MultiOp{Type: jute.OpCheck, Rec: end})
		records += zklimit.DeleteSize(end.Path)
	}
	if err := zklimit.CheckMulti(fmt.Sprintf("a transaction of %d operations from %s", len(req.Ops), ops[0].Path), len(req.Ops), records); err != nil {
		return err
	}
	var resp jute.MultiResponse
	if err := bw.batch.call(ctx, jute.OpMulti, req, &resp); err != nil {
		return bw.batch.opError("write", ops[0].Path, err)
	}
	if validate {
		if len(resp.Results) != len(req.Ops) {
			return fmt.Errorf("a transaction of %d operations was answered with %d results", len(req.Ops), len(resp.Results))
		}
		last := resp.Results[len(ops)]
		if last.Type != jute.OpError || last.Err == jute.ErrOK {
			// Nothing can make the check pass; were it to, the ops
			// applied, and a dry run must say so.
			return fmt.Errorf("the transaction meant to validate %d operations from %s applied them", len(ops), ops[0].Path)
		}
		// The check failed, as meant: an op before it that failed is
		// the refusal, found below; when none did, every op would apply.
		resp.Results = resp.Results[:len(ops)]
	}
	for i, r := range resp.Results {
		// The failed operation carries its code; the others say "rolled
		// back" (runtime inconsistency) or 0 (done, then undone).
		if r.Type == jute.OpError && r.Err != jute.ErrOK && r.Err != jute.ErrRuntimeInconsistency && i < len(ops) {
			return &MultiError{Index: i, Op: ops[i], Err: bw.batch.opError(opName(ops[i].Kind), ops[i].Path, &zkwire.ServerError{Code: r.Err})}
		}
	}
	if len(resp.Results) != len(ops) {
		return fmt.Errorf("a transaction of %d operations was answered with %d results", len(ops), len(resp.Results))
	}
	return nil
}

func opName(k WriteKind) string { return [...]string{"create", "set", "delete"}[k] }

// Exists reports, for many paths at once (pipelined), which exist; an
// error for a path is returned in errs.
func (bw *BulkWriter) Exists(ctx context.Context, paths []string) (exists []bool, errs []error) {
	exists, errs = make([]bool, len(paths)), make([]error, len(paths))
	eachBounded(len(paths), 64, func(i int) {
		var resp jute.StatResponse
		err := bw.batch.call(ctx, jute.OpExists, &jute.PathWatchRequest{Path: bw.batch.target.Abs(paths[i])}, &resp)
		var se *zkwire.ServerError
		switch {
		case errors.As(err, &se) && se.Code == jute.ErrNoNode:
		case err != nil:
			errs[i] = bw.batch.opError("stat", paths[i], err)
		default:
			exists[i] = true
		}
	})
	return exists, errs
}

// SetACL replaces a node's ACL if its aversion matches (-1: any).
func (bw *BulkWriter) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) error {
	var resp jute.StatResponse
	if err := bw.batch.call(ctx, jute.OpSetACL, &jute.SetACLRequest{Path: bw.batch.target.Abs(path), ACL: juteACL(acl), Version: version}, &resp); err != nil {
		return bw.batch.opError("set ACL of", path, err)
	}
	return nil
}

func juteACL(acl []zk.ACL) []jute.ACL {
	out := make([]jute.ACL, len(acl))
	for i, a := range acl {
		out[i] = jute.ACL{Perms: a.Perms, ID: jute.Id{Scheme: a.Scheme, ID: a.ID}}
	}
	return out
}
