package zkview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/zkdial"
	"github.com/zkx-dev/zkx/internal/zkwire"
)

// Listing is one node of a batched listing: its children and stat, or why
// it could not be listed.
type Listing struct {
	Children []string
	Stat     *zk.Stat
	Data     []byte // getData brings it with the stat
	Err      error
}

// BatchReader lists many nodes in one request. Walk reads through one, a
// batch of nodes per request, when its Reader is one.
type BatchReader interface {
	Reader
	ListBatch(ctx context.Context, paths []string) []Listing
	// BatchSize is how many nodes one ListBatch should list.
	BatchSize() int
}

// Batch reads a large tree in few requests: each multiRead (ZooKeeper
// 3.6+) lists BatchSize nodes, getChildren and getData of each (the
// latter for its stat), where go-zookeeper sends a request per node —
// the server's per-request work is what bounds a walk. It reads over
// connections of its own, with the Client's credentials, and sets no
// watches. A Batch is a BatchReader and a Reader.
type Batch struct {
	mu     sync.Mutex // guards conns, whose ended ones are dialled anew
	conns  []*zkwire.Conn
	redial func(ctx context.Context) (*zkwire.Conn, error)
	next   atomic.Uint64
	target connstr.ConnectString
	server string
	owner  *Client // closed with the batch, when it was dialed for it
}

// batchNodes is how many nodes a walker hands ListBatch at once: large
// enough that the request overhead is shared out, small enough that the
// reply of nodes with much data stays well within the frame limit.
// ListBatch cuts them further by bytes (batch_size.go).
const batchNodes = 32

// ErrNoMultiRead is returned by DialBatch for a server that does not
// answer multiRead (ZooKeeper before 3.6): read node by node instead.
var ErrNoMultiRead = errors.New("the server does not answer multiRead (ZooKeeper 3.6+)")

// DialBatch opens n connections for batched reads to the server the
// client is connected to, with the client's credentials, and checks that
// the server answers multiRead (ErrNoMultiRead when it does not).
func (c *Client) DialBatch(ctx context.Context, n int) (*Batch, error) {
	b, err := c.dialWire(ctx, n)
	if err != nil {
		return nil, err
	}
	if err := b.probe(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// dialWire opens n raw connections to the client's server with its
// credentials.
func (c *Client) dialWire(ctx context.Context, n int) (*Batch, error) {
	server := c.conn.Server()
	if server == "" {
		return nil, fmt.Errorf("batched reads: not connected")
	}
	b := &Batch{target: c.target, server: server}
	b.redial = func(ctx context.Context) (*zkwire.Conn, error) { return c.dialWireConn(ctx, server, nil) }
	for range max(n, 1) {
		wc, err := c.dialWireConn(ctx, server, nil)
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("batched reads on %s: %w", server, err)
		}
		b.conns = append(b.conns, wc)
	}
	return b, nil
}

// dialWireConn opens one raw session to server as the client's own was
// opened (TLS, SASL, credentials); notify receives its notifications.
func (c *Client) dialWireConn(ctx context.Context, server string, notify func(jute.WatcherEvent, uint64)) (*zkwire.Conn, error) {
	o := c.dialedOptions()
	dial := func(ctx context.Context, _, addr string) (net.Conn, error) {
		return o.dial.Dial(ctx, addr, batchDialTimeout) // TLS, SASL: as the client's own
	}
	wc, err := zkwire.Dial(ctx, server, zkwire.Options{SessionTimeout: c.timeout, Dial: dial, Notify: notify})
	if err != nil {
		return nil, err
	}
	for _, a := range o.auth {
		if err := wc.AddAuth(ctx, a.scheme, a.creds); err != nil {
			wc.Close()
			return nil, fmt.Errorf("add %s credentials: %w", a.scheme, err)
		}
	}
	return wc, nil
}

// probe asks a multiRead of the root's children. A server that cannot
// answer it (one before 3.6 refuses the request, closes the connection or
// answers what is not a multiRead reply) is ErrNoMultiRead: its tree is
// read node by node instead.
func (b *Batch) probe(ctx context.Context) error {
	var resp jute.MultiResponse
	err := b.conns[0].Call(ctx, jute.OpMultiRead, &jute.MultiRequest{Ops: []jute.MultiOp{
		{Type: jute.OpGetChildren, Rec: &jute.PathWatchRequest{Path: b.target.Abs("/")}}}}, &resp)
	switch {
	case err == nil && len(resp.Results) == 1:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case err == nil:
		err = fmt.Errorf("%d results for one operation", len(resp.Results))
	}
	return fmt.Errorf("%w: %s: %v", ErrNoMultiRead, b.server, err)
}

// BatchSize implements BatchReader.
func (b *Batch) BatchSize() int { return batchNodes }

// ListBatch lists paths (as the user names them, under the chroot) in as
// few multiReads as fit a server's request limit: each node's children
// (unsorted, as the server gives them) and stat.
func (b *Batch) ListBatch(ctx context.Context, paths []string) []Listing {
	out := make([]Listing, len(paths))
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = b.target.Abs(p)
	}
	for _, run := range runsBySize(abs) {
		b.listRun(ctx, paths, abs, run, out)
	}
	return out
}

