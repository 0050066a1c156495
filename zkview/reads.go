package zkview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/netfail"
)

// PathError is a failed request, naming the path (as the user wrote it,
// under the chroot) and the server that answered.
type PathError struct {
	Op     string
	Path   string
	Server string
	Err    error
}

func (e *PathError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "zk: ")
	path := display.Line(e.Path) // a path may hold what a terminal would obey
	if e.Server == "" {
		return fmt.Sprintf("%s %s: %s", e.Op, path, msg)
	}
	return fmt.Sprintf("%s %s on %s: %s", e.Op, path, display.Line(e.Server), msg)
}

func (e *PathError) Unwrap() error { return e.Err }

// IsNoNode reports whether err says the node does not exist.
func IsNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }

// IsNoAuth reports whether err says we may not read the node.
func IsNoAuth(err error) bool { return errors.Is(err, zk.ErrNoAuth) }

// IsBadVersion reports whether a conditional write found another version.
func IsBadVersion(err error) bool { return errors.Is(err, zk.ErrBadVersion) }

// IsNodeExists reports whether a create found the node there already.
func IsNodeExists(err error) bool { return errors.Is(err, zk.ErrNodeExists) }

// IsNotEmpty reports whether a delete found children.
func IsNotEmpty(err error) bool { return errors.Is(err, zk.ErrNotEmpty) }

// IsConnectionLoss reports whether a read failed because the connection
// went (or was not there): a Tree reads it again once reconnected. A
// request go-zookeeper was writing when the connection broke gets the
// socket's own error (its sendLoop hands it on): that is a loss too.
func IsConnectionLoss(err error) bool {
	var ne *net.OpError
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) || errors.As(err, &ne)
}

// do runs one go-zookeeper request, giving up waiting when ctx ends (the
// request itself cannot be withdrawn and runs to its end).
func do[T any](ctx context.Context, c *Client, op, path string, f func(server string) (T, error)) (T, error) {
	type result struct {
		value T
		err   error
	}
	ch := make(chan result, 1)
	server := c.conn.Server()
	go func() {
		v, err := f(server)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return r.value, &PathError{Op: op, Path: path, Server: server, Err: c.why(r.err)}
		}
		return r.value, nil
	case <-ctx.Done():
		var zero T
		return zero, &PathError{Op: op, Path: path, Server: server, Err: c.waited(ctx.Err())}
	}
}

// why names what lies behind a request that failed with its connection:
// the server's fault the dial wrapper found (a reply that is not
// ZooKeeper's), or how the connection ended, when that was named.
func (c *Client) why(err error) error {
	if c.dials == nil || !IsConnectionLoss(err) && !errors.Is(err, zk.ErrClosing) {
		return err
	}
	if fatal := c.dials.Fatal(); fatal != nil {
		return fatal
	}
	if broken := c.dials.Broken(); broken != nil {
		return fmt.Errorf("%w (%v)", err, broken)
	}
	return err
}

// waited names what a wait that ended (its context's err) was waiting
// for: a request the server has not answered. The context's end is said
// in plain words ("no answer before the deadline"), its error kept.
func (c *Client) waited(err error) error {
	err = netfail.Describe(context.Background(), err, 0)
	if c.dials == nil {
		return err
	}
	if fatal := c.dials.Fatal(); fatal != nil {
		return fmt.Errorf("%w (%v)", err, fatal)
	}
	if u := c.dials.Unanswered(); u != "" {
		return fmt.Errorf("%w (%s)", err, u)
	}
	return err
}

// Children lists a node's children and returns its stat.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	type r struct {
		children []string
		stat     *zk.Stat
	}
	v, err := do(ctx, c, "list", path, func(string) (r, error) {
		children, stat, err := c.conn.Children(c.Abs(path))
		return r{children, stat}, err
	})
	return v.children, v.stat, err
}

// Get returns a node's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	type r struct {
		data []byte
		stat *zk.Stat
	}
	v, err := do(ctx, c, "get", path, func(string) (r, error) {
		data, stat, err := c.conn.Get(c.Abs(path))
		return r{data, stat}, err
	})
	return v.data, v.stat, err
}

// Exists returns a node's stat, or nil when it does not exist.
func (c *Client) Exists(ctx context.Context, path string) (*zk.Stat, error) {
	return do(ctx, c, "stat", path, func(string) (*zk.Stat, error) {
		ok, stat, err := c.conn.Exists(c.Abs(path))
		if !ok {
			stat = nil // go-zookeeper returns a zero Stat for a missing node
		}
		return stat, err
	})
}

// ACL returns a node's ACL and stat.
func (c *Client) ACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	type r struct {
		acl  []zk.ACL
		stat *zk.Stat
	}
	v, err := do(ctx, c, "get ACL of", path, func(string) (r, error) {
		acl, stat, err := c.conn.GetACL(c.Abs(path))
		return r{acl, stat}, err
	})
	return v.acl, v.stat, err
}

// ChildrenW lists a node's children and leaves a one-shot child watch.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	type reply struct {
		children []string
		stat     *zk.Stat
		watch    <-chan zk.Event
	}
	v, err := do(ctx, c, "list", path, func(string) (reply, error) {
		children, stat, w, err := c.conn.ChildrenW(c.Abs(path))
		return reply{children, stat, w}, err
	})
	return v.children, v.stat, v.watch, err
}

// GetW returns a node's data and stat and leaves a one-shot data watch.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	type reply struct {
		data  []byte
		stat  *zk.Stat
		watch <-chan zk.Event
	}
	v, err := do(ctx, c, "get", path, func(string) (reply, error) {
		data, stat, w, err := c.conn.GetW(c.Abs(path))
		return reply{data, stat, w}, err
	})
	return v.data, v.stat, v.watch, err
}

// ExistsW returns a node's stat (nil when missing) and leaves a one-shot
// watch that fires when it is created, changed or deleted.
func (c *Client) ExistsW(ctx context.Context, path string) (*zk.Stat, <-chan zk.Event, error) {
	type reply struct {
		stat  *zk.Stat
		watch <-chan zk.Event
	}
	v, err := do(ctx, c, "stat", path, func(string) (reply, error) {
		ok, stat, w, err := c.conn.ExistsW(c.Abs(path))
		if !ok {
			stat = nil
		}
		return reply{stat, w}, err
	})
	return v.stat, v.watch, err
}

// Rel maps a server path (as in a watch event) back under the chroot.
func (c *Client) Rel(path string) string { return c.target.Rel(path) }

// StatAll fetches the stats of many nodes with up to concurrency requests in
// flight; stats[i] is nil and errs[i] set where a node could not be read.
func (c *Client) StatAll(ctx context.Context, paths []string, concurrency int) (stats []*zk.Stat, errs []error) {
	stats, errs = make([]*zk.Stat, len(paths)), make([]error, len(paths))
	eachBounded(len(paths), concurrency, func(i int) {
		st, err := c.Exists(ctx, paths[i])
		if err == nil && st == nil {
			err = &PathError{Op: "stat", Path: paths[i], Server: c.Server(), Err: zk.ErrNoNode}
		}
		stats[i], errs[i] = st, err
	})
	return stats, errs
}
