package introspect

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// lockScenario is a lock held by one session and watched by another, under
// base: the holder owns base/locks/orders/lock-N and base/member-a; the
// waiter has a getData watch on the lock node, an exists watch on
// base/missing and a child watch on base/locks/orders.
type lockScenario struct {
	base           string
	holder, waiter *zk.Conn
	lock           string // server path of the holder's lock node
}

func newLockScenario(t *testing.T, servers []string, base string) *lockScenario {
	t.Helper()
	s := &lockScenario{base: base, holder: zktest.Conn(t, strings.Join(servers, ",")), waiter: zktest.Conn(t, strings.Join(servers, ","))}
	acl := zk.WorldACL(zk.PermAll)
	for _, p := range []string{base, base + "/locks", base + "/locks/orders"} {
		if _, err := s.holder.Create(p, nil, zk.FlagPersistent, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	var err error
	if s.lock, err = s.holder.Create(base+"/locks/orders/lock-", []byte("127.0.0.1"), zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
		t.Fatalf("create lock node: %v", err)
	}
	if _, err := s.holder.Create(base+"/member-a", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatalf("create member node: %v", err)
	}
	if _, _, _, err := s.waiter.GetW(s.lock); err != nil {
		t.Fatalf("getData watch: %v", err)
	}
	if _, _, _, err := s.waiter.ExistsW(base + "/missing"); err != nil {
		t.Fatalf("exists watch: %v", err)
	}
	if _, _, _, err := s.waiter.ChildrenW(base + "/locks/orders"); err != nil {
		t.Fatalf("child watch: %v", err)
	}
	return s
}

func introspect(t *testing.T, servers []string, chroot string, opts Options) *Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in, err := Ask(ctx, connstr.ConnectString{Servers: servers, Chroot: chroot}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range in.Refused {
		t.Logf("refused: %v", r)
	}
	for _, p := range in.Problems {
		t.Logf("problem: %v", p)
	}
	return in
}

// neverSession is a session id no server hands out in a test.
const neverSession = 0x7eadbeef00000001

// checkScenario checks what full tables say of the scenario, seen under
// chroot.
func checkScenario(t *testing.T, in *Snapshot, s *lockScenario, chroot string) {
	t.Helper()
	rel := func(p string) string {
		r, ok := chrootRel(chroot, p)
		if !ok {
			t.Fatalf("%s is outside the chroot %s", p, chroot)
		}
		return r
	}
	lock, dir := rel(s.lock), rel(s.base+"/locks/orders")
	holder, waiter := in.Session(s.holder.SessionID()), in.Session(s.waiter.SessionID())
	if holder == nil || waiter == nil {
		t.Fatalf("sessions %#x and %#x not both found in %+v", s.holder.SessionID(), s.waiter.SessionID(), in.Sessions)
	}
	if want := []string{lock, rel(s.base + "/member-a")}; strings.Join(holder.Ephemerals, ",") != strings.Join(want, ",") {
		t.Errorf("holder's ephemerals: got %v, want %v", holder.Ephemerals, want)
	}
	if want := []string{lock, rel(s.base + "/missing")}; strings.Join(waiter.Watches, ",") != strings.Join(want, ",") || waiter.WatchCount != 2 {
		t.Errorf("waiter's watches: got %v (%d), want %v", waiter.Watches, waiter.WatchCount, want)
	}
	for _, sess := range []*Session{holder, waiter} {
		if !sess.Connected || sess.Client == "" || sess.Server == "" || sess.Timeout <= 0 || sess.LastOp == "" {
			t.Errorf("session %s: %+v", sess.Hex, *sess)
		}
	}
	tables := in.Tables()
	if addr, ok := tables.ClientAddress(holder.ID); !ok || addr != holder.Client {
		t.Errorf("ClientAddress(holder) = %q, %v", addr, ok)
	}
	if _, _, err := net.SplitHostPort(holder.Client); err != nil {
		t.Errorf("holder's client address %q: %v", holder.Client, err)
	}
	for _, c := range []struct {
		name         string
		session      int64
		path         string
		watching     bool
		connected    bool
		sessionKnown bool
	}{
		{"waiter watches the lock node", waiter.ID, lock, true, true, true},
		{"holder does not watch its own node", holder.ID, lock, false, true, true},
		{"a child watch is not a data watch", waiter.ID, dir, false, true, true},
		{"an unknown session", neverSession, lock, false, false, true},
	} {
		if w, known := tables.Watches(c.session, c.path); w != c.watching || !known {
			t.Errorf("%s: Watches(%#x, %s) = %v, %v; want %v, true", c.name, c.session, c.path, w, known, c.watching)
		}
		if conn, known := tables.Connected(c.session); conn != c.connected || !known {
			t.Errorf("%s: Connected(%#x) = %v, %v; want %v, true", c.name, c.session, conn, known, c.connected)
		}
	}
}

func TestIntrospectEmbedded(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	servers := []string{srv.ConnectString()}
	s := newLockScenario(t, servers, "/app")
	outside := zktest.Conn(t, strings.Join(servers, ","))
	if _, err := outside.Create("/elsewhere", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, chroot := range []string{"", "/app"} {
		t.Run("chroot="+chroot, func(t *testing.T) {
			in := introspect(t, servers, chroot, Options{})
			if len(in.Refused) != 0 || len(in.Problems) != 0 {
				t.Errorf("refused %v, problems %v", in.Refused, in.Problems)
			}
			m := in.Members[0]
			if m.Mode != ModeStandalone || in.Leader() == nil || m.Stats == nil || m.Stats.NodeCount == 0 ||
				m.Monitor["server_state"] != "standalone" || m.Conf["tickTime"] == "" || m.Dump == nil {
				t.Errorf("member: %+v", m)
			}
			checkScenario(t, in, s, chroot)
			o := in.Session(outside.SessionID())
			if chroot == "" && len(o.Ephemerals) != 1 || chroot != "" && len(o.Ephemerals) != 0 {
				t.Errorf("chroot %q: a node outside it: %v", chroot, o.Ephemerals)
			}
		})
	}
}

func TestIntrospectEmbeddedRestricted(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		words   []string
		refused string // in order
		mode    MemberMode
		// what is still known
		clients, watches bool
		missing          map[string]string // word → Missing contains
	}{
		{name: "srvr only", words: []string{"srvr"}, refused: "mntr,cons,wchc,wchp,dump,conf", mode: ModeStandalone,
			missing: map[string]string{
				"wchc": "watches cannot be confirmed", "wchp": "watches cannot be confirmed",
				"cons": "client addresses, last operations and session timeouts", "dump": "ephemeral nodes and expiry are unknown",
				"mntr": "monitoring counters", "conf": "configuration is unknown",
			}},
		{name: "dump and wchp", words: []string{"srvr", "dump", "wchp"}, refused: "mntr,cons,wchc,conf", mode: ModeStandalone,
			clients: true, watches: true,
			missing: map[string]string{"cons": "client addresses taken from dump instead", "wchc": "watches by session derived from wchp instead"}},
		{name: "mntr instead of srvr", words: []string{"mntr", "cons", "wchc"}, refused: "srvr,wchp,dump,conf", mode: ModeStandalone,
			clients: true, watches: true,
			missing: map[string]string{"srvr": "taken from mntr instead", "wchp": "watches by path derived from wchc instead"}},
		{name: "ruok only", words: []string{"ruok"}, refused: "srvr,mntr,cons,wchc,wchp,dump,conf,isro", mode: ModeUnknown,
			missing: map[string]string{"isro": "read-only could not be confirmed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := zktest.EmbeddedServer(t, zkserver.Config{FourLetterWords: c.words})
			addr := srv.ConnectString()
			s := newLockScenario(t, []string{addr}, "/app")
			in := introspect(t, []string{addr}, "", Options{})
			var refused []string
			for _, r := range in.Refused {
				refused = append(refused, r.Command)
				if r.Member != addr {
					t.Errorf("refusal %v names member %s, want %s", r, r.Member, addr)
				}
				if want := c.missing[r.Command]; want != "" && !strings.Contains(r.Missing, want) {
					t.Errorf("%s: missing %q, want it to say %q", r.Command, r.Missing, want)
				}
				if !strings.HasPrefix(r.String(), r.Command+" refused on "+addr+": ") || !strings.HasSuffix(r.String(), "; add it to 4lw.commands.whitelist") {
					t.Errorf("refusal message: %s", r)
				}
			}
			if strings.Join(refused, ",") != c.refused {
				t.Errorf("refused %v, want %s", refused, c.refused)
			}
			if len(in.Problems) != 0 {
				t.Errorf("problems: %v", in.Problems)
			}
			if in.Members[0].Mode != c.mode {
				t.Errorf("mode %s, want %s", in.Members[0].Mode, c.mode)
			}
			tables := in.Tables()
			waiter := s.waiter.SessionID()
			if _, ok := tables.ClientAddress(waiter); ok != c.clients {
				t.Errorf("ClientAddress known: %v, want %v", ok, c.clients)
			}
			if conn, known := tables.Connected(waiter); conn != c.clients || known != c.clients {
				t.Errorf("Connected(waiter) = %v, %v; want %v, %v", conn, known, c.clients, c.clients)
			}
			if _, known := tables.Connected(neverSession); known != c.clients {
				t.Errorf("Connected(unknown session) known = %v, want %v", known, c.clients)
			}
			if w, known := tables.Watches(waiter, s.lock); w != c.watches || known != c.watches {
				t.Errorf("Watches(waiter, lock) = %v, %v; want %v, %v", w, known, c.watches, c.watches)
			}
			if w, known := tables.Watches(s.holder.SessionID(), s.lock); w || known != c.watches {
				t.Errorf("Watches(holder, lock) = %v, %v; want false, %v", w, known, c.watches)
			}
		})
	}
}

func TestIntrospectUnreachable(t *testing.T) {
	t.Parallel()
	live := zktest.EmbeddedServer(t, zkserver.Config{})
	paused := zktest.EmbeddedServer(t, zkserver.Config{})
	paused.Pause()
	t.Cleanup(paused.Resume) // before Close, which runs later
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	// An AdminServer as silent as its member: its port accepts
	// connections (the kernel does) and nothing ever answers.
	silentAdmin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silentAdmin.Close() })
	adminURL := "http://" + silentAdmin.Addr().String() + "/commands"

	s := newLockScenario(t, []string{live.ConnectString()}, "/app")
	servers := []string{live.ConnectString(), paused.ConnectString(), closed}
	in := introspect(t, servers, "", Options{Timeout: 500 * time.Millisecond, AdminURLs: []string{adminURL}})
	if len(in.Members) != 3 || in.Members[0].Mode != ModeStandalone {
		t.Fatalf("members: %+v", in.Members)
	}
	// Each member that did not answer is named once, as a member, in
	// plain words: the paused one with the AdminServer presumed to be its
	// own (the only member silent until the deadline, as the URL is).
	notes := in.MemberNotes(ReadThrough{})
	want := []MemberNote{
		{Member: paused.ConnectString(), AdminURL: adminURL, Kind: NoteNoAnswer,
			Text: "member " + paused.ConnectString() + " (AdminServer :" + portOf(t, adminURL) + "): no answer within 500ms on its client port or its AdminServer; the sessions connected to it are not in the tables"},
		{Member: closed, Kind: NoteUnreachable,
			Text: "member " + closed + ": connection refused on its client port; the sessions connected to it are not in the tables"},
	}
	if len(notes) != len(want) {
		t.Fatalf("member notes:\n%+v\nwant\n%+v", notes, want)
	}
	for i := range want {
		if notes[i] != want[i] {
			t.Errorf("note %d:\n got %+v\nwant %+v", i, notes[i], want[i])
		}
	}
	for _, p := range in.Problems {
		if bad := goInternal(p.String()); bad != "" {
			t.Errorf("problem %q says %q", p, bad)
		}
	}
	if ps := in.OtherProblems(); len(ps) != 0 {
		t.Errorf("the silent members' problems are their notes, not others: %v", ps)
	}
	for _, m := range in.Members[1:] {
		if m.Mode != ModeUnreachable || m.Error == "" || m.Serving() {
			t.Errorf("%s: mode %s, error %q", m.Addr, m.Mode, m.Error)
		}
		found := false
		for _, p := range in.Problems {
			found = found || p.Member == m.Addr && p.Command == "srvr"
		}
		if !found {
			t.Errorf("no problem recorded for %s: %v", m.Addr, in.Problems)
		}
	}
	tables := in.Tables()
	if conn, known := tables.Connected(s.holder.SessionID()); !conn || !known {
		t.Errorf("Connected(holder) = %v, %v", conn, known)
	}
	// A session not found may be connected to a member that did not answer.
	if _, known := tables.Connected(neverSession); known {
		t.Error("Connected(unknown session) is known with members unreachable")
	}
	if w, known := tables.Watches(s.waiter.SessionID(), s.lock); !w || !known {
		t.Errorf("Watches(waiter, lock) = %v, %v", w, known)
	}
	// The holder's member is known and its table read: a negative answer holds.
	if w, known := tables.Watches(s.holder.SessionID(), s.lock); w || !known {
		t.Errorf("Watches(holder, lock) = %v, %v", w, known)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Ask(ctx, connstr.ConnectString{Servers: []string{paused.ConnectString(), closed}}, Options{Timeout: 500 * time.Millisecond}); err == nil ||
		!strings.Contains(err.Error(), "no member") || !strings.Contains(err.Error(), closed) {
		t.Errorf("nothing answered: err = %v", err)
	}
}

// goInternal returns the Go network stack's own words in a message meant
// for a person, "" when there are none.
func goInternal(msg string) string {
	for _, bad := range []string{"use of closed network connection", "context deadline exceeded", "read tcp", "dial tcp", "i/o timeout", "Get \""} {
		if strings.Contains(msg, bad) {
			return bad
		}
	}
	return ""
}

func portOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func TestIntrospectNilTables(t *testing.T) {
	t.Parallel()
	var in *Snapshot
	tables := in.Tables()
	if _, ok := tables.ClientAddress(1); ok {
		t.Error("ClientAddress known")
	}
	if _, known := tables.Connected(1); known {
		t.Error("Connected known")
	}
	if _, known := tables.Watches(1, "/a"); known {
		t.Error("Watches known")
	}
}
