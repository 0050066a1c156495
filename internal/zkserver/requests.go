package zkserver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zkx-dev/zkx/internal/jute"
)

// opNames are the short names cons prints as lop.
var opNames = map[int32]string{
	jute.OpCreate: "CREA", jute.OpCreate2: "CREA", jute.OpCreateContainer: "CREA", jute.OpCreateTTL: "CREA",
	jute.OpDelete: "DELE", jute.OpDeleteContainer: "DELE", jute.OpExists: "EXIS", jute.OpGetData: "GETD",
	jute.OpSetData: "SETD", jute.OpGetACL: "GETA", jute.OpSetACL: "SETA", jute.OpGetChildren: "GETC",
	jute.OpGetChildren2: "GETC", jute.OpSync: "SYNC", jute.OpPing: "PING", jute.OpCheck: "CHEC",
	jute.OpMulti: "MULT", jute.OpMultiRead: "MLTR", jute.OpReconfig: "RECO", jute.OpCheckWatches: "CHKW",
	jute.OpRemoveWatches: "REMW", jute.OpSetWatches: "SETW", jute.OpSetWatches2: "STW2",
	jute.OpGetEphemerals: "GETE", jute.OpGetAllChildrenNumber: "GETACN", jute.OpAddWatch: "ADDW",
	jute.OpWhoAmI: "HOMI", jute.OpCloseSession: "CLOS",
}

func opName(op int32) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return "NA"
}

// validOps are the op codes ZooKeeper accepts from a client after the
// handshake (Request.isValid); anything else is answered Unimplemented.
var validOps = map[int32]bool{
	jute.OpCreate: true, jute.OpCreate2: true, jute.OpCreateContainer: true, jute.OpCreateTTL: true,
	jute.OpDelete: true, jute.OpDeleteContainer: true, jute.OpExists: true, jute.OpGetData: true,
	jute.OpSetData: true, jute.OpGetACL: true, jute.OpSetACL: true, jute.OpGetChildren: true,
	jute.OpGetChildren2: true, jute.OpSync: true, jute.OpPing: true, jute.OpCheck: true, jute.OpMulti: true,
	jute.OpMultiRead: true, jute.OpReconfig: true, jute.OpCheckWatches: true, jute.OpRemoveWatches: true,
	jute.OpSetWatches: true, jute.OpSetWatches2: true, jute.OpGetEphemerals: true,
	jute.OpGetAllChildrenNumber: true, jute.OpAddWatch: true, jute.OpWhoAmI: true,
	jute.OpCreateSession: true, jute.OpCloseSession: true,
}

func knownOp(op int32) bool { return validOps[op] }

// process applies one request under s.mu and returns its reply frame; the
// notifications it causes are queued before the reply.
func (s *Server) process(c *conn, hdr jute.RequestHeader, d *jute.Decoder) (reply []byte, closeAfter bool) {
	now := s.cfg.Clock().UnixMilli()
	if s.cfg.ReadOnly && isWrite(hdr.Type) {
		return replyFrame(hdr.Xid, s.zxid, jute.ErrNotReadOnly, nil), false
	}
	switch hdr.Type {
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL,
		jute.OpDelete, jute.OpSetData, jute.OpSetACL, jute.OpCheck,
		jute.OpReconfig, jute.OpDeleteContainer, jute.OpCreateSession:
		// Every write takes a zxid, even one that fails, as ZooKeeper logs
		// an error transaction for it.
		zxid := s.nextZxid()
		rec, err := decodeWrite(hdr.Type, d)
		if err != jute.ErrOK {
			return replyFrame(hdr.Xid, s.zxid, err, nil), false
		}
		res, code, changes := s.applyWrite(c, hdr.Type, rec, zxid, now, nil)
		s.deliver(changes)
		if code != jute.ErrOK {
			res.body = nil
		}
		return replyFrame(hdr.Xid, s.zxid, code, res.body), false
	case jute.OpMulti:
		zxid := s.nextZxid()
		var req jute.MultiRequest
		req.Decode(d)
		if d.Err() != nil {
			return replyFrame(hdr.Xid, s.zxid, jute.ErrMarshallingError, nil), false
		}
		resp, ok := s.applyMulti(c, req.Ops, zxid, now)
		if !ok {
			return replyFrame(hdr.Xid, s.zxid, jute.ErrMarshallingError, nil), false
		}
		return replyFrame(hdr.Xid, s.zxid, jute.ErrOK, resp), false
	case jute.OpCloseSession:
		s.closeSessionLocked(c.sess)
		return replyFrame(hdr.Xid, s.zxid, jute.ErrOK, nil), true
	}
	body, code := s.read(c, hdr.Type, d)
	if code != jute.ErrOK {
		body = nil
	}
	return replyFrame(hdr.Xid, s.zxid, code, body), false
}

