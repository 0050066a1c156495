package zkdial

import (
	"fmt"

	"github.com/zkx-dev/zkx/internal/jute"
)

// replyBodies says what a reply holds, by the opcode of its request, as
// ZooKeeper writes it (zookeeper.jute: CreateResponse, Create2Response,
// ExistsResponse, GetDataResponse, SetDataResponse, GetACLResponse,
// SetACLResponse, GetChildrenResponse, GetChildren2Response, SyncResponse,
// MultiResponse, GetAllChildrenNumberResponse, GetEphemeralsResponse,
// WhoAmIResponse) and as go-zookeeper (structs.go) and zkwire decode it. Every length is
// checked against the bytes the frame holds before anyone allocates what
// it says: go-zookeeper makes a slice of whatever count the wire gives.
// The replies of the ops not listed have no body (delete, check,
// checkWatches, removeWatches, closeSession, auth, setWatches, addWatch).
var replyBodies = map[jute.Op]func(*bodyReader){
	jute.OpCreate:               (*bodyReader).path,
	jute.OpCreate2:              func(r *bodyReader) { r.path(); r.stat() },
	jute.OpCreateContainer:      (*bodyReader).path, // then a stat go-zookeeper leaves unread
	jute.OpCreateTTL:            (*bodyReader).path,
	jute.OpExists:               (*bodyReader).stat,
	jute.OpGetData:              func(r *bodyReader) { r.buffer("data"); r.stat() },
	jute.OpSetData:              (*bodyReader).stat,
	jute.OpGetACL:               func(r *bodyReader) { r.acls(); r.stat() },
	jute.OpSetACL:               (*bodyReader).stat,
	jute.OpGetChildren:          func(r *bodyReader) { r.strings("children") },
	jute.OpSync:                 (*bodyReader).path,
	jute.OpGetChildren2:         func(r *bodyReader) { r.strings("children"); r.stat() },
	jute.OpMulti:                (*bodyReader).multi,
	jute.OpMultiRead:            (*bodyReader).multi,
	jute.OpReconfig:             func(r *bodyReader) { r.buffer("config"); r.stat() },
	jute.OpGetAllChildrenNumber: func(r *bodyReader) { r.int32("count") },
	jute.OpGetEphemerals:        func(r *bodyReader) { r.strings("paths") },
	jute.OpWhoAmI:               (*bodyReader).whoAmI,
}

// checkReplyBody says what is wrong with the body of a reply to op ("" when
// nothing is); frame is the reply's length, header included, for messages.
func checkReplyBody(op jute.Op, body []byte, frame int) string {
	check := replyBodies[op]
	if check == nil {
		return "" // nothing is read of it
	}
	r := &bodyReader{decoder: *jute.NewDecoder(body), frame: frame, record: op.String() + " reply"}
	check(r)
	return r.bad
}

// statSize is a Stat's length on the wire: six longs, five ints.
const statSize = 6*8 + 5*4

// bodyReader checks a record field by field, with the first problem in
// words.
type bodyReader struct {
	decoder jute.Decoder
	frame   int    // the record's length, for what
	record  string // "getChildren2 reply"
	its     bool   // the record is the server's answer to the session request
	bad     string
}

// what names the record in a message: "a 20-byte getChildren2 reply". It
// is written only when something is wrong: a notification is checked
// thousands of times a second.
func (r *bodyReader) what() string {
	article := "a"
	if r.its {
		article = "its"
	}
	return fmt.Sprintf("%s %d-byte %s", article, r.frame, r.record)
}

func (r *bodyReader) fail(format string, args ...any) {
	if r.bad == "" {
		r.bad = fmt.Sprintf(format, args...) + " in " + r.what()
	}
}

// need checks that n more bytes are there for field.
func (r *bodyReader) need(n int, field string) bool {
	if r.bad != "" {
		return false
	}
	if r.decoder.Remaining() < n {
		r.fail("%s cut off at byte %d", field, r.decoder.Offset()+r.decoder.Remaining())
		return false
	}
	return true
}

func (r *bodyReader) int32(field string) int32 {
	if !r.need(4, field) {
		return 0
	}
	return r.decoder.Int()
}

func (r *bodyReader) skip(n int, field string) {
	if r.need(n, field) {
		r.decoder.Skip(n)
	}
}

// length reads a length or count that must fit what is left, each element
// taking at least unit bytes; null (-1) only where ZooKeeper may write it.
func (r *bodyReader) length(kind, field string, unit int, nullOK bool) int {
	n := r.int32(field)
	if r.bad != "" {
		return 0
	}
	switch {
	case n == -1 && nullOK:
		return 0
	case n < 0:
		r.fail("%s length %d (%s)", kind, n, field)
	case int64(n)*int64(unit) > int64(r.decoder.Remaining()):
		r.fail("%s length %d (%s) with %d bytes left", kind, n, field, r.decoder.Remaining())
	default:
		return int(n)
	}
	return 0
}

// buffer is a byte buffer; null (-1) is one.
func (r *bodyReader) buffer(field string) { r.skip(r.length("buffer", field, 1, true), field) }

// str is a string: go-zookeeper reads a null one as a length of 4 GiB, so
// none may be null.
func (r *bodyReader) str(field string) { r.skip(r.length("string", field, 1, false), field) }

