package fakezk

import (
	"github.com/zkx-dev/zkx/internal/jute"
)

// tree is the little tree an honest fake serves: the root and
// /zookeeper, as a fresh ZooKeeper has them.
var tree = map[string][]string{"/": {"zookeeper"}, "/zookeeper": {}}

func statOf(path string) jute.Stat {
	return jute.Stat{NumChildren: int32(len(tree[path])), Ctime: 1, Mtime: 1}
}

// Answer answers req as ZooKeeper would over the little tree: reads of
// / and /zookeeper, pings, closeSession, setWatches and auth succeed;
// other paths do not exist; writes are refused (no permission) and
// requests it does not know (multiRead among them) are unimplemented,
// as an old ZooKeeper's are.
func (p *Peer) Answer(req Request) error {
	_, exists := tree[req.Path]
	switch req.Op {
	case jute.OpPing:
		return p.Reply(jute.XidPing, jute.ErrOK, nil)
	case jute.OpCloseSession, jute.OpSetWatches, jute.OpAuth:
		return p.Reply(req.Xid, jute.ErrOK, nil)
	case jute.OpExists, jute.OpGetData, jute.OpGetChildren, jute.OpGetChildren2, jute.OpGetACL, jute.OpSync:
		if !exists {
			return p.Reply(req.Xid, jute.ErrNoNode, nil)
		}
	case jute.OpCreate, jute.OpDelete, jute.OpSetData, jute.OpSetACL, jute.OpMulti:
		return p.Reply(req.Xid, jute.ErrNoAuth, nil)
	default:
		return p.Reply(req.Xid, jute.ErrUnimplemented, nil)
	}
	st := statOf(req.Path)
	switch req.Op {
	case jute.OpExists:
		return p.Reply(req.Xid, jute.ErrOK, &jute.StatResponse{Stat: st})
	case jute.OpGetData:
		return p.Reply(req.Xid, jute.ErrOK, &jute.GetDataResponse{Stat: st})
	case jute.OpGetChildren:
		return p.Reply(req.Xid, jute.ErrOK, &jute.StringsResponse{Strings: tree[req.Path]})
	case jute.OpGetChildren2:
		return p.Reply(req.Xid, jute.ErrOK, &jute.GetChildren2Response{Children: tree[req.Path], Stat: st})
	case jute.OpGetACL:
		return p.Reply(req.Xid, jute.ErrOK, &jute.GetACLResponse{
			ACL: []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}, Stat: st})
	default: // sync
		return p.Reply(req.Xid, jute.ErrOK, &jute.PathResponse{Path: req.Path})
	}
}

// Serve answers every request with answer until the connection ends.
func (p *Peer) Serve(answer func(Request) error) {
	for {
		req, err := p.ReadRequest()
		if err != nil {
			return
		}
		if err := answer(req); err != nil {
			return
		}
		if req.Op == jute.OpCloseSession {
			return
		}
	}
}