// isWrite reports whether an op changes the tree (ReadOnlyRequestProcessor's
// list: what a read-only server refuses).
func isWrite(op int32) bool {
	switch op {
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL,
		jute.OpDelete, jute.OpDeleteContainer, jute.OpSetData, jute.OpSetACL, jute.OpCheck,
		jute.OpReconfig, jute.OpCreateSession, jute.OpMulti:
		return true
	}
	return false
}

// decodeWrite reads the record of a single write request.
func decodeWrite(op int32, d *jute.Decoder) (jute.Record, int32) {
	var rec jute.Record
	switch op {
	case jute.OpCreate, jute.OpCreate2, jute.OpCreateContainer:
		rec = &jute.CreateRequest{}
	case jute.OpCreateTTL:
		rec = &jute.CreateRequest{HasTTL: true}
	case jute.OpDelete, jute.OpCheck:
		rec = &jute.PathIntRequest{}
	case jute.OpSetData:
		rec = &jute.SetDataRequest{}
	case jute.OpSetACL:
		rec = &jute.SetACLRequest{}
	default:
		return nil, jute.ErrOK // reconfig, deleteContainer, createSession: refused in applyWrite
	}
	rec.Decode(d)
	if d.Err() != nil {
		return nil, jute.ErrMarshallingError
	}
	return rec, jute.ErrOK
}

// writeResult is what a write answers: its body and, inside a multi, the
// result type that precedes it.
type writeResult struct {
	typ  int32
	body jute.Record
}

