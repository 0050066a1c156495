package zkserver

import (
	"fmt"
	"strings"

	"github.com/zkx-dev/zkx/internal/jute"
)

// opNames are the short names cons prints as lop.
var opNames = map[jute.Op]string{
	jute.OpCreate: "CREA", jute.OpCreate2: "CREA", jute.OpCreateContainer: "CREA", jute.OpCreateTTL: "CREA",
	jute.OpDelete: "DELE", jute.OpDeleteContainer: "DELE", jute.OpExists: "EXIS", jute.OpGetData: "GETD",
	jute.OpSetData: "SETD", jute.OpGetACL: "GETA", jute.OpSetACL: "SETA", jute.OpGetChildren: "GETC",
	jute.OpGetChildren2: "GETC", jute.OpSync: "SYNC", jute.OpPing: "PING", jute.OpCheck: "CHEC",
	jute.OpMulti: "MULT", jute.OpMultiRead: "MLTR", jute.OpReconfig: "RECO", jute.OpCheckWatches: "CHKW",
	jute.OpRemoveWatches: "REMW", jute.OpSetWatches: "SETW", jute.OpSetWatches2: "STW2",
	jute.OpGetEphemerals: "GETE", jute.OpGetAllChildrenNumber: "GETACN", jute.OpAddWatch: "ADDW",
	jute.OpWhoAmI: "HOMI", jute.OpCloseSession: "CLOS",
}

func opName(op jute.Op) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return "NA"
}

// validOps are the op codes ZooKeeper accepts from a client after the
// handshake (Request.isValid); anything else is answered Unimplemented.
var validOps = map[jute.Op]bool{
	jute.OpCreate: true, jute.OpCreate2: true, jute.OpCreateContainer: true, jute.OpCreateTTL: true,
	jute.OpDelete: true, jute.OpDeleteContainer: true, jute.OpExists: true, jute.OpGetData: true,
	jute.OpSetData: true, jute.OpGetACL: true, jute.OpSetACL: true, jute.OpGetChildren: true,
	jute.OpGetChildren2: true, jute.OpSync: true, jute.OpPing: true, jute.OpCheck: true, jute.OpMulti: true,
	jute.OpMultiRead: true, jute.OpReconfig: true, jute.OpCheckWatches: true, jute.OpRemoveWatches: true,
	jute.OpSetWatches: true, jute.OpSetWatches2: true, jute.OpGetEphemerals: true,
	jute.OpGetAllChildrenNumber: true, jute.OpAddWatch: true, jute.OpWhoAmI: true,
	jute.OpCreateSession: true, jute.OpCloseSession: true,
}

func knownOp(op jute.Op) bool { return validOps[op] }

// process applies one request under s.mu and returns its reply frame; the
// notifications it causes are queued before the reply.
func (s *Server) process(c *conn, hdr jute.RequestHeader, d *jute.Decoder) (reply []byte, closeAfter bool) {
	now := s.cfg.Clock().UnixMilli()
	if s.cfg.ReadOnly && isWrite(hdr.Type) {
		return replyFrame(hdr.Xid, s.zxid, jute.ErrNotReadOnly, nil), false
	}
	if hdr.Type == jute.OpCloseSession {
		s.closeSessionLocked(c.sess)
		return replyFrame(hdr.Xid, s.zxid, jute.ErrOK, nil), true
	}
	var body jute.Record
	var code jute.Code
	if isWrite(hdr.Type) {
		body, code = s.write(c, hdr.Type, d, now)
	} else {
		body, code = s.read(c, hdr.Type, d)
	}
	if code != jute.ErrOK {
		body = nil
	}
	return replyFrame(hdr.Xid, s.zxid, code, body), false
}

// decodeRequest reads the record a request of op carries, if it carries
// one this server reads (jute.RequestRecord); a record that does not
// decode is a marshalling error, as in ZooKeeper.
func decodeRequest(op jute.Op, d *jute.Decoder) (jute.Record, jute.Code) {
	req := jute.RequestRecord(op)
	if req == nil {
		return nil, jute.ErrOK
	}
	if req.Decode(d); d.Err() != nil {
		return nil, jute.ErrMarshallingError
	}
	return req, jute.ErrOK
}

