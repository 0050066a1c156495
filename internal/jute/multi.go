package jute

import (
	"errors"
	"fmt"
)

// MultiOp is one operation of a multi (transaction) or multiRead request.
// Rec is *CreateRequest, *PathIntRequest (delete, check), *SetDataRequest or,
// in a multiRead, *PathWatchRequest (getChildren, getData).
type MultiOp struct {
	Type Op
	Rec  Record
}

// ErrMixedMulti reports a multi that mixes reads with writes, which ZooKeeper
// refuses while decoding.
var ErrMixedMulti = errors.New("jute: multi mixes read and write operations")

// MultiRequest is the body of a multi or multiRead request.
type MultiRequest struct {
	Ops []MultiOp
}

// Encode writes each op behind its header and ends with the done header.
func (r *MultiRequest) Encode(e *Encoder) {
	for _, op := range r.Ops {
		(&MultiHeader{Type: op.Type, Done: false, Err: -1}).Encode(e)
		op.Rec.Encode(e)
	}
	(&MultiHeader{Type: -1, Done: true, Err: -1}).Encode(e)
}

// Decode reads ops until the done header. An unknown op type, or reads mixed
// with writes, fail the decoder as ZooKeeper's MultiOperationRecord does.
func (r *MultiRequest) Decode(d *Decoder) {
	r.Ops = nil
	reads, writes := false, false
	for d.Err() == nil {
		var h MultiHeader
		h.Decode(d)
		if d.Err() != nil || h.Done {
			return
		}
		switch h.Type {
		case OpCreate, OpCreate2, OpCreateContainer, OpCreateTTL, OpDelete, OpCheck, OpSetData:
			writes = true
		case OpGetChildren, OpGetData:
			reads = true
		default:
			d.fail(fmt.Errorf("jute: invalid multi op type %d", h.Type))
			return
		}
		if reads && writes {
			d.fail(ErrMixedMulti)
			return
		}
		rec := RequestRecord(h.Type)
		rec.Decode(d)
		r.Ops = append(r.Ops, MultiOp{Type: h.Type, Rec: rec})
	}
}

// MultiResult is one result of a multi: Type is the op's result type, or
// OpError with Err set. Rec is nil for delete, check and error results.
type MultiResult struct {
	Type Op
	Err  Code
	Rec  Record
}

// MultiResponse is the body of a multi or multiRead reply.
type MultiResponse struct {
	Results []MultiResult
}

// Encode writes each result behind its header; an error result carries its
// code in the header and again in an ErrorResponse body, as ZooKeeper does.
func (r *MultiResponse) Encode(e *Encoder) {
	for _, res := range r.Results {
		errCode := ErrOK
		if res.Type == OpError {
			errCode = res.Err
		}
		(&MultiHeader{Type: res.Type, Done: false, Err: errCode}).Encode(e)
		switch {
		case res.Type == OpError:
			e.Int(int32(res.Err))
		case res.Rec != nil:
			res.Rec.Encode(e)
		}
	}
	(&MultiHeader{Type: -1, Done: true, Err: -1}).Encode(e)
}

// Decode reads results until the done header.
func (r *MultiResponse) Decode(d *Decoder) {
	r.Results = nil
	for d.Err() == nil {
		var h MultiHeader
		h.Decode(d)
		if d.Err() != nil || h.Done {
			return
		}
		res := MultiResult{Type: h.Type}
		switch h.Type {
		case OpCreate:
			res.Rec = &PathResponse{}
		case OpCreate2:
			res.Rec = &Create2Response{}
		case OpSetData:
			res.Rec = &StatResponse{}
		case OpGetChildren:
			res.Rec = &StringsResponse{}
		case OpGetData:
			res.Rec = &GetDataResponse{}
		case OpDelete, OpCheck:
		case OpError:
			res.Err = Code(d.Int())
		default:
			d.fail(fmt.Errorf("jute: invalid multi result type %d", h.Type))
			return
		}
		if res.Rec != nil {
			res.Rec.Decode(d)
		}
		r.Results = append(r.Results, res)
	}
}
