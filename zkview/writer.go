package zkview

import (
	"context"
	"sort"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zklimit"
)

// Writer makes changes through a Client. A read-only client never hands one
// out, so no code path of a read-only zkx can write.
type Writer struct{ client *Client }

// Writer returns the client's writer, or ErrReadOnly.
func (c *Client) Writer() (*Writer, error) {
	if c.readOnly {
		return nil, ErrReadOnly
	}
	return &Writer{c}, nil
}

// Create makes a node (flags as zk.FlagEphemeral etc.) with an open ACL and
// returns its path (under the chroot).
func (w *Writer) Create(ctx context.Context, path string, data []byte, flags int32) (string, error) {
	acl := zk.WorldACL(zk.PermAll)
	if err := zklimit.CheckCreate(w.client.Abs(path), data, acl); err != nil {
		return "", err
	}
	return do(ctx, w.client, "create", path, func(string) (string, error) {
		p, err := w.client.conn.Create(w.client.Abs(path), data, flags, acl)
		return w.client.Rel(p), err
	})
}

// Set replaces a node's data if its version matches (-1: any).
func (w *Writer) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if err := zklimit.CheckSet(w.client.Abs(path), data); err != nil {
		return nil, err
	}
	return do(ctx, w.client, "set", path, func(string) (*zk.Stat, error) {
		return w.client.conn.Set(w.client.Abs(path), data, version)
	})
}

// Delete removes a childless node if its version matches (-1: any).
func (w *Writer) Delete(ctx context.Context, path string, version int32) error {
	_, err := do(ctx, w.client, "delete", path, func(string) (struct{}, error) {
		return struct{}{}, w.client.conn.Delete(w.client.Abs(path), version)
	})
	return err
}

// DeleteRecursive removes a node and everything below it, deepest first. It
// stops at the first failure other than a node already gone.
func (w *Writer) DeleteRecursive(ctx context.Context, path string) error {
	children, _, err := w.client.Children(ctx, path)
	if IsNoNode(err) {
		return nil
	}
	if err != nil {
		return err
	}
	sort.Strings(children)
	for _, child := range children {
		if err := w.DeleteRecursive(ctx, ChildPath(path, child)); err != nil {
			return err
		}
	}
	if err := w.Delete(ctx, path, -1); err != nil && !IsNoNode(err) {
		return err
	}
	return nil
}

// SetACL replaces a node's ACL if its aversion matches (-1: any).
func (w *Writer) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	return do(ctx, w.client, "set ACL of", path, func(string) (*zk.Stat, error) {
		return w.client.conn.SetACL(w.client.Abs(path), acl, version)
	})
}
