package introspect

import "github.com/zkx-dev/zkx/zkview"

// Tables returns the introspection's answers for recognisers: client
// addresses, live connections and data watches, by session, with paths
// under the chroot (server paths outside it are never reported). A nil
// Snapshot answers "not known" to everything.
//
// Connected(s) is known when a member lists s, or when every member's
// connection list was read (cons, the AdminServer, or dump's connection
// section); a member that is unreachable, or refused both cons and dump,
// makes a missing session unknown rather than disconnected. Watches(s, p)
// is known when s watches p, or when the watch table of s's member (or,
// when s's member is not known, of every member) was read; only data
// watches (getData, exists) are listed by ZooKeeper 3.8, so a session
// watching only p's children is reported as not watching p.
func (in *Snapshot) Tables() *Tables {
	t := &Tables{sessions: map[int64]*Session{}, watches: map[int64]map[string]bool{}, watchers: map[string][]int64{}, watchesKnown: map[string]bool{}}
	if in == nil {
		return t
	}
	t.connsComplete, t.watchesComplete = true, true
	for i := range in.Members {
		m := &in.Members[i]
		down := m.Mode == ModeNotServing // serves no clients: an empty table
		connsKnown := down || m.Connections != nil || (m.Dump != nil && len(m.Dump.Connections) > 0)
		watchesKnown := down || m.Watches != nil
		t.connsComplete = t.connsComplete && connsKnown
		t.watchesComplete = t.watchesComplete && watchesKnown
		t.watchesKnown[m.Addr] = watchesKnown
	}
	for i := range in.Sessions {
		s := &in.Sessions[i]
		t.sessions[s.ID] = s
		if len(s.Watches) > 0 {
			set := make(map[string]bool, len(s.Watches))
			for _, p := range s.Watches {
				set[p] = true
				t.watchers[p] = append(t.watchers[p], s.ID)
			}
			t.watches[s.ID] = set
		}
	}
	return t
}

// Tables answers what the servers' tables say about sessions (recognize.ServerTables)
// from a Snapshot.
type Tables struct {
	sessions        map[int64]*Session
	watches         map[int64]map[string]bool // user paths by session
	watchers        map[string][]int64        // sessions by user path, in id order
	connsComplete   bool
	watchesComplete bool
	watchesKnown    map[string]bool // by member address
}

// ClientAddress returns the client address of the session's connection.
func (t *Tables) ClientAddress(session int64) (string, bool) {
	if s := t.sessions[session]; s != nil && s.Client != "" {
		return s.Client, true
	}
	return "", false
}

// Connected reports whether a member lists a connection of the session.
func (t *Tables) Connected(session int64) (connected, known bool) {
	if s := t.sessions[session]; s != nil && s.Connected {
		return true, true
	}
	return false, t.connsComplete
}

// Watches reports whether the session holds a data watch on path (under
// the chroot).
func (t *Tables) Watches(session int64, path string) (watching, known bool) {
	if t.watches[session][path] {
		return true, true
	}
	if s := t.sessions[session]; s != nil {
		if s.Server != "" && t.watchesKnown[s.Server] {
			return false, true
		}
	}
	return false, t.watchesComplete
}

// LastHeard returns when a member last answered the session, from its
// connection's lresp (cons) or last_response_time (the AdminServer); ok is
// false when no member's connection list says (refused, or the session has
// no connection).
func (t *Tables) LastHeard(session int64) (zkview.Liveness, bool) {
	s := t.sessions[session]
	if s == nil || s.LastHeard.IsZero() {
		return zkview.Liveness{}, false
	}
	return zkview.Liveness{Heard: s.LastHeard, ReadAt: s.HeardReadAt, AtLeast: s.HeardBound, Timeout: s.Timeout,
		ExpiresBy: s.ExpiresBy, ExpiresByApprox: s.ExpiresByApprox}, true
}

// Watchers returns the sessions holding a data watch on path (under the
// chroot), in id order; known is whether every member's watch table was
// read, so that the list is complete.
func (t *Tables) Watchers(path string) (sessions []int64, known bool) {
	return t.watchers[path], t.watchesComplete
}

// Ephemerals lists every ephemeral node under the chroot, from the
// members' dumps (every member's lists the whole ensemble's); ok is false
// when no member's dump was read.
func (in *Snapshot) Ephemerals() (paths []string, ok bool) {
	if in == nil {
		return nil, false
	}
	for i := range in.Members {
		if m := &in.Members[i]; m.Serving() && m.Dump != nil {
			ok = true
		}
	}
	if !ok {
		return nil, false
	}
	for _, s := range in.Sessions {
		paths = append(paths, s.Ephemerals...)
	}
	return paths, true
}
