package forensics

import (
	"errors"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/auditlog"
)

// How a transaction was matched with the audit log (Who.Match).
const (
	// MatchEvent: the operation's own audit event — the same session,
	// operation and node (for a failed request, the session's failure),
	// within AuditWindow of the transaction's time.
	MatchEvent = "event"
	// MatchSession: no event of its own (ZooKeeper audits no session's
	// start or close, no createTTL, nothing the server does for itself,
	// and only on the member the client was connected to), but the
	// session's client is known from its first audited operation.
	MatchSession = "session"
)

// AuditWindow is how far apart in time a transaction and its audit event
// may be. The transaction's time is the leader's when it prepared the
// request; the event's is the client's member's when it answered: apart
// by the commit (milliseconds; seconds under load) and the members'
// clocks. An event further away is never taken for the transaction's.
const AuditWindow = 10 * time.Second

// Client is a session's client as the audit log names it.
type Client struct {
	// User is the user field as logged: the names of the session's
	// authenticated ids, comma-separated in no fixed order, the client's
	// address among them (the ip scheme's id).
	User string
	// IP is the client's address.
	IP string
}

// Authenticated are the names of User other than the client's address:
// the users it authenticated as (the audit log does not say with which
// scheme: a digest user, a SASL or x509 principal).
func (c Client) Authenticated() []string {
	var out []string
	for _, u := range strings.Split(c.User, ",") {
		if u != "" && u != c.IP {
			out = append(out, u)
		}
	}
	return out
}

// Who is what the audit log says about who made a transaction.
type Who struct {
	// Match is MatchEvent or MatchSession.
	Match string
	// Client made the request: the event's user and address; for the
	// server's own event (ByServer) the user the server runs as and no
	// address; for MatchSession, the session's client.
	Client
	// ByServer: the server made it itself — an ephemeral node's deletion
	// when its session closed or expired.
	ByServer bool
	// Session is the session's client when the event is the server's own:
	// whose session ended.
	Session *Client
	// GapMs is the event's time minus the transaction's (MatchEvent).
	GapMs int64
	// Candidates is how many events of that session, operation and node
	// were within the window: more than one, the nearest was taken.
	Candidates int
	// Operation, Znode and Result are the event's (MatchEvent): for a
	// failed request, the log's error transaction does not say what was
	// asked, the audit log does.
	Operation, Znode, Result string
	// Addresses is how many addresses the session's audited operations
	// came from: more than one, it reconnected from elsewhere, and
	// MatchSession names the first.
	Addresses int
	// File and Line are where the event is (MatchEvent).
	File string
	Line int
}

// Text tells who in a few words: "ops from 10.0.3.7", "10.0.3.7 (no
// user)", "the server (zookeeper) for ops from 10.0.3.7"; a session's
// client, not the event's, is said to be so ("session of …").
func (w *Who) Text() string {
	if w == nil {
		return ""
	}
	if w.ByServer {
		s := "the server (" + w.User + ")"
		if w.Session != nil {
			s += " for " + w.Session.Text()
		}
		return s
	}
	if w.Match == MatchSession {
		return "session of " + w.Client.Text()
	}
	return w.Client.Text()
}

// Text names a client: its users but its address, from its address.
func (c Client) Text() string {
	users := c.Authenticated()
	switch {
	case len(users) > 0 && c.IP != "":
		return strings.Join(users, ",") + " from " + c.IP
	case len(users) > 0:
		return strings.Join(users, ",")
	case c.IP != "":
		return c.IP + " (no user)"
	}
	return "an unnamed client"
}

// auditKey finds a client's events by session, operation and node.
type auditKey struct {
	session int64
	op      string
	znode   string
}

// auditEvent is an event kept for matching.
type auditEvent struct {
	ms int64
	Client
	op, znode, result string
	file              string
	line              int
}

// sessionClients is what the audit log says of one session's client.
type sessionClients struct {
	first     Client
	addresses []string
}