// write applies a request that changes the tree, a multi included. Every
// write takes a zxid, even one that fails, as ZooKeeper logs an error
// transaction for it.
func (s *Server) write(c *conn, op jute.Op, d *jute.Decoder, now int64) (jute.Record, jute.Code) {
	zxid := s.nextZxid()
	req, code := decodeRequest(op, d)
	if code != jute.ErrOK {
		return nil, code
	}
	if op == jute.OpMulti {
		resp, ok := s.applyMulti(c, req.(*jute.MultiRequest).Ops, zxid, now)
		if !ok {
			return nil, jute.ErrMarshallingError
		}
		return resp, jute.ErrOK
	}
	res, code, changes := s.applyWrite(c, op, req, zxid, now, nil)
	s.deliver(changes)
	return res.body, code
}

// isWrite reports whether an op changes the tree (ReadOnlyRequestProcessor's
// list: what a read-only server refuses).
func isWrite(op jute.Op) bool {
	switch op {
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL,
		jute.OpDelete, jute.OpDeleteContainer, jute.OpSetData, jute.OpSetACL, jute.OpCheck,
		jute.OpReconfig, jute.OpCreateSession, jute.OpMulti:
		return true
	}
	return false
}

// writeResult is what a write answers: its body and, inside a multi, the
// result type that precedes it.
type writeResult struct {
	typ  jute.Op
	body jute.Record
}

// applyWrite validates and applies one write, in ZooKeeper's order of checks
// (PrepRequestProcessor), so the same error wins. u, when not nil, records
// how to undo it.
func (s *Server) applyWrite(c *conn, op jute.Op, rec jute.Record, zxid, now int64, u *undoLog) (writeResult, jute.Code, []change) {
	switch op {
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL:
		req := rec.(*jute.CreateRequest)
		path, n, code, ch := s.create(c, op, req, zxid, now, u)
		if code != jute.ErrOK {
			return writeResult{}, code, nil
		}
		if op == jute.OpCreate {
			return writeResult{jute.OpCreate, &jute.PathResponse{Path: path}}, code, ch
		}
		return writeResult{jute.OpCreate2, &jute.Create2Response{Path: path, Stat: n.stat()}}, code, ch
	case jute.OpDelete:
		req := rec.(*jute.PathIntRequest)
		code, ch := s.delete(c, req.Path, req.Value, zxid, u)
		return writeResult{typ: jute.OpDelete}, code, ch
	case jute.OpSetData:
		req := rec.(*jute.SetDataRequest)
		n, code := s.versionedNode(c, req.Path, jute.PermWrite, req.Version)
		if code == jute.ErrOK {
			code = s.roomForLocked(int64(len(req.Data) - len(n.data)))
		}
		if code != jute.ErrOK {
			return writeResult{}, code, nil
		}
		ch := s.tree.setData(req.Path, n, req.Data, zxid, now, u)
		return writeResult{jute.OpSetData, &jute.StatResponse{Stat: n.stat()}}, jute.ErrOK, []change{ch}
	case jute.OpSetACL:
		req := rec.(*jute.SetACLRequest)
		if !validPath(req.Path) {
			return writeResult{}, jute.ErrBadArguments, nil
		}
		acl, code := fixupACL(req.ACL, c.auth)
		if code != jute.ErrOK {
			return writeResult{}, code, nil
		}
		n := s.tree.get(req.Path)
		if n == nil {
			return writeResult{}, jute.ErrNoNode, nil
		}
		if code := checkACL(n.acl, jute.PermAdmin, c.auth); code != jute.ErrOK {
			return writeResult{}, code, nil
		}
		if req.Version != -1 && req.Version != n.aversion {
			return writeResult{}, jute.ErrBadVersion, nil
		}
		s.tree.setACL(n, acl)
		return writeResult{jute.OpSetACL, &jute.StatResponse{Stat: n.stat()}}, jute.ErrOK, nil
	case jute.OpCheck:
		req := rec.(*jute.PathIntRequest)
		_, code := s.versionedNode(c, req.Path, jute.PermRead, req.Value)
		return writeResult{typ: jute.OpCheck}, code, nil
	case jute.OpReconfig:
		return writeResult{}, jute.ErrReconfigDisabled, nil
	default:
		// deleteContainer from a client reads the raw packet as a path, which
		// always holds the header's zero bytes; createSession after the
		// handshake has no meaning.
		return writeResult{}, jute.ErrBadArguments, nil
	}
}