// Children lists one node (a Reader's request, one multiRead).
func (b *Batch) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	l := b.ListBatch(ctx, []string{path})[0]
	return l.Children, l.Stat, l.Err
}

// Get reads one node's data and stat.
func (b *Batch) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	var resp jute.GetDataResponse
	if err := b.call(ctx, jute.OpGetData, &jute.PathWatchRequest{Path: b.target.Abs(path)}, &resp); err != nil {
		return nil, nil, b.pathError(path, err)
	}
	return resp.Data, zkStat(resp.Stat), nil
}

// ACL reads one node's ACL and stat.
func (b *Batch) ACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	var resp jute.GetACLResponse
	if err := b.call(ctx, jute.OpGetACL, &jute.PathRequest{Path: b.target.Abs(path)}, &resp); err != nil {
		return nil, nil, b.opError("get ACL of", path, err)
	}
	return zkACL(resp.ACL), zkStat(resp.Stat), nil
}

// ACLs implements ACLBatchReader: the getACLs go in one write on one
// connection (a multiRead cannot carry them). A node whose read met an
// ended connection is read again alone, on a connection dialled anew.
func (b *Batch) ACLs(ctx context.Context, paths []string) []ACLResult {
	out := make([]ACLResult, len(paths))
	wc, err := b.live(ctx, int(b.next.Add(1)%uint64(len(b.conns))))
	if err != nil {
		for i, p := range paths {
			out[i].Err = b.opError("get ACL of", p, err)
		}
		return out
	}
	resps := make([]jute.GetACLResponse, len(paths))
	reqs := make([]zkwire.Request, len(paths))
	for i, p := range paths {
		reqs[i] = zkwire.Request{Op: jute.OpGetACL, Req: &jute.PathRequest{Path: b.target.Abs(p)}, Resp: &resps[i]}
	}
	for i, err := range wc.CallAll(ctx, reqs) {
		switch {
		case wireConnEnded(err) && ctx.Err() == nil:
			out[i].ACL, out[i].Stat, out[i].Err = b.ACL(ctx, paths[i])
		case err != nil:
			out[i].Err = b.opError("get ACL of", paths[i], err)
		default:
			out[i] = ACLResult{ACL: zkACL(resps[i].ACL), Stat: zkStat(resps[i].Stat)}
		}
	}
	return out
}

// zkACL is a wire ACL as go-zookeeper's.
func zkACL(wire []jute.ACL) []zk.ACL {
	acl := make([]zk.ACL, len(wire))
	for i, a := range wire {
		acl[i] = zk.ACL{Perms: a.Perms, Scheme: a.ID.Scheme, ID: a.ID.ID}
	}
	return acl
}

