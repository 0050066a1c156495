package forensics

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// storeReader reads a Store as zkview.Reader reads a server, so that
// zkview/recognize tells what the rebuilt tree holds exactly as it tells a
// live one.
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
