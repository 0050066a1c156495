package zkserver

import "github.com/zkx-dev/zkx/internal/jute"

// multiCreateOp is the op a create inside a multi becomes: ZooKeeper
// rebuilds it from its flags (Op.create), so create2 turns into create, and
// the container and TTL flags pick their own ops.
func multiCreateOp(mode jute.CreateMode) jute.Op {
	if !mode.Valid() {
		mode = jute.ModePersistent
	}
	switch {
	case mode.IsTTL():
		return jute.OpCreateTTL
	case mode.IsContainer():
		return jute.OpCreateContainer
	default:
		return jute.OpCreate
	}
}

// applyMulti runs a transaction: every op under one zxid, all or nothing.
// On failure ZooKeeper answers Ok (0) for the ops before the failing one, its
// error for that one, and RuntimeInconsistency for the rest, in a reply whose
// header says Ok. ok is false when the multi holds a read op, which ZooKeeper
// fails as a marshalling error.
func (s *Server) applyMulti(c *conn, ops []jute.MultiOp, zxid, now int64) (*jute.MultiResponse, bool) {
	var undo undoLog
	var changes []change
	resp := &jute.MultiResponse{Results: make([]jute.MultiResult, len(ops))}
	failed := -1
	var failCode jute.Code
	for i, op := range ops {
		typ := op.Type
		switch typ {
		case jute.OpGetChildren, jute.OpGetData:
			undo.rollback()
			return nil, false
		case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL:
			// A TTL flag on a plain create decoded a TTL of -1: create refuses it.
			typ = multiCreateOp(op.Rec.(*jute.CreateRequest).Flags)
		}
		res, code, ch := s.applyWrite(c, typ, op.Rec, zxid, now, &undo)
		if code != jute.ErrOK {
			failed, failCode = i, code
			break
		}
		resp.Results[i] = jute.MultiResult{Type: res.typ, Rec: res.body}
		changes = append(changes, ch...)
	}
	if failed >= 0 {
		undo.rollback()
		for i := range resp.Results {
			code := jute.ErrOK
			switch {
			case i == failed:
				code = failCode
			case i > failed:
				code = jute.ErrRuntimeInconsistency
			}
			resp.Results[i] = jute.MultiResult{Type: jute.OpError, Err: code}
		}
		return resp, true
	}
	s.deliver(changes)
	return resp, true
}

// multiRead answers a batch of getChildren and getData; each op fails on its
// own. Write ops in a multiRead are a marshalling error.
func (s *Server) multiRead(c *conn, req *jute.MultiRequest) (jute.Record, jute.Code) {
	resp := &jute.MultiResponse{}
	for _, op := range req.Ops {
		var res jute.MultiResult
		switch op.Type {
		case jute.OpGetChildren:
			children, _, code := s.getChildren(c, op.Rec.(*jute.PathWatchRequest).Path, false)
			res = jute.MultiResult{Type: jute.OpGetChildren, Err: code, Rec: &jute.StringsResponse{Strings: children}}
		case jute.OpGetData:
			data, code := s.getData(c, op.Rec.(*jute.PathWatchRequest).Path, false)
			res = jute.MultiResult{Type: jute.OpGetData, Err: code, Rec: data}
		default:
			return nil, jute.ErrMarshallingError
		}
		if res.Err != jute.ErrOK {
			res = jute.MultiResult{Type: jute.OpError, Err: res.Err}
		}
		resp.Results = append(resp.Results, res)
	}
	return resp, jute.ErrOK
}
