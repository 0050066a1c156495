package zkview

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/zklimit"
	"github.com/zkx-dev/zkx/internal/zkwire"
)

// A batch's multiRead is sized by its bytes: a ZooKeeper server drops the
// connection of a request longer than its jute.maxbuffer (1 MiB by
// default), and with names near ZooKeeper's path limit a handful of nodes
// make one. Its reply is not bounded by the server, only by what zkx reads
// (zkdial.DefaultMaxFrame): a batch whose connection ends — the server's
// refusal, or a reply larger than zkx reads — is read again one node at a
// time, each with two plain requests, on a connection dialled anew.

// listShare is one node's share of a batch's multiRead: its getChildren
// and its getData.
func listShare(absPath string) int {
	return 2 * (zklimit.MultiOpHeader + zklimit.PathWatchSize(absPath))
}

// fitsMultiRead reports whether a multiRead of records bytes over ops
// operations is one a server takes.
func fitsMultiRead(ops, records int) bool {
	return zklimit.MultiSize(ops, records) <= zklimit.MaxRequest
}

// runsBySize cuts paths (absolute) into runs of consecutive indexes whose
// multiRead fits a server's request limit; a path whose own multiRead does
// not fit is a run of its own.
func runsBySize(abs []string) [][]int {
	var runs [][]int
	var run []int
	records := 0
	for i, p := range abs {
		share := listShare(p)
		if len(run) > 0 && !fitsMultiRead(2*(len(run)+1), records+share) {
			runs = append(runs, run)
			run, records = nil, 0
		}
		run = append(run, i)
		records += share
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}
	return runs
}

// listRun lists the nodes of one run into out: one multiRead when it
// fits, else (and when the server ends the connection on it) each node
// alone.
func (b *Batch) listRun(ctx context.Context, paths []string, abs []string, run []int, out []Listing) {
	records := 0
	req := &jute.MultiRequest{Ops: make([]jute.MultiOp, 0, 2*len(run))}
	for _, i := range run {
		records += listShare(abs[i])
		req.Ops = append(req.Ops,
			jute.MultiOp{Type: jute.OpGetChildren, Rec: &jute.PathWatchRequest{Path: abs[i]}},
			jute.MultiOp{Type: jute.OpGetData, Rec: &jute.PathWatchRequest{Path: abs[i]}})
	}
	if !fitsMultiRead(len(req.Ops), records) {
		for _, i := range run {
			out[i] = b.listAlone(ctx, paths[i])
		}
		return
	}
	var resp jute.MultiResponse
	err := b.call(ctx, jute.OpMultiRead, req, &resp)
	if err == nil && len(resp.Results) != len(req.Ops) {
		err = fmt.Errorf("multiRead of %d operations answered %d", len(req.Ops), len(resp.Results))
	}
	if wireConnEnded(err) && ctx.Err() == nil {
		for _, i := range run {
			out[i] = b.listAlone(ctx, paths[i])
		}
		return
	}
	for k, i := range run {
		if err != nil {
			out[i].Err = b.pathError(paths[i], err)
			continue
		}
		children, data := resp.Results[2*k], resp.Results[2*k+1]
		switch {
		case children.Type == jute.OpError:
			out[i].Err = b.pathError(paths[i], &zkwire.ServerError{Code: children.Err})
		case data.Type == jute.OpError:
			out[i].Err = b.pathError(paths[i], &zkwire.ServerError{Code: data.Err})
		default:
			out[i].Children = children.Rec.(*jute.StringsResponse).Strings
			got := data.Rec.(*jute.GetDataResponse)
			out[i].Stat, out[i].Data = zkStat(got.Stat), got.Data
		}
	}
}

// listAlone lists one node with a getChildren2 and a getData: requests
// the size of its path, which a server takes when it took the node's
// create.
func (b *Batch) listAlone(ctx context.Context, path string) Listing {
	abs := b.target.Abs(path)
	var children jute.GetChildren2Response
	if err := b.call(ctx, jute.OpGetChildren2, &jute.PathWatchRequest{Path: abs}, &children); err != nil {
		return Listing{Err: b.pathError(path, sizeSuspected(err))}
	}
	var data jute.GetDataResponse
	if err := b.call(ctx, jute.OpGetData, &jute.PathWatchRequest{Path: abs}, &data); err != nil {
		return Listing{Err: b.pathError(path, sizeSuspected(err))}
	}
	return Listing{Children: children.Children, Stat: zkStat(data.Stat), Data: data.Data}
}

// wireConnEnded reports whether a wire call failed because its connection
// ended (rather than with the server's answer).
func wireConnEnded(err error) bool { return errors.Is(err, zkwire.ErrClosed) }

// sizeSuspected says what an ended connection on a node read alone most
// likely means.
func sizeSuspected(err error) error {
	if !wireConnEnded(err) {
		return err
	}
	return fmt.Errorf("the server closed the connection on this node's read (a request or a reply larger than it or zkx takes?): %w", err)
}

// call sends one request on the batch's next connection.
func (b *Batch) call(ctx context.Context, op jute.Op, req, resp jute.Record) error {
	wc, err := b.live(ctx, int(b.next.Add(1)%uint64(len(b.conns))))
	if err != nil {
		return err
	}
	return wc.Call(ctx, op, req, resp)
}

// live returns a slot's connection, dialled again when it has ended (the
// server dropped it): one dropped request does not fail every later one.
func (b *Batch) live(ctx context.Context, slot int) (*zkwire.Conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wc := b.conns[slot]
	if wc.Err() == nil || b.redial == nil {
		return wc, nil
	}
	fresh, err := b.redial(ctx)
	if err != nil {
		return nil, fmt.Errorf("batched reads on %s: %w", b.server, err)
	}
	b.conns[slot] = fresh
	return fresh, nil
}

// connections are the batch's connections now.
func (b *Batch) connections() []*zkwire.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*zkwire.Conn(nil), b.conns...)
}