// Close ends the batch's sessions, all at once: each waits up to a
// second for its closeSession to be answered, which a server gone silent
// never does.
func (b *Batch) Close() {
	var wg sync.WaitGroup
	for _, c := range b.connections() {
		wg.Go(func() { c.Close() })
	}
	wg.Wait()
	if b.owner != nil {
		b.owner.Close()
	}
}

// pathError names the path and the server, with go-zookeeper's errors
// for ZooKeeper's codes, so that IsNoNode and IsNoAuth hold.
func (b *Batch) pathError(path string, err error) error { return b.opError("list", path, err) }

// opError is pathError for another operation.
func (b *Batch) opError(op, path string, err error) error { return wireError(op, path, b.server, err) }

// wireError names the path and the server of a failed wire request, with
// go-zookeeper's errors for ZooKeeper's codes, so that IsNoNode and
// IsNoAuth hold whichever client asked.
func wireError(op, path, server string, err error) error {
	var se *zkwire.ServerError
	var bad *zkdial.ProtocolError
	if errors.As(err, &bad) {
		err = bad // what the server did, rather than the connection's end it caused
	}
	if errors.As(err, &se) {
		switch se.Code {
		case jute.ErrNoNode:
			err = zk.ErrNoNode
		case jute.ErrNoAuth:
			err = zk.ErrNoAuth
		case jute.ErrNodeExists:
			err = zk.ErrNodeExists
		case jute.ErrNotEmpty:
			err = zk.ErrNotEmpty
		case jute.ErrBadVersion:
			err = zk.ErrBadVersion
		case jute.ErrInvalidACL:
			err = zk.ErrInvalidACL
		case jute.ErrNoChildrenForEphemerals:
			err = zk.ErrNoChildrenForEphemerals
		}
	}
	return &PathError{Op: op, Path: path, Server: server, Err: err}
}

// zkStat is a wire stat as go-zookeeper's.
func zkStat(s jute.Stat) *zk.Stat {
	return &zk.Stat{Czxid: s.Czxid, Mzxid: s.Mzxid, Ctime: s.Ctime, Mtime: s.Mtime, Version: s.Version,
		Cversion: s.Cversion, Aversion: s.Aversion, EphemeralOwner: s.EphemeralOwner, DataLength: s.DataLength,
		NumChildren: s.NumChildren, Pzxid: s.Pzxid}
}

// dialedOptions are the options the client was dialed with.
func (c *Client) dialedOptions() options {
	var o options
	for _, opt := range c.opts {
		opt(&o)
	}
	return o
}

// batchDialTimeout bounds a batch connection's dial.
const batchDialTimeout = 5 * time.Second

// BulkReader reads a large tree: a Batch where the server answers
// multiRead, a Pool of sessions where it does not.
type BulkReader interface {
	Reader
	Close()
}

// DialBulk opens n connections beside the client's for reading a large
// tree: batched (multiRead) when the server answers it, else a Pool.
func (c *Client) DialBulk(ctx context.Context, n int) (BulkReader, error) {
	b, err := c.DialBatch(ctx, n)
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, ErrNoMultiRead) {
		return nil, err
	}
	return c.DialPool(ctx, n)
}

// DialBulk dials connect for reading a large tree (see Client.DialBulk):
// one session to learn the server, and n connections that read; Close
// ends them all.
func DialBulk(ctx context.Context, connect string, n int, opts ...Option) (BulkReader, error) {
	c, err := Dial(ctx, connect, opts...)
	if err != nil {
		return nil, err
	}
	r, err := c.DialBulk(ctx, n)
	if err != nil {
		c.Close()
		return nil, err
	}
	switch r := r.(type) {
	case *Batch:
		r.owner = c
	case *Pool:
		r.owner = c
	}
	return r, nil
}