// AuditIndex is an audit log read for matching with transactions.
type AuditIndex struct {
	events   map[auditKey][]auditEvent
	failures map[int64][]auditEvent
	sessions map[int64]*sessionClients
	// Events counts the events read (those passed over unread are in
	// Files' Skipped), Kept those kept for matching.
	Events, Kept int
	// Files are the files read, with their counts.
	Files []auditlog.FileStats
	// Problems are the lines read past.
	Problems Problems
	// Untimed counts events without a time: they name sessions' clients
	// but match no transaction.
	Untimed int
	// outOfWindow counts lookups that found events of the same session,
	// operation and node, all further away than the window.
	outOfWindow int

	keep AuditKeep
	// stream, for StreamAudit, reads the events as the lookups' times go
	// on; readMs is the latest time read, held the events held in order.
	stream   *auditlog.Log
	readMs   int64
	held     []heldEvent
	heldFrom int // held[:heldFrom] are let go of already
}

// AuditKeep says which events an index keeps to match transactions with;
// every client event names its session's client whatever it says.
type AuditKeep struct {
	// Node, when set, keeps the events on the nodes it accepts.
	Node func(znode []byte) bool
	// Session, when not zero, keeps only that session's events.
	Session int64
}

// ReadAudit reads the audit log at paths (auditlog.Files) to the end.
// The events keep leaves out are passed over unread once their session's
// client is known (auditlog.Options.Skip): a history of one subtree reads
// a million-event log for the cost of finding the lines' sessions and
// nodes.
func ReadAudit(paths []string, opts auditlog.Options, keep AuditKeep) (*AuditIndex, error) {
	ix := newAuditIndex(keep)
	log, err := auditlog.Open(paths, ix.skipping(opts))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	for {
		e, err := log.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A line read past, or a file that ends in a broken gzip stream.
			ix.Problems.add(err)
			continue
		}
		ix.take(&e)
	}
	ix.Files = log.Stats()
	// The files are merged by time, but a clock set back, or members'
	// logs apart, may leave them out of order.
	for _, list := range ix.events {
		sort.SliceStable(list, func(i, j int) bool { return list[i].ms < list[j].ms })
	}
	for _, list := range ix.failures {
		sort.SliceStable(list, func(i, j int) bool { return list[i].ms < list[j].ms })
	}
	return ix, nil
}

