package zkserver

import (
	"sort"
	"strings"

	"github.com/zkx-dev/zkx/internal/jute"
)

// read answers a request that changes nothing (FinalRequestProcessor)
// with the handler of its op.
func (s *Server) read(c *conn, op jute.Op, d *jute.Decoder) (jute.Record, jute.Code) {
	handle, ok := readHandlers[op]
	if !ok {
		return nil, jute.ErrUnimplemented
	}
	if op == jute.OpMultiRead && s.cfg.NoMultiRead {
		return nil, jute.ErrUnimplemented // before decoding, as a server that lacks it
	}
	req, code := decodeRequest(op, d)
	if code != jute.ErrOK {
		return nil, code
	}
	return handle(s, c, req)
}

// readHandler answers one read from its decoded request record (nil for
// an op that carries none).
type readHandler func(s *Server, c *conn, req jute.Record) (jute.Record, jute.Code)

// readHandlers are the reads' handlers by op.
var readHandlers = map[jute.Op]readHandler{
	jute.OpExists:               withRecord((*Server).answerExists),
	jute.OpGetData:              withRecord((*Server).answerGetData),
	jute.OpGetChildren:          withRecord((*Server).answerGetChildren),
	jute.OpGetChildren2:         withRecord((*Server).answerGetChildren2),
	jute.OpGetACL:               withRecord((*Server).answerGetACL),
	jute.OpGetAllChildrenNumber: withRecord((*Server).answerGetAllChildrenNumber),
	jute.OpSync:                 withRecord((*Server).answerSync),
	jute.OpGetEphemerals:        withRecord((*Server).answerGetEphemerals),
	jute.OpWhoAmI:               withoutRecord((*Server).answerWhoAmI),
	jute.OpAddWatch:             withRecord((*Server).answerAddWatch),
	jute.OpCheckWatches:         withRecord((*Server).answerCheckWatches),
	jute.OpRemoveWatches:        withRecord((*Server).answerRemoveWatches),
	jute.OpSetWatches:           withRecord((*Server).answerSetWatches),
	jute.OpSetWatches2:          withRecord((*Server).answerSetWatches),
	jute.OpMultiRead:            withRecord((*Server).multiRead),
}

// withRecord makes a readHandler of an answer that takes its op's request
// record (jute.RequestRecord) as the type it is. A table entry whose
// record is of another type is the server's own bug: a system error.
func withRecord[R jute.Record](answer func(*Server, *conn, R) (jute.Record, jute.Code)) readHandler {
	return func(s *Server, c *conn, req jute.Record) (jute.Record, jute.Code) {
		typed, ok := req.(R)
		if !ok {
			return nil, jute.ErrSystemError
		}
		return answer(s, c, typed)
	}
}

// withoutRecord makes a readHandler of an answer to an op that carries no
// record.
func withoutRecord(answer func(*Server, *conn) (jute.Record, jute.Code)) readHandler {
	return func(s *Server, c *conn, _ jute.Record) (jute.Record, jute.Code) { return answer(s, c) }
}

func (s *Server) answerExists(c *conn, req *jute.PathWatchRequest) (jute.Record, jute.Code) {
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
}

func (s *Server) answerGetData(c *conn, req *jute.PathWatchRequest) (jute.Record, jute.Code) {
	return s.getData(c, req.Path, req.Watch)
}

func (s *Server) answerGetChildren(c *conn, req *jute.PathWatchRequest) (jute.Record, jute.Code) {
	children, _, code := s.getChildren(c, req.Path, req.Watch)
	if code != jute.ErrOK {
		return nil, code
	}
	return &jute.StringsResponse{Strings: children}, jute.ErrOK
}

func (s *Server) answerGetChildren2(c *conn, req *jute.PathWatchRequest) (jute.Record, jute.Code) {
	children, n, code := s.getChildren(c, req.Path, req.Watch)
	if code != jute.ErrOK {
		return nil, code
	}
	return &jute.GetChildren2Response{Children: children, Stat: n.stat()}, jute.ErrOK
}

