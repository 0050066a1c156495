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
