package introspect

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestIntrospectReal(t *testing.T) {
	t.Parallel()
	servers := strings.Split(zktest.Shared(t), ",")
	base := zktest.Path(t)
	s := newLockScenario(t, servers, base)
	for _, chroot := range []string{"", base} {
		t.Run("chroot="+chroot, func(t *testing.T) {
			in := introspect(t, servers, chroot, Options{})
			if len(in.Refused) != 0 || len(in.Problems) != 0 {
				t.Errorf("refused %v, problems %v", in.Refused, in.Problems)
			}
			m := in.Members[0]
			if m.Mode != ModeStandalone || m.Stats == nil || !strings.HasPrefix(m.Stats.Version, "3.8") ||
				m.Monitor["server_state"] != "standalone" || m.Conf["clientPort"] == "" || m.Dump == nil {
				t.Errorf("member: %+v", m)
			}
			checkScenario(t, in, s, chroot)
		})
	}
}

func TestIntrospectRealRestricted(t *testing.T) {
	t.Parallel()
	cases := []struct {
		words            []string
		refused          string
		clients, watches bool
	}{
		// srvr is always allowed: ZooKeeper adds it to any whitelist.
		{words: []string{"srvr"}, refused: "mntr,cons,wchc,wchp,dump,conf"},
		{words: []string{"dump", "wchp"}, refused: "mntr,cons,wchc,conf", clients: true, watches: true},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.words, ","), func(t *testing.T) {
			t.Parallel() // each on a server of its own
			e := zktest.RealWith(t, zktest.RealOptions{FourLetterWords: c.words})
			addr := e.Members()[0].Addr()
			s := newLockScenario(t, []string{addr}, "/app")
			in := introspect(t, []string{addr}, "", Options{})
			var refused []string
			for _, r := range in.Refused {
				refused = append(refused, r.Command)
			}
			if strings.Join(refused, ",") != c.refused || len(in.Problems) != 0 {
				t.Errorf("refused %v (want %s), problems %v", refused, c.refused, in.Problems)
			}
			m := in.Members[0]
			if m.Mode != ModeStandalone || m.Stats == nil || m.Stats.NodeCount == 0 {
				t.Errorf("member: %+v", m)
			}
			tables := in.Tables()
			if addr, ok := tables.ClientAddress(s.holder.SessionID()); ok != c.clients || ok && addr == "" {
				t.Errorf("ClientAddress(holder) = %q, %v; want known %v", addr, ok, c.clients)
			}
			if conn, known := tables.Connected(s.holder.SessionID()); conn != c.clients || known != c.clients {
				t.Errorf("Connected(holder) = %v, %v", conn, known)
			}
			if w, known := tables.Watches(s.waiter.SessionID(), s.lock); w != c.watches || known != c.watches {
				t.Errorf("Watches(waiter, lock) = %v, %v", w, known)
			}
		})
	}
}

// TestIntrospectEnsemble runs on one real ensemble of three in the
// harness's configuration: first what reads it whole (its membership),
// then the introspection that ends with a member killed.
func TestIntrospectEnsemble(t *testing.T) {
	t.Parallel()
	e := zktest.Real(t, 3)
	t.Run("Membership", func(t *testing.T) { membershipOfARealEnsemble(t, e) })
	t.Run("Introspect", func(t *testing.T) { introspectEnsemble(t, e) })
}

// introspectEnsemble: every member's tables and mode; the scenario's
// sessions on the follower that holds them; a member killed is recorded
// and the rest still answers.
func introspectEnsemble(t *testing.T, e *zktest.Ensemble) {
	leader := e.Leader(t)
	var on *zktest.Member // a follower holding the scenario's sessions
	for _, m := range e.Members() {
		if m != leader {
			on = m
			break
		}
	}
	s := newLockScenario(t, []string{on.Addr()}, "/app")
	servers := strings.Split(e.ConnectString(), ",")
	in := introspect(t, servers, "", Options{})
	if len(in.Refused) != 0 || len(in.Problems) != 0 {
		t.Errorf("refused %v, problems %v", in.Refused, in.Problems)
	}
	leaders := 0
	for i, m := range in.Members {
		if m.Addr != servers[i] {
			t.Errorf("member %d is %s, want %s", i, m.Addr, servers[i])
		}
		switch m.Mode {
		case ModeLeader:
			leaders++
			if m.Addr != leader.Addr() {
				t.Errorf("leader %s, the harness says %s", m.Addr, leader.Addr())
			}
			if m.Monitor["synced_followers"] != "2" {
				t.Errorf("leader's mntr synced_followers = %q", m.Monitor["synced_followers"])
			}
		case ModeFollower:
		default:
			t.Errorf("%s: mode %s", m.Addr, m.Mode)
		}
		if m.Stats == nil || m.Stats.Zxid == 0 || m.Dump == nil || m.Watches == nil || m.Connections == nil || m.Conf["server.3"] == "" {
			t.Errorf("%s: tables missing: %+v", m.Addr, m)
		}
	}
	if leaders != 1 || in.Leader() == nil || in.Leader().Addr != leader.Addr() {
		t.Errorf("%d leaders; Leader() = %v", leaders, in.Leader())
	}
	checkScenario(t, in, s, "")
	for _, id := range []int64{s.holder.SessionID(), s.waiter.SessionID()} {
		if sess := in.Session(id); sess.Server != on.Addr() {
			t.Errorf("session %s on %s, want %s", sess.Hex, sess.Server, on.Addr())
		}
	}

	// A member down: recorded, and the rest still answers.
	var down *zktest.Member
	for _, m := range e.Members() {
		if m != leader && m != on {
			down = m
		}
	}
	down.Kill(t)
	in = introspect(t, servers, "", Options{})
	if m := in.Member(down.Addr()); m == nil || m.Mode != ModeUnreachable {
		t.Errorf("killed member: %+v", m)
	}
	if in.Leader() == nil || in.Member(on.Addr()).Mode != ModeFollower {
		t.Errorf("the rest after a kill: %+v", in.Members)
	}
	tables := in.Tables()
	if conn, known := tables.Connected(s.holder.SessionID()); !conn || !known {
		t.Errorf("Connected(holder) = %v, %v", conn, known)
	}
	if _, known := tables.Connected(neverSession); known {
		t.Error("Connected(unknown session) known with a member down")
	}
}