// answerGetACL masks digests for a reader without the admin permission.
func (s *Server) answerGetACL(c *conn, req *jute.PathRequest) (jute.Record, jute.Code) {
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
}

func (s *Server) answerGetAllChildrenNumber(c *conn, req *jute.PathRequest) (jute.Record, jute.Code) {
	n := s.tree.get(req.Path)
	if n == nil {
		return nil, jute.ErrNoNode
	}
	if code := checkACL(n.acl, jute.PermRead, c.auth); code != jute.ErrOK {
		return nil, code
	}
	return &jute.IntResponse{Value: int32(s.tree.descendants(req.Path))}, jute.ErrOK
}

// answerSync answers at once: a single server is always in sync.
func (s *Server) answerSync(_ *conn, req *jute.PathRequest) (jute.Record, jute.Code) {
	return &jute.PathResponse{Path: req.Path}, jute.ErrOK
}

// answerGetEphemerals lists the session's ephemerals under a path prefix.
func (s *Server) answerGetEphemerals(c *conn, req *jute.PathRequest) (jute.Record, jute.Code) {
	prefix := strings.TrimSpace(req.Path)
	var out []string
	for p := range s.tree.ephemerals[c.sess.id] {
		if prefix == "" || prefix == "/" || strings.HasPrefix(p, req.Path) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return &jute.StringsResponse{Strings: out}, jute.ErrOK
}

// answerWhoAmI lists the connection's identities, a digest's by its user
// name and the super user's by none.
func (s *Server) answerWhoAmI(c *conn) (jute.Record, jute.Code) {
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
}

func (s *Server) answerAddWatch(c *conn, req *jute.PathIntRequest) (jute.Record, jute.Code) {
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
}

// answerCheckWatches says whether anyone watches the path: ZooKeeper 3.8's
// containsWatcher asks that, not whether this client does.
func (s *Server) answerCheckWatches(_ *conn, req *jute.PathIntRequest) (jute.Record, jute.Code) {
	tables, code := s.watchTables(req.Value)
	if code != jute.ErrOK {
		return nil, code
	}
	for _, t := range tables {
		if len(t.byPath[req.Path]) > 0 {
			return nil, jute.ErrOK
		}
	}
	return nil, jute.ErrNoWatcher
}

// answerRemoveWatches removes the client's watches of the type asked for.
func (s *Server) answerRemoveWatches(c *conn, req *jute.PathIntRequest) (jute.Record, jute.Code) {
	tables, code := s.watchTables(req.Value)
	if code != jute.ErrOK {
		return nil, code
	}
	found := false
	for _, t := range tables {
		found = t.remove(req.Path, c) || found
	}
	if !found {
		return nil, jute.ErrNoWatcher
	}
	return nil, jute.ErrOK
}

// watchTables are the tables a watcher type of checkWatches and
// removeWatches names.
func (s *Server) watchTables(watcherType int32) ([]*watchTable, jute.Code) {
	switch watcherType {
	case jute.WatcherChildren:
		return []*watchTable{s.watches.child}, jute.ErrOK
	case jute.WatcherData:
		return []*watchTable{s.watches.data}, jute.ErrOK
	case jute.WatcherAny:
		return []*watchTable{s.watches.child, s.watches.data}, jute.ErrOK
	}
	return nil, jute.ErrMarshallingError
}

func (s *Server) answerSetWatches(c *conn, req *jute.SetWatches) (jute.Record, jute.Code) {
	s.setWatches(c, req)
	return nil, jute.ErrOK
}

func (s *Server) getData(c *conn, path string, watch bool) (*jute.GetDataResponse, jute.Code) {
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
func (s *Server) getChildren(c *conn, path string, watch bool) ([]string, *node, jute.Code) {
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