// versionedNode makes the checks setData and check share, in ZooKeeper's
// order: a valid path, an existing node, the permission, then the version
// (-1 matches any).
func (s *Server) versionedNode(c *conn, path string, perm, version int32) (*node, jute.Code) {
	if !validPath(path) {
		return nil, jute.ErrBadArguments
	}
	n := s.tree.get(path)
	if n == nil {
		return nil, jute.ErrNoNode
	}
	if code := checkACL(n.acl, perm, c.auth); code != jute.ErrOK {
		return nil, code
	}
	if version != -1 && version != n.version {
		return nil, jute.ErrBadVersion
	}
	return n, jute.ErrOK
}

// create applies a create of any kind; op decides the node type the way
// ZooKeeper's transactions do (createContainer makes a container whatever
// the flags, create2 with the container flag makes a plain node).
func (s *Server) create(c *conn, op jute.Op, req *jute.CreateRequest, zxid, now int64, u *undoLog) (string, *node, jute.Code, []change) {
	mode := req.Flags
	if !mode.Valid() {
		return "", nil, jute.ErrBadArguments, nil
	}
	if mode.IsTTL() && s.cfg.NoExtendedTypes {
		// PrepRequestProcessor.validateCreateRequest, before any other check.
		return "", nil, jute.ErrUnimplemented, nil
	}
	ttl := int64(-1)
	if op == jute.OpCreateTTL {
		ttl = req.TTL
	}
	if mode.IsTTL() {
		if ttl <= 0 || ttl > maxTTL {
			return "", nil, jute.ErrBadArguments, nil
		}
	} else if ttl >= 0 || op == jute.OpCreateTTL {
		return "", nil, jute.ErrBadArguments, nil
	}
	path := req.Path
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 || strings.IndexByte(path, 0) >= 0 {
		return "", nil, jute.ErrBadArguments, nil
	}
	acl, code := fixupACL(req.ACL, c.auth)
	if code != jute.ErrOK {
		return "", nil, code, nil
	}
	parent := s.tree.get(path[:slash])
	if parent == nil {
		return "", nil, jute.ErrNoNode, nil
	}
	if code := checkACL(parent.acl, jute.PermCreate, c.auth); code != jute.ErrOK {
		return "", nil, code, nil
	}
	if mode.IsSequential() {
		path += fmt.Sprintf("%010d", parent.cversion)
	}
	if !validPath(path) {
		return "", nil, jute.ErrBadArguments, nil
	}
	if s.tree.get(path) != nil {
		return "", nil, jute.ErrNodeExists, nil
	}
	if parent.kind() == kindEphemeral {
		return "", nil, jute.ErrNoChildrenForEphemerals, nil
	}
	var owner int64
	switch {
	case op == jute.OpCreateContainer:
		owner = containerOwner
	case op == jute.OpCreateTTL:
		owner = ttlOwner(ttl)
	case mode.IsEphemeral():
		owner = c.sess.id
	}
	if code := s.roomForLocked(createGrowth(path, req.Data)); code != jute.ErrOK {
		return "", nil, code, nil
	}
	n, ch := s.tree.create(path, req.Data, acl, owner, zxid, now, u)
	return path, n, jute.ErrOK, []change{ch}
}

// specialPaths cannot be deleted.
var specialPaths = map[string]bool{"/": true, "/zookeeper": true, "/zookeeper/quota": true, "/zookeeper/config": true}

func (s *Server) delete(c *conn, path string, version int32, zxid int64, u *undoLog) (jute.Code, []change) {
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 || strings.IndexByte(path, 0) >= 0 || specialPaths[path] {
		return jute.ErrBadArguments, nil
	}
	parent := s.tree.get(path[:slash])
	if parent == nil {
		return jute.ErrNoNode, nil
	}
	if code := checkACL(parent.acl, jute.PermDelete, c.auth); code != jute.ErrOK {
		return code, nil
	}
	n := s.tree.get(path)
	if n == nil {
		return jute.ErrNoNode, nil
	}
	if version != -1 && version != n.version {
		return jute.ErrBadVersion, nil
	}
	if len(n.children) > 0 {
		return jute.ErrNotEmpty, nil
	}
	return jute.ErrOK, []change{s.tree.remove(path, zxid, u)}
}
