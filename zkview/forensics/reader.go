package forensics

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// storeReader reads a Store as zkview.Reader reads a server, so that
// zkview/recognize tells what the rebuilt tree holds exactly as it tells a
// live one, and zkview.Walk walks it (ACLs too) as a live one.
type storeReader struct{ st Store }

func (r storeReader) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	n, ok := r.st.Get(path)
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return r.st.Children(path), n.ClientStat(), nil
}

func (r storeReader) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	n, ok := r.st.Get(path)
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	return n.Data, n.ClientStat(), nil
}

// ACL reads a node's ACL whole (no digest hash hidden: the files are in
// the reader's hands anyway).
func (r storeReader) ACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	n, ok := r.st.Get(path)
	if !ok {
		return nil, nil, zk.ErrNoNode
	}
	acl := make([]zk.ACL, len(n.ACL))
	for i, a := range n.ACL {
		acl[i] = zk.ACL{Perms: a.Perms, Scheme: a.ID.Scheme, ID: a.ID.ID}
	}
	return acl, n.ClientStat(), nil
}

// storeBatch is how many nodes a walk hands the store at once: its reads
// are lookups in memory, so a batch only spares the walk its hand-offs.
const storeBatch = 64

// BatchSize implements zkview.BatchReader.
func (r storeReader) BatchSize() int { return storeBatch }

// ListBatch implements zkview.BatchReader: each node's children, stat
// and data, read in turn (a walk would otherwise start a goroutine per
// node for its data).
func (r storeReader) ListBatch(ctx context.Context, paths []string) []zkview.Listing {
	out := make([]zkview.Listing, len(paths))
	for i, p := range paths {
		n, ok := r.st.Get(p)
		if !ok {
			out[i].Err = zk.ErrNoNode
			continue
		}
		out[i] = zkview.Listing{Children: r.st.Children(p), Stat: n.ClientStat(), Data: n.Data}
	}
	return out
}

// ACLs implements zkview.ACLBatchReader.
func (r storeReader) ACLs(ctx context.Context, paths []string) []zkview.ACLResult {
	out := make([]zkview.ACLResult, len(paths))
	for i, p := range paths {
		out[i].ACL, out[i].Stat, out[i].Err = r.ACL(ctx, p)
	}
	return out
}