// applyWrite validates and applies one write, in ZooKeeper's order of checks
// (PrepRequestProcessor), so the same error wins. u, when not nil, records
// how to undo it.
func (s *Server) applyWrite(c *conn, op int32, rec jute.Record, zxid, now int64, u *undoLog) (writeResult, int32, []change) {
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
func (s *Server) versionedNode(c *conn, path string, perm, version int32) (*node, int32) {
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

func isSequential(mode int32) bool { return mode == 2 || mode == 3 || mode == 6 }
func isEphemeral(mode int32) bool  { return mode == 1 || mode == 3 }
func isTTLMode(mode int32) bool    { return mode == 5 || mode == 6 }

// create applies a create of any kind; op decides the node type the way
// ZooKeeper's transactions do (createContainer makes a container whatever
// the flags, create2 with the container flag makes a plain node).
func (s *Server) create(c *conn, op int32, req *jute.CreateRequest, zxid, now int64, u *undoLog) (string, *node, int32, []change) {
	mode := req.Flags
	if mode < 0 || mode > jute.ModePersistentSequentialWithTTL {
		return "", nil, jute.ErrBadArguments, nil
	}
	if isTTLMode(mode) && s.cfg.NoExtendedTypes {
		// PrepRequestProcessor.validateCreateRequest, before any other check.
		return "", nil, jute.ErrUnimplemented, nil
	}
	ttl := int64(-1)
	if op == jute.OpCreateTTL {
		ttl = req.TTL
	}
	if isTTLMode(mode) {
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
	if isSequential(mode) {
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
	case isEphemeral(mode):
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

func (s *Server) delete(c *conn, path string, version int32, zxid int64, u *undoLog) (int32, []change) {
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

// read answers the requests that change nothing (FinalRequestProcessor).
func (s *Server) read(c *conn, op int32, d *jute.Decoder) (jute.Record, int32) {
	switch op {
	case jute.OpExists:
		var req jute.PathWatchRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		if strings.IndexByte(req.Path, 0) >= 0 {
			return nil, jute.ErrBadArguments
		}
		if req.Watch { // an exists watch stays even when the node is missing
			s.watches.data.add(req.Path, c, watchStandard)
		}
		n := s.tree.get(req.Path)
		if n == nil {
			return nil, jute.ErrNoNode
		}
		return &jute.StatResponse{Stat: n.stat()}, jute.ErrOK
	case jute.OpGetData:
		var req jute.PathWatchRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		return s.getData(c, req.Path, req.Watch)
	case jute.OpGetChildren, jute.OpGetChildren2:
		var req jute.PathWatchRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		children, n, code := s.getChildren(c, req.Path, req.Watch)
		if code != jute.ErrOK {
			return nil, code
		}
		if op == jute.OpGetChildren {
			return &jute.StringsResponse{Strings: children}, jute.ErrOK
		}
		return &jute.GetChildren2Response{Children: children, Stat: n.stat()}, jute.ErrOK
	case jute.OpGetACL:
		var req jute.PathRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		n := s.tree.get(req.Path)
		if n == nil {
			return nil, jute.ErrNoNode
		}
		if code := checkACL(n.acl, jute.PermRead|jute.PermAdmin, c.auth); code != jute.ErrOK {
			return nil, code
		}
		acl := n.acl
		if checkACL(n.acl, jute.PermAdmin, c.auth) != jute.ErrOK {
			acl = maskDigests(acl)
		}
		return &jute.GetACLResponse{ACL: acl, Stat: n.stat()}, jute.ErrOK
	case jute.OpGetAllChildrenNumber:
		var req jute.PathRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		n := s.tree.get(req.Path)
		if n == nil {
			return nil, jute.ErrNoNode
		}
		if code := checkACL(n.acl, jute.PermRead, c.auth); code != jute.ErrOK {
			return nil, code
		}
		return &jute.IntResponse{Value: int32(s.tree.descendants(req.Path))}, jute.ErrOK
	case jute.OpSync:
		var req jute.PathRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		return &jute.PathResponse{Path: req.Path}, jute.ErrOK
	case jute.OpGetEphemerals:
		var req jute.PathRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		prefix := strings.TrimSpace(req.Path)
		var out []string
		for p := range s.tree.ephemerals[c.sess.id] {
			if prefix == "" || prefix == "/" || strings.HasPrefix(p, req.Path) {
				out = append(out, p)
			}
		}
		sort.Strings(out)
		return &jute.StringsResponse{Strings: out}, jute.ErrOK
	case jute.OpWhoAmI:
		resp := &jute.WhoAmIResponse{}
		for _, id := range c.auth {
			user := id.ID
			switch id.Scheme {
			case "digest":
				user, _, _ = strings.Cut(id.ID, ":")
			case "super":
				user = ""
			}
			resp.ClientInfo = append(resp.ClientInfo, jute.ClientInfo{AuthScheme: id.Scheme, User: user})
		}
		return resp, jute.ErrOK
	case jute.OpAddWatch:
		var req jute.PathIntRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		mode := watchPersistent
		switch req.Value {
		case jute.AddWatchPersistent:
		case jute.AddWatchPersistentRecursive:
			mode = watchPersistentRecursive
		default:
			return nil, jute.ErrMarshallingError
		}
		s.watches.data.add(req.Path, c, mode)
		s.watches.child.add(req.Path, c, mode)
		return &jute.IntResponse{Value: 0}, jute.ErrOK
	case jute.OpCheckWatches, jute.OpRemoveWatches:
		var req jute.PathIntRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		var tables []*watchTable
		switch req.Value {
		case jute.WatcherChildren:
			tables = []*watchTable{s.watches.child}
		case jute.WatcherData:
			tables = []*watchTable{s.watches.data}
		case jute.WatcherAny:
			tables = []*watchTable{s.watches.child, s.watches.data}
		default:
			return nil, jute.ErrMarshallingError
		}
		found := false
		for _, t := range tables {
			if op == jute.OpRemoveWatches {
				found = t.remove(req.Path, c) || found
			} else {
				// ZooKeeper 3.8's containsWatcher answers whether anyone
				// watches the path, not only this client.
				found = len(t.byPath[req.Path]) > 0 || found
			}
		}
		if !found {
			return nil, jute.ErrNoWatcher
		}
		return nil, jute.ErrOK
	case jute.OpSetWatches, jute.OpSetWatches2:
		req := jute.SetWatches{HasPersistent: op == jute.OpSetWatches2}
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		s.setWatches(c, &req)
		return nil, jute.ErrOK
	case jute.OpMultiRead:
		if s.cfg.NoMultiRead {
			return nil, jute.ErrUnimplemented
		}
		var req jute.MultiRequest
		if req.Decode(d); d.Err() != nil {
			return nil, jute.ErrMarshallingError
		}
		return s.multiRead(c, req.Ops)
	}
	return nil, jute.ErrUnimplemented
}

func (s *Server) getData(c *conn, path string, watch bool) (*jute.GetDataResponse, int32) {
	n := s.tree.get(path)
	if n == nil {
		return nil, jute.ErrNoNode
	}
	if code := checkACL(n.acl, jute.PermRead, c.auth); code != jute.ErrOK {
		return nil, code
	}
	if watch {
		s.watches.data.add(path, c, watchStandard)
	}
	return &jute.GetDataResponse{Data: n.data, Stat: n.stat()}, jute.ErrOK
}

// getChildren lists a node's children, sorted (ZooKeeper's order is a hash
// set's, which no client may rely on).
func (s *Server) getChildren(c *conn, path string, watch bool) ([]string, *node, int32) {
	n := s.tree.get(path)
	if n == nil {
		return nil, nil, jute.ErrNoNode
	}
	if code := checkACL(n.acl, jute.PermRead, c.auth); code != jute.ErrOK {
		return nil, nil, code
	}
	if watch {
		s.watches.child.add(path, c, watchStandard)
	}
	children := make([]string, 0, len(n.children))
	for name := range n.children {
		children = append(children, name)
	}
	sort.Strings(children)
	return children, n, jute.ErrOK
}

// setWatches re-registers watches after a reconnect; what changed since the
// client's last zxid fires at once (DataTree.setWatches).
func (s *Server) setWatches(c *conn, req *jute.SetWatches) {
	for _, p := range req.DataWatches {
		n := s.tree.get(p)
		switch {
		case n == nil:
			c.sendEvent(jute.EventNodeDeleted, p)
		case n.mzxid > req.RelativeZxid:
			c.sendEvent(jute.EventNodeDataChanged, p)
		default:
			s.watches.data.add(p, c, watchStandard)
		}
	}
	for _, p := range req.ExistWatches {
		if s.tree.get(p) != nil {
			c.sendEvent(jute.EventNodeCreated, p)
		} else {
			s.watches.data.add(p, c, watchStandard)
		}
	}
	for _, p := range req.ChildWatches {
		n := s.tree.get(p)
		switch {
		case n == nil:
			c.sendEvent(jute.EventNodeDeleted, p)
		case n.pzxid > req.RelativeZxid:
			c.sendEvent(jute.EventNodeChildrenChanged, p)
		default:
			s.watches.child.add(p, c, watchStandard)
		}
	}
	for _, p := range req.PersistentWatches {
		s.watches.child.add(p, c, watchPersistent)
		s.watches.data.add(p, c, watchPersistent)
	}
	for _, p := range req.PersistentRecursiveWatches {
		s.watches.child.add(p, c, watchPersistentRecursive)
		s.watches.data.add(p, c, watchPersistentRecursive)
	}
}
