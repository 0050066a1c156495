package forensics

import (
	"context"

	"github.com/go-zookeeper/zk"
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