// The AdminServer gives the same sessions and watches as the four-letter
// words.
func TestIntrospectAdminMatchesFourLetter(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{AdminServer: true})
	m := e.Members()[0]
	servers := []string{m.Addr()}
	s := newLockScenario(t, servers, "/app")
	four := introspect(t, servers, "/app", Options{})
	admin := introspect(t, servers, "/app", Options{AdminURLs: []string{m.AdminURL()}})
	if len(admin.Refused) != 0 || len(admin.Problems) != 0 || admin.Members[0].AdminURL != m.AdminURL() {
		t.Fatalf("AdminServer: refused %v, problems %v, member %+v", admin.Refused, admin.Problems, admin.Members[0])
	}
	if four.Members[0].AdminURL != "" {
		t.Error("four-letter introspection names an AdminServer")
	}
	checkScenario(t, admin, s, "/app")
	type view struct {
		Client, Server          string
		Ephemerals, Watches     []string
		WatchCount              int
		Connected               bool
		TimeoutMs               int64
		LastOpSet, EstablishSet bool
	}
	see := func(s *Session) view {
		return view{s.Client, s.Server, s.Ephemerals, s.Watches, s.WatchCount, s.Connected,
			s.Timeout.Milliseconds(), s.LastOp != "", !s.Established.IsZero()}
	}
	for _, id := range []int64{s.holder.SessionID(), s.waiter.SessionID()} {
		if a, f := see(admin.Session(id)), see(four.Session(id)); !reflect.DeepEqual(a, f) {
			t.Errorf("session %#x: AdminServer %+v, four-letter words %+v", id, a, f)
		}
	}
	am, fm := admin.Members[0], four.Members[0]
	if am.Mode != fm.Mode || am.Stats.Version != fm.Stats.Version || am.Monitor["server_state"] != fm.Monitor["server_state"] ||
		am.Conf["client_port"] != fm.Conf["clientPort"] {
		t.Errorf("member: AdminServer %+v, four-letter words %+v", am, fm)
	}
}

// TestIntrospectAdminEnsemble runs the tests of an ensemble in the
// production default configuration, four-letter words limited to srvr and
// an AdminServer on every member, on one such ensemble: each only reads
// the servers, or writes under a path of its own.
func TestIntrospectAdminEnsemble(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{Nodes: 3, AdminServer: true, FourLetterWords: []string{"srvr"}})
	for _, tt := range []struct {
		name string
		test func(*testing.T, *zktest.Ensemble)
	}{
		{"Restricted", introspectAdminEnsembleRestricted},
		{"EveryAdminServer", introspectEveryAdminServer},
		{"DiscoversAdminServer", introspectDiscoversAdminServer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.test(t, e)
		})
	}
}

