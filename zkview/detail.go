package zkview

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview/decode"
)

// DetailReader is what NodeDetail reads through: a *Client, or a fake in
// tests.
type DetailReader interface {
	Get(ctx context.Context, path string) ([]byte, *zk.Stat, error)
	ACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error)
	// Exists gives the stat of a node we may not read: it needs no
	// permission. It returns nil for a node that does not exist.
	Exists(ctx context.Context, path string) (*zk.Stat, error)
}

var _ DetailReader = (*Client)(nil)

// NoAccessText is what the detail of a node shows in place of what the
// server would not let us read.
const NoAccessText = "no access"

// Detail is everything shown of one node: its data (decoded), stat and
// ACL, each already formatted, and the raw values for JSON output.
type Detail struct {
	Path string
	// Data is the node's data: nil for null data, and when NoDataAccess.
	Data []byte
	// NoDataAccess is set when the server refused to read the data (the
	// ACL grants us no READ): Decoded.Text is then NoAccessText.
	NoDataAccess bool
	// Decoded is Data through the decoder asked for.
	Decoded decode.Result
	// Stat is the node's stat, as read with its data when we may read it,
	// else with its ACL or, failing that, with exists.
	Stat *zk.Stat
	// StatFields is Stat formatted relative to Fetched (see FormatStat).
	StatFields []Field
	// ACL is the node's ACL; nil when NoACLAccess.
	ACL []zk.ACL
	// NoACLAccess is set when the server refused to read the ACL (reading
	// it needs READ or ADMIN): ACLFields is then one row "acl": NoAccessText.
	NoACLAccess bool
	// ACLFields is ACL formatted (see FormatACL).
	ACLFields []Field
	// Fetched is when the detail was read.
	Fetched time.Time
}

// Redecode shows the detail's data with another decoder, with no round trip
// to the server (for a viewer cycling through decode.Choices).
func (d *Detail) Redecode(with decode.Decoder) decode.Result {
	if d.NoDataAccess {
		return noDataAccess()
	}
	return decode.Data(d.Data, with)
}

// noDataAccess is the decoded form of data we may not read.
func noDataAccess() decode.Result {
	return decode.Result{Text: NoAccessText, Note: "the node's ACL does not let this session read its data (add credentials with --auth)"}
}

// NodeDetail reads a node's data, stat and ACL (data and ACL in parallel)
// and formats them, the data with the given decoder. A node we may not read
// is not an error: its data and ACL show NoAccessText, its stat is still there
// (exists needs no permission), and the view goes on. Errors are those of the
// reads (a *PathError naming the path): the node does not exist
// (IsNoNode), the connection is down, ctx ended.
func NodeDetail(ctx context.Context, r DetailReader, path string, with decode.Decoder) (*Detail, error) {
	type aclResult struct {
		acl  []zk.ACL
		stat *zk.Stat
		err  error
	}
	aclc := make(chan aclResult, 1)
	go func() {
		acl, stat, err := r.ACL(ctx, path)
		aclc <- aclResult{acl, stat, err}
	}()
	data, stat, err := r.Get(ctx, path)
	a := <-aclc

	d := &Detail{Path: path, Fetched: time.Now()}
	switch {
	case err == nil:
		d.Data, d.Stat, d.Decoded = data, stat, decode.DataAt(path, data, with)
	case IsNoAuth(err):
		d.NoDataAccess, d.Decoded = true, noDataAccess()
	default:
		return nil, err
	}
	switch {
	case a.err == nil:
		d.ACL, d.ACLFields = a.acl, FormatACL(a.acl)
		if d.Stat == nil {
			d.Stat = a.stat
		}
	case IsNoAuth(a.err):
		d.NoACLAccess, d.ACLFields = true, []Field{{Name: "acl", Value: NoAccessText}}
	default:
		return nil, a.err
	}
	if d.Stat == nil {
		st, err := r.Exists(ctx, path)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, &PathError{Op: "stat", Path: path, Err: zk.ErrNoNode}
		}
		d.Stat = st
	}
	d.StatFields = FormatStat(d.Stat, d.Fetched)
	return d, nil
}
