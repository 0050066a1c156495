package auditlog

import (
	"strings"
	"time"
)

// The operations ZooKeeper audits (AuditConstants).
const (
	OpCreate    = "create"
	OpDelete    = "delete"
	OpSetData   = "setData"
	OpSetACL    = "setAcl"
	OpMulti     = "multiOperation"
	OpReconfig  = "reconfig"
	OpStart     = "serverStart"
	OpStop      = "serverStop"
	OpEphemeral = "ephemeralZNodeDeletionOnSessionCloseOrExpire"
)

// The results of an event (AuditEvent.Result).
const (
	ResultSuccess = "success"
	ResultFailure = "failure"
	// ResultInvoked is serverStop's: logged before the server stopped.
	ResultInvoked = "invoked"
)

// Event is one audit event as a line of the log tells it.
type Event struct {
	// Time is the logging layout's time of the line; zero when the line
	// has none zkx reads.
	Time time.Time
	// Session is the client's session; HasSession is false for the
	// server's own events (serverStart, serverStop).
	Session    int64
	HasSession bool
	// User is the user field as logged: the names of the session's
	// authenticated ids, comma-separated (see Users); for the server's
	// own events (an ephemeral node's deletion when its session ended,
	// start, stop) the user the server runs as.
	User string
	// IP is the client's address; empty for the server's own events.
	IP        string
	Operation string
	Znode     string
	// ZnodeType is a create's mode: persistent, ephemeral,
	// persistent_sequential, ephemeral_sequential, container …
	ZnodeType string
	// ACL is a setAcl's new ACL, scheme:id:perms comma-separated.
	ACL    string
	Result string
	// File and Line say where the event was read.
	File string
	Line int
}

// Users splits User into its names.
func (e *Event) Users() []string {
	if e.User == "" {
		return nil
	}
	return strings.Split(e.User, ",")
}

// Authenticated are the names of User other than the client's address
// (the ip scheme's id, which every session has): the users the client
// authenticated as (digest, SASL, x509, …). The audit log does not name
// their schemes.
func (e *Event) Authenticated() []string {
	var out []string
	for _, u := range e.Users() {
		if u != e.IP && u != "" {
			out = append(out, u)
		}
	}
	return out
}

// ByServer reports whether the server made the event itself: the
// deletion of an ephemeral node when its session closed or expired
// (DataTree.deleteNodes), a start or a stop.
func (e *Event) ByServer() bool {
	return e.Operation == OpEphemeral || e.Operation == OpStart || e.Operation == OpStop
}