// introspectAdminEnsembleRestricted: with four-letter words restricted,
// the AdminServer of one member fills that member's tables; the others'
// refusals are recorded.
func introspectAdminEnsembleRestricted(t *testing.T, e *zktest.Ensemble) {
	leader := e.Leader(t)
	var on *zktest.Member
	for _, m := range e.Members() {
		if m != leader {
			on = m
			break
		}
	}
	chroot := zktest.Path(t)
	s := newLockScenario(t, []string{on.Addr()}, chroot)
	servers := strings.Split(e.ConnectString(), ",")
	// No AdminMember: the AdminServer's client port picks the member out
	// of three on one host.
	in := introspect(t, servers, chroot, Options{AdminURLs: []string{on.AdminURL()}})
	if len(in.Problems) != 0 {
		t.Errorf("problems: %v", in.Problems)
	}
	for _, m := range in.Members {
		if (m.AdminURL != "") != (m.Addr == on.Addr()) {
			t.Errorf("%s: AdminURL %q", m.Addr, m.AdminURL)
		}
		if m.Mode != ModeLeader && m.Mode != ModeFollower {
			t.Errorf("%s: mode %s", m.Addr, m.Mode)
		}
	}
	refused := map[string][]string{}
	for _, r := range in.Refused {
		refused[r.Member] = append(refused[r.Member], r.Command)
	}
	for _, m := range e.Members() {
		want := "mntr,cons,wchc,wchp,dump,conf"
		if m == on {
			want = ""
		}
		if got := strings.Join(refused[m.Addr()], ","); got != want {
			t.Errorf("%v refused %q, want %q", m, got, want)
		}
	}
	holder, waiter := in.Session(s.holder.SessionID()), in.Session(s.waiter.SessionID())
	if holder == nil || waiter == nil || holder.Server != on.Addr() || holder.Client == "" ||
		strings.Join(holder.Ephemerals, ",") != "/locks/orders/"+s.lock[len(chroot+"/locks/orders/"):]+",/member-a" {
		t.Fatalf("sessions: %+v", in.Sessions)
	}
	tables := in.Tables()
	lock := s.lock[len(chroot):]
	if w, known := tables.Watches(waiter.ID, lock); !w || !known {
		t.Errorf("Watches(waiter, %s) = %v, %v", lock, w, known)
	}
	if w, known := tables.Watches(holder.ID, lock); w || !known {
		t.Errorf("Watches(holder, %s) = %v, %v; the holder's member table is known", lock, w, known)
	}
	if conn, known := tables.Connected(holder.ID); !conn || !known {
		t.Errorf("Connected(holder) = %v, %v", conn, known)
	}
	if _, known := tables.Connected(neverSession); known {
		t.Error("Connected(unknown session) known while two members refused cons and dump")
	}
}

// introspectEveryAdminServer is the production default: four-letter
// words limited to srvr, an AdminServer on every member. Given every URL,
// in any order, each member's tables come from its own AdminServer, and
// the sessions of all three members are named with their clients.
func introspectEveryAdminServer(t *testing.T, e *zktest.Ensemble) {
	members := e.Members()
	var sessions []int64
	for _, m := range members {
		sessions = append(sessions, zktest.Conn(t, m.Addr()).SessionID())
	}
	urls := []string{members[2].AdminURL(), members[0].AdminURL(), members[1].AdminURL()}
	in := introspect(t, strings.Split(e.ConnectString(), ","), "", Options{AdminURLs: urls})
	if len(in.Problems) != 0 {
		t.Errorf("problems: %v", in.Problems)
	}
	for i, m := range in.Members {
		if m.TablesFrom != TablesFromAdmin || m.AdminURL != strings.TrimSuffix(members[i].AdminURL(), "/") {
			t.Errorf("%s: tables from %q (%s), want %s's AdminServer", m.Addr, m.TablesFrom, m.AdminURL, members[i].AdminURL())
		}
	}
	for i, id := range sessions {
		s := in.Session(id)
		if s == nil || s.Server != members[i].Addr() || s.Client == "" || !s.Connected {
			t.Errorf("session of %s: %+v", members[i], s)
		} else if s.CreatedBy != members[i].Addr() {
			t.Errorf("session 0x%x: created by %q, want %s (its id's top byte is that member's id)", id, s.CreatedBy, members[i].Addr())
		}
	}
	if line := in.SourcesLine(); !strings.Contains(line, members[0].Addr()+" AdminServer") {
		t.Errorf("sources line %q", line)
	}
}

// introspectDiscoversAdminServer: no URL given, four-letter words
// refused. The AdminServer port is tried on each member's host; on this
// one host it belongs to one member, which it says, and only that
// member's tables are taken from it.
func introspectDiscoversAdminServer(t *testing.T, e *zktest.Ensemble) {
	on := e.Members()[1]
	u, err := url.Parse(on.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	in := introspect(t, strings.Split(e.ConnectString(), ","), "", Options{AdminPort: port})
	for _, m := range in.Members {
		switch {
		case m.Addr == on.Addr():
			if m.TablesFrom != TablesFromAdmin || !strings.HasPrefix(m.AdminNote, "found at http://") {
				t.Errorf("%s: tables from %q, note %q; want its AdminServer found", m.Addr, m.TablesFrom, m.AdminNote)
			}
		default:
			if m.TablesFrom != TablesRefused || !strings.Contains(m.AdminNote, "another member's") {
				t.Errorf("%s: tables from %q, note %q; want refused, the AdminServer found being another's", m.Addr, m.TablesFrom, m.AdminNote)
			}
		}
	}
}