func (r *bodyReader) path() { r.str("path") }
func (r *bodyReader) stat() { r.skip(statSize, "stat") }

// strings is a vector of strings: go-zookeeper makes a slice of whatever
// count it reads (a null vector, -1, as 4 Gi elements), so the count must
// be one the frame can hold.
func (r *bodyReader) strings(field string) {
	for n := r.length("vector", field, 4, false); n > 0 && r.bad == ""; n-- {
		r.str(field)
	}
}

// acls is a vector of ACLs: perms and an id (scheme, id).
func (r *bodyReader) acls() {
	for n := r.length("vector", "ACL", 12, false); n > 0 && r.bad == ""; n-- {
		r.int32("ACL perms")
		r.str("ACL scheme")
		r.str("ACL id")
	}
}

func (r *bodyReader) whoAmI() {
	for n := r.length("vector", "identities", 8, false); n > 0 && r.bad == ""; n-- {
		r.str("auth scheme")
		r.str("user")
	}
}

// multi is a multi's or multiRead's results, each behind a header (type,
// done, error) until the done header.
func (r *bodyReader) multi() {
	for r.bad == "" {
		typ := jute.Op(r.int32("multi header"))
		done := r.need(1, "multi header") && r.decoder.Bool()
		r.int32("multi header")
		if r.bad != "" || done {
			return
		}
		switch typ {
		case jute.OpError:
			r.int32("error result")
		case jute.OpCreate:
			r.path()
		case jute.OpCreate2, jute.OpCreateContainer, jute.OpCreateTTL:
			r.path()
			r.stat()
		case jute.OpDelete, jute.OpCheck:
		case jute.OpSetData:
			r.stat()
		case jute.OpGetChildren:
			r.strings("children")
		case jute.OpGetData:
			r.buffer("data")
			r.stat()
		default:
			r.fail("a multi result of type %d", typ)
		}
	}
}

// checkNotification says what is wrong with a notification's body:
// ZooKeeper sends a node event (created, deleted, data or children
// changed) with the state SyncConnected and the node's path, which it
// returns within body (nothing is allocated for a good one).
func checkNotification(body []byte, frame int) (path []byte, bad string) {
	r := &bodyReader{decoder: *jute.NewDecoder(body), frame: frame, record: "notification"}
	typ := jute.EventType(r.int32("event type"))
	state := jute.State(r.int32("state"))
	n := r.length("string", "path", 1, false)
	if r.bad != "" {
		return nil, r.bad
	}
	path = body[r.decoder.Offset() : r.decoder.Offset()+n]
	switch {
	case typ < jute.EventNodeCreated || typ > jute.EventNodeChildrenChanged:
		// go-zookeeper would pass a session event (-1) on as the
		// session's own state.
		return nil, fmt.Sprintf("event type %d (ZooKeeper sends node events, %d to %d) in %s",
			typ, jute.EventNodeCreated, jute.EventNodeChildrenChanged, r.what())
	case state != jute.StateSyncConnected:
		return nil, fmt.Sprintf("state %d (ZooKeeper sends %d, SyncConnected) in %s", state, jute.StateSyncConnected, r.what())
	case len(path) == 0 || path[0] != '/':
		return nil, fmt.Sprintf("path %s in %s", quote(path, 64), r.what())
	}
	return path, ""
}

// connectResponse is what a session request's answer says.
type connectResponse struct {
	timeout   int32
	sessionID int64
}

// Bounds of a connect response: protocol version, timeout, session id,
// password (ZooKeeper's is 16 bytes; room for 64) and the read-only flag.
const (
	minConnectResponse = 4 + 4 + 8 + 4
	maxPasswd          = 64
	maxConnectResponse = minConnectResponse + maxPasswd + 1
)

// checkConnectResponse says what is wrong with an answer to a session
// request that asked for session askedID (0: a new one).
func checkConnectResponse(body []byte, askedID int64) (connectResponse, string) {
	r := &bodyReader{decoder: *jute.NewDecoder(body), frame: len(body), record: "answer to the session request", its: true}
	version := r.int32("protocol version")
	var resp connectResponse
	resp.timeout = r.int32("session timeout")
	r.need(8, "session id")
	if r.bad == "" {
		resp.sessionID = r.decoder.Long()
	}
	passwd := r.length("buffer", "password", 1, true)
	r.skip(passwd, "password")
	switch {
	case r.bad != "":
		return resp, r.bad
	case version != jute.ProtocolVersion:
		return resp, fmt.Sprintf("protocol version %d (ZooKeeper's is 0) in %s", version, r.what())
	case passwd > maxPasswd:
		return resp, fmt.Sprintf("a %d-byte session password (ZooKeeper's are 16) in %s", passwd, r.what())
	case r.decoder.Remaining() > 1:
		return resp, fmt.Sprintf("%d bytes after the password in %s", r.decoder.Remaining(), r.what())
	case resp.sessionID == 0 && askedID == 0:
		// ZooKeeper answers session 0 to a session that expired, never to
		// a request for a new one.
		return resp, "it answered a request for a new session with no session (id 0)"
	case resp.sessionID != 0 && resp.timeout <= 0:
		return resp, fmt.Sprintf("it opened session 0x%x with a session timeout of %d ms (ZooKeeper negotiates at least two ticks)", resp.sessionID, resp.timeout)
	}
	return resp, ""
}
