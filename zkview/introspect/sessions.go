package introspect

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// Session is one ZooKeeper session as the members' tables show it,
// combined across the ensemble.
type Session struct {
	ID  int64  `json:"-"`
	Hex string `json:"session"` // ID as ZooKeeper prints it, 0x…
	// Client is the client's address, "ip:port"; "" when no member's cons
	// (or dump) shows a connection for the session.
	Client string `json:"client"`
	// Server is the member the session is connected to, "" when none
	// known.
	Server string `json:"server"`
	// CreatedBy is the member that created the session: the top byte of a
	// session id is that member's server id. "" when the members' ids are
	// not known (conf refused, no AdminServer). A client that moved is
	// connected to another.
	CreatedBy string `json:"created_by,omitempty"`
	// Connected is set when a member lists a connection for the session.
	// A session without one may be between servers or expiring; see
	// ServerTables.Connected for when its absence is conclusive.
	Connected bool `json:"connected"`
	// Ephemerals are the session's ephemeral nodes, as paths under the
	// chroot (nodes outside it are left out), sorted.
	Ephemerals []string `json:"ephemerals"`
	// Watches are the paths (under the chroot) the session holds data
	// watches on (getData, exists), sorted; ZooKeeper 3.8 does not list
	// child watches.
	Watches []string `json:"watches"`
	// WatchCount counts every data watch of the session, outside the
	// chroot too.
	WatchCount int `json:"watch_count"`
	// Timeout is the negotiated session timeout.
	Timeout time.Duration `json:"-"`
	// LastOp is the last operation on the session's connection (cons).
	LastOp      string    `json:"last_op,omitempty"`
	Established time.Time `json:"established,omitzero"`
	// Expires is when the leader (or standalone server) will expire the
	// session if its client stays silent, to the tick (four-letter dump
	// on the leader only).
	Expires time.Time `json:"expires,omitzero"`
	// LastHeard is when the member the session is connected to last
	// answered it (pings included), on zkx's clock; zero when no member
	// says (cons and the AdminServer refused, or no connection). See
	// lastHeard for how the member's clock is read.
	LastHeard time.Time `json:"-"`
	// HeardBound is set when LastHeard may be later than the truth (the
	// silence longer): zkx had no session of its own on the member just
	// touched, so the member's "now" is its freshest answer to another
	// client, which may be a little old.
	HeardBound bool `json:"-"`
	// ExpiresBy is the latest the servers expire the session if its client
	// stays silent after LastHeard (see expiresBy); zero when LastHeard or
	// the timeout is not known. ExpiresByApprox: no member said its
	// tickTime, so ExpiresBy is about, and may be early by up to two ticks.
	ExpiresBy       time.Time `json:"-"`
	ExpiresByApprox bool      `json:"-"`
	// HeardReadAt is when the member's connection list was read, on zkx's
	// clock: LastHeard is known up to then.
	HeardReadAt time.Time `json:"-"`
}

// MarshalJSON adds timeout_ms.
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session
	return json.Marshal(struct {
		plain
		TimeoutMs int64 `json:"timeout_ms"`
	}{plain(s), s.Timeout.Milliseconds()})
}

// buildSessions combines the members' connections, dumps and watch
// tables into one record per session, sorted by id.
func buildSessions(in *Snapshot) []Session {
	type acc struct {
		session      Session
		lastResponse int64   // the connection's LastResponse, 0 when none
		member       *Member // the member listing the connection
		ephemerals   map[string]bool
		watches      map[string]bool
		watched      map[string]bool // server paths, for WatchCount
	}
	byID := map[int64]*acc{}
	get := func(id int64) *acc {
		a := byID[id]
		if a == nil {
			a = &acc{session: Session{ID: id, Hex: display.Hex(id)}, ephemerals: map[string]bool{}, watches: map[string]bool{}, watched: map[string]bool{}}
			byID[id] = a
		}
		return a
	}
	for i := range in.Members {
		m := &in.Members[i]
		for _, c := range m.Connections {
			if c.SessionID == 0 {
				continue
			}
			a := get(c.SessionID)
			if a.session.Connected && c.Established.Before(a.session.Established) {
				continue // listed twice while moving: the newer connection is the live one
			}
			a.session.Client, a.session.Server, a.session.Connected = c.Client, m.Addr, true
			a.session.LastOp, a.session.Established = c.LastOp, c.Established
			a.lastResponse, a.member = c.LastResponse, m
			if c.Timeout > 0 {
				a.session.Timeout = c.Timeout
			}
		}
	}
	for i := range in.Members {
		m := &in.Members[i]
		if m.Dump == nil {
			continue
		}
		if m.Connections == nil {
			for _, c := range m.Dump.Connections {
				if c.SessionID == 0 {
					continue
				}
				if a := get(c.SessionID); a.session.Client == "" {
					a.session.Client, a.session.Server, a.session.Connected = c.Client, m.Addr, true
				}
			}
		}
		for _, b := range m.Dump.Buckets {
			for _, id := range b.Sessions {
				if a := get(id); !b.At.IsZero() {
					a.session.Expires = b.At
				}
			}
		}
		for id, timeout := range m.Dump.Timeouts {
			if a := get(id); a.session.Timeout == 0 {
				a.session.Timeout = timeout
			}
		}
		for id, paths := range m.Dump.Ephemerals {
			a := get(id)
			for _, p := range paths {
				if rel, ok := chrootRel(in.Chroot, p); ok {
					a.ephemerals[rel] = true
				}
			}
		}
	}
	for i := range in.Members {
		m := &in.Members[i]
		if m.Watches == nil {
			continue
		}
		for id, paths := range m.Watches.BySession {
			a := get(id)
			for _, p := range paths {
				a.watched[p] = true
				if rel, ok := chrootRel(in.Chroot, p); ok {
					a.watches[rel] = true
				}
			}
		}
	}
	byServerID := map[int64]string{}
	for i := range in.Members {
		if id, ok := in.Members[i].ServerID(); ok {
			byServerID[id] = in.Members[i].Addr
		}
	}
	clocks := memberClocks(in, in.touch)
	out := make([]Session, 0, len(byID))
	for _, a := range byID {
		if a.member != nil && a.lastResponse > 0 {
			if c, ok := clocks[a.member.Addr]; ok {
				a.session.LastHeard, a.session.HeardBound, a.session.HeardReadAt = c.heard(a.lastResponse), !c.recent, c.local
				a.session.ExpiresBy, a.session.ExpiresByApprox = expiresBy(a.session.LastHeard, a.session.Timeout, tickOf(in, a.member))
			}
		}
		a.session.CreatedBy = byServerID[int64(uint64(a.session.ID)>>56)]
		a.session.Ephemerals, a.session.Watches, a.session.WatchCount = sortedSet(a.ephemerals), sortedSet(a.watches), len(a.watched)
		out = append(out, a.session)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// chrootRel maps a server path to the user's under chroot ("" for none);
// ok is false for a path outside the chroot.
func chrootRel(chroot, path string) (string, bool) {
	switch {
	case chroot == "":
		return path, true
	case path == chroot:
		return "/", true
	case strings.HasPrefix(path, chroot+"/"):
		return path[len(chroot):], true
	}
	return "", false
}
