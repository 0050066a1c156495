package zkview

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Reader is what recognisers read through: a Client, or a fake in tests.
type Reader interface {
	Children(ctx context.Context, path string) ([]string, *zk.Stat, error)
	Get(ctx context.Context, path string) ([]byte, *zk.Stat, error)
}

// ACLReader reads a node's ACL: a Client, a Batch or a Pool.
type ACLReader interface {
	ACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error)
}

// ACLBatchReader reads many nodes' ACLs at once: a Batch. Walk reads
// ACLs through one when its Reader is one.
type ACLBatchReader interface {
	ACLs(ctx context.Context, paths []string) []ACLResult
}

// ACLResult is one node's ACL and stat, or why they could not be read.
type ACLResult struct {
	ACL  []zk.ACL
	Stat *zk.Stat
	Err  error
}