// StreamAudit opens the audit log for transactions asked about in time
// order (zkx txnlog): a first pass names the sessions' clients (reading
// only each session's first event whole), then the events are read as the
// transactions' times go on and only those within AuditWindow of the
// last one asked about are held — memory for the window's events, not
// the log's. Close it when done.
func StreamAudit(paths []string, opts auditlog.Options, keep AuditKeep) (*AuditIndex, error) {
	ix, err := ReadAudit(paths, opts, AuditKeep{Node: func([]byte) bool { return false }})
	if err != nil {
		return nil, err
	}
	ix.keep, ix.Kept = keep, 0
	opts.Warn = nil // told once, by the first pass
	ix.stream, err = auditlog.Open(paths, ix.skipping(opts))
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// Close ends a stream (StreamAudit); an index read whole has nothing to
// close.
func (ix *AuditIndex) Close() {
	if ix.stream != nil {
		ix.stream.Close()
		ix.stream = nil
	}
}

func newAuditIndex(keep AuditKeep) *AuditIndex {
	return &AuditIndex{events: map[auditKey][]auditEvent{}, failures: map[int64][]auditEvent{},
		sessions: map[int64]*sessionClients{}, keep: keep}
}

// skipping returns opts passing over, unread, the events the index does
// not keep once their session's client is known.
func (ix *AuditIndex) skipping(opts auditlog.Options) auditlog.Options {
	keep := ix.keep
	if keep.Node == nil && keep.Session == 0 {
		return opts
	}
	opts.Skip = func(session int64, znode []byte) bool {
		switch {
		case ix.sessions[session] == nil:
			return false // its first event names its client
		case keep.Session != 0 && session != keep.Session:
			return true
		}
		return keep.Node != nil && !keep.Node(znode)
	}
	return opts
}

// take takes an event read: its session's client, and the event itself
// when the index keeps it.
func (ix *AuditIndex) take(e *auditlog.Event) {
	if ix.stream == nil {
		ix.Events++
	}
	if e.HasSession && !e.ByServer() && e.IP != "" {
		s := ix.sessions[e.Session]
		if s == nil {
			s = &sessionClients{first: Client{User: e.User, IP: e.IP}}
			ix.sessions[e.Session] = s
		}
		if !contains(s.addresses, e.IP) {
			s.addresses = append(s.addresses, e.IP)
		}
	}
	if e.Time.IsZero() {
		if ix.stream == nil {
			ix.Untimed++
		}
		return
	}
	keep := ix.keep
	if !e.HasSession || (keep.Session != 0 && e.Session != keep.Session) || (keep.Node != nil && !keep.Node([]byte(e.Znode))) {
		return
	}
	ix.Kept++
	ev := auditEvent{ms: e.Time.UnixMilli(), Client: Client{User: e.User, IP: e.IP}, op: e.Operation, znode: e.Znode,
		result: e.Result, file: e.File, line: e.Line}
	k := auditKey{session: e.Session, op: e.Operation, znode: e.Znode}
	ix.events[k] = append(ix.events[k], ev)
	failed := e.Result == auditlog.ResultFailure
	if failed {
		ix.failures[e.Session] = append(ix.failures[e.Session], ev)
	}
	if ix.stream != nil {
		ix.held = append(ix.held, heldEvent{key: k, ms: ev.ms, failed: failed})
	}
}

// heldEvent is an event a stream holds, in the order read: the oldest
// go first.
type heldEvent struct {
	key    auditKey
	ms     int64
	failed bool
}

// advance reads a stream's events up to the window after ms and lets go
// of those before the window before it. Line errors were told by the
// first pass.
func (ix *AuditIndex) advance(ms int64) {
	window := AuditWindow.Milliseconds()
	for ix.stream != nil && ix.readMs <= ms+window {
		e, err := ix.stream.Next()
		if errors.Is(err, io.EOF) {
			ix.Close()
			break
		}
		if err != nil {
			continue
		}
		ix.take(&e)
		if !e.Time.IsZero() {
			ix.readMs = max(ix.readMs, e.Time.UnixMilli())
		}
	}
	n := ix.heldFrom
	for n < len(ix.held) && ix.held[n].ms < ms-window {
		h := ix.held[n]
		ix.outOfWindow++
		if list := ix.events[h.key]; len(list) > 1 {
			ix.events[h.key] = list[1:]
		} else {
			delete(ix.events, h.key)
		}
		if list := ix.failures[h.key.session]; h.failed && len(list) > 1 {
			ix.failures[h.key.session] = list[1:]
		} else if h.failed {
			delete(ix.failures, h.key.session)
		}
		n++
	}
	ix.heldFrom = n
	if n > len(ix.held)/2 {
		// Moved down now and then, not at every step: once per window.
		// The maps are made anew then too: keys forever added and
		// deleted leave a map longer and longer to probe.
		ix.held = append(ix.held[:0], ix.held[n:]...)
		ix.heldFrom = 0
		events := make(map[auditKey][]auditEvent, len(ix.events))
		for k, v := range ix.events {
			events[k] = v
		}
		failures := make(map[int64][]auditEvent, len(ix.failures))
		for k, v := range ix.failures {
			failures[k] = v
		}
		ix.events, ix.failures = events, failures
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// OutOfWindow counts the lookups that found events of the transaction's
// session, operation and node only further than AuditWindow away — for a
// stream (StreamAudit), which holds no event so far away, the events it
// let go of: when nothing matched at all, the audit log's times are
// likely read in the wrong zone.
func (ix *AuditIndex) OutOfWindow() int { return ix.outOfWindow }

// nearest finds the event of list nearest to ms within the window.
func (ix *AuditIndex) nearest(list []auditEvent, ms int64) (ev auditEvent, candidates int, ok bool) {
	window := AuditWindow.Milliseconds()
	i := sort.Search(len(list), func(i int) bool { return list[i].ms >= ms-window })
	best := int64(-1)
	for ; i < len(list) && list[i].ms <= ms+window; i++ {
		candidates++
		if gap := abs(list[i].ms - ms); best < 0 || gap < best {
			best, ev = gap, list[i]
		}
	}
	if candidates == 0 && len(list) > 0 {
		ix.outOfWindow++
	}
	return ev, candidates, candidates > 0
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Find looks for the audit event of an operation (auditlog.Op…) by a
// session on a node at a time; nil when the log has none within the
// window.
func (ix *AuditIndex) Find(session int64, op, znode string, at time.Time) *Who {
	ms := at.UnixMilli()
	ix.advance(ms)
	ev, n, ok := ix.nearest(ix.events[auditKey{session: session, op: op, znode: znode}], ms)
	if !ok {
		return nil
	}
	return ix.eventWho(session, ev, ms, n)
}

func (ix *AuditIndex) eventWho(session int64, ev auditEvent, ms int64, candidates int) *Who {
	w := &Who{Match: MatchEvent, Client: ev.Client, GapMs: ev.ms - ms, Candidates: candidates,
		Operation: ev.op, Znode: ev.znode, Result: ev.result, File: ev.file, Line: ev.line}
	if s := ix.sessions[session]; s != nil {
		w.Addresses = len(s.addresses)
	}
	if ev.op == auditlog.OpEphemeral {
		w.ByServer = true
		if s := ix.sessions[session]; s != nil {
			c := s.first
			w.Session = &c
		}
	}
	return w
}

// SessionClient is a session's client from its first audited operation,
// as a MatchSession; nil when the audit log names none.
func (ix *AuditIndex) SessionClient(session int64) *Who {
	s := ix.sessions[session]
	if s == nil {
		return nil
	}
	return &Who{Match: MatchSession, Client: s.first, Addresses: len(s.addresses)}
}

// auditOp is the operation ZooKeeper audits a logged transaction type as
// (AuditHelper.addAuditLog); "" for those it does not audit: createTTL
// outside a multi, sessions, check.
func auditOp(typ string) string {
	switch typ {
	case "create", "create2", "createContainer":
		return auditlog.OpCreate
	case "delete", "deleteContainer":
		return auditlog.OpDelete
	case "setData":
		return auditlog.OpSetData
	case "setACL":
		return auditlog.OpSetACL
	case "reconfig":
		return auditlog.OpReconfig
	}
	return ""
}

// Who tells who made a transaction: its own audit event when the log has
// it, else its session's client; nil when the audit log names neither.
// A multi is told by its first operation the log has (a failed one by its
// multiOperation failure), a failed request by the session's failure
// nearest in time, a closeSession by the server's deletion of the first
// ephemeral it removed.
func (ix *AuditIndex) Who(t *Transaction) *Who {
	if w := ix.own(t); w != nil {
		return w
	}
	if t.Session == 0 {
		return nil // the server's own: a container's or TTL node's removal
	}
	return ix.SessionClient(t.Session)
}

// own finds a transaction's own event.
func (ix *AuditIndex) own(t *Transaction) *Who {
	if t.Session == 0 {
		return nil
	}
	switch t.Type {
	case "multi":
		if t.Failed {
			return ix.Find(t.Session, auditlog.OpMulti, "", t.Time)
		}
		for i := range t.Ops {
			op := &t.Ops[i]
			if w := ix.Find(t.Session, multiAuditOp(op.Type), op.Path, t.Time); w != nil {
				return w
			}
		}
		return nil
	case "error":
		ms := t.Time.UnixMilli()
		ix.advance(ms)
		if ev, n, ok := ix.nearest(ix.failures[t.Session], ms); ok {
			return ix.eventWho(t.Session, ev, ms, n)
		}
		return nil
	case "closeSession":
		for _, p := range t.Removed {
			if w := ix.Find(t.Session, auditlog.OpEphemeral, p, t.Time); w != nil {
				return w
			}
		}
		return nil
	}
	if op := auditOp(t.Type); op != "" {
		return ix.Find(t.Session, op, t.Path, t.Time)
	}
	return nil
}

// multiAuditOp is how a multi's operation is audited: as a single
// request's, and a createTTL as a create (AuditHelper.logMultiOperation).
func multiAuditOp(typ string) string {
	if typ == "createTtl" {
		return auditlog.OpCreate
	}
	return auditOp(typ)
}

// OpWho tells who made one of a multi's operations.
func (ix *AuditIndex) OpWho(t *Transaction, i int) *Who {
	op := &t.Ops[i]
	if w := ix.Find(t.Session, multiAuditOp(op.Type), op.Path, t.Time); w != nil {
		return w
	}
	return ix.SessionClient(t.Session)
}
