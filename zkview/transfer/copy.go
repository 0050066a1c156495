package transfer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zkx-dev/zkx/zkview"
)

// Survey is what a subtree holds, read before a move or a copy is
// confirmed.
type Survey struct {
	Nodes, Ephemeral, Unreadable int
	NoRead                       int // of Unreadable, refused for want of READ permission
}

// SurveyTree counts root's nodes, ephemerals and unreadable nodes.
func SurveyTree(ctx context.Context, r zkview.Reader, root string) (Survey, error) {
	var s Survey
	err := zkview.Walk(ctx, r, root, zkview.WalkOptions{}, func(n zkview.WalkNode) error {
		s.Nodes++
		switch {
		case n.Err != nil:
			s.Unreadable++
			if zkview.IsNoAuth(n.Err) {
				s.NoRead++
			}
		case zkview.IsSessionOwner(n.Stat.EphemeralOwner):
			s.Ephemeral++
		}
		return nil
	})
	if err == nil && s.Nodes == 1 && s.Unreadable == 1 {
		err = fmt.Errorf("%s: cannot be read", root)
	}
	return s, err
}

// CheckDestination refuses a copy of src onto itself or below itself.
func CheckDestination(src, dst string) error {
	switch {
	case src == "/":
		return fmt.Errorf("the root cannot be copied or moved as a whole: name a node below it")
	case dst == src:
		return fmt.Errorf("%s is the source itself", dst)
	case strings.HasPrefix(dst, src+"/"):
		return fmt.Errorf("%s is inside %s: the copy would copy itself", dst, src)
	case dst == "/zookeeper" || strings.HasPrefix(dst, "/zookeeper/") || src == "/zookeeper" || strings.HasPrefix(src, "/zookeeper/"):
		return fmt.Errorf("/zookeeper belongs to ZooKeeper itself")
	}
	return nil
}

// CopyOptions tunes Copy and Move.
type CopyOptions struct {
	ImportOptions
	// Force moves a subtree that holds ephemeral nodes: they are not
	// recreated (their owner's session cannot be) and are deleted with
	// the source.
	Force bool
}

// MoveReport is what a move did: the copy, then the deletion.
type MoveReport struct {
	Copy    Report `json:"copy"`
	Deleted int    `json:"deleted"`
	// Kept says why the source was not (wholly) deleted.
	Kept string `json:"kept,omitempty"`
}

// Copy recreates src at dst, read live (data, ACLs) and written as Import
// writes a file.
func Copy(ctx context.Context, r zkview.Reader, w *zkview.BulkWriter, src, dst string, opts CopyOptions) (Report, error) {
	if err := CheckDestination(src, dst); err != nil {
		return Report{}, err
	}
	s := WalkSource(ctx, r, src)
	defer s.Close()
	opts.To = dst
	return Import(ctx, w, s, opts.ImportOptions)
}

// Move copies src to dst, then deletes src — only when every node was
// copied, and only the versions copied: a node changed or added since
// is kept (with what is above it), and the report says so.
func Move(ctx context.Context, r zkview.Reader, w *zkview.BulkWriter, src, dst string, opts CopyOptions) (MoveReport, error) {
	var rep MoveReport
	if err := CheckDestination(src, dst); err != nil {
		return rep, err
	}
	if opts.Existing == Overwrite {
		return rep, fmt.Errorf("a move does not overwrite: it would delete nodes it did not copy")
	}
	opts.Ephemerals, opts.To = false, dst
	ws := WalkSource(ctx, r, src)
	defer ws.Close()
	seen := &recordingSource{Source: ws}
	var err error
	rep.Copy, err = Import(ctx, w, seen, opts.ImportOptions)
	if err != nil {
		rep.Kept = "the copy did not finish"
		return rep, err
	}
	switch {
	case opts.DryRun:
		rep.Kept = "dry run"
		return rep, nil
	case rep.Copy.Refused > 0:
		rep.Kept = fmt.Sprintf("%d nodes were not copied", rep.Copy.Refused)
		return rep, nil
	case rep.Copy.Skipped > 0:
		rep.Kept = fmt.Sprintf("%d nodes existed at the destination and were not copied", rep.Copy.Skipped)
		return rep, nil
	case rep.Copy.Ephemeral > 0 && !opts.Force:
		rep.Kept = fmt.Sprintf("it holds %d ephemeral nodes, which cannot be recreated as their owner (force to delete them)", rep.Copy.Ephemeral)
		return rep, nil
	}
	// Deepest first: the reverse of the walk's preorder.
	var ops []zkview.WriteOp
	size := 0
	for i := len(seen.nodes) - 1; i >= 0; i-- {
		n := seen.nodes[i]
		op := zkview.WriteOp{Kind: zkview.OpDelete, Path: n.path, Version: n.version}
		if len(ops) > 0 && (len(ops) >= batchOps || size+op.Size() > batchBytes) {
			if err := moveDelete(ctx, w, ops, &rep); err != nil {
				return rep, err
			}
			ops, size = ops[:0], 0
		}
		ops = append(ops, op)
		size += op.Size()
	}
	return rep, moveDelete(ctx, w, ops, &rep)
}

func moveDelete(ctx context.Context, w *zkview.BulkWriter, ops []zkview.WriteOp, rep *MoveReport) error {
	err := w.Multi(ctx, ops)
	var me *zkview.MultiError
	switch {
	case errors.As(err, &me) && (zkview.IsBadVersion(me.Err) || zkview.IsNotEmpty(me.Err)):
		rep.Kept = fmt.Sprintf("%s changed after it was copied (%v): the rest of the source is kept (%d nodes were deleted before it)", me.Op.Path, me.Err, rep.Deleted)
		return nil
	case err != nil:
		return fmt.Errorf("deleting the source after the copy: %w (%d nodes deleted before; the copy is complete)", err, rep.Deleted)
	}
	rep.Deleted += len(ops)
	return nil
}

// recordingSource remembers each record's path and version, for the
// deletion of a move.
type recordingSource struct {
	Source
	nodes []seenNode
}

type seenNode struct {
	path    string
	version int32
}

func (s *recordingSource) Next() (Record, error) {
	r, err := s.Source.Next()
	if err == nil {
		s.nodes = append(s.nodes, seenNode{r.Path, r.Version})
	}
	return r, err
}
