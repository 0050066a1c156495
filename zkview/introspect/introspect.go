package introspect

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/connstr"
)

// MemberMode is a member's role as srvr reports it, or why it has none.
type MemberMode string

// Modes of a member.
const (
	ModeLeader     MemberMode = "leader"
	ModeFollower   MemberMode = "follower"
	ModeObserver   MemberMode = "observer"
	ModeStandalone MemberMode = "standalone"
	ModeReadOnly   MemberMode = "read-only" // a partitioned member serving read-only clients
	// ModeNotServing: the member answers but serves no clients (out of
	// quorum, electing a leader).
	ModeNotServing MemberMode = "not serving"
	// ModeUnreachable: no answer within the timeout (down, partitioned,
	// wrong address).
	ModeUnreachable MemberMode = "unreachable"
	// ModeUnknown: the member answers but would not say (srvr and mntr
	// both refused).
	ModeUnknown MemberMode = "unknown"
)

// Member is what one server of the ensemble said about itself. A nil or
// empty field was not learned: Refusals and Problems say why.
type Member struct {
	// Addr is the member's client address as the connect string gives it.
	Addr string     `json:"addr"`
	Mode MemberMode `json:"mode"`
	// Error says why the member is unreachable or not serving.
	Error string `json:"error,omitempty"`
	// AdminURL is set when the AdminServer answered for this member.
	AdminURL string `json:"admin_url,omitempty"`
	// TablesFrom says where the member's session tables (connections,
	// watches, ephemerals) came from: TablesFromFourLetter,
	// TablesFromAdmin, TablesPartial, TablesRefused, or its mode when it
	// serves none (unreachable, not serving).
	TablesFrom string `json:"tables_from"`
	// AdminNote says what the look for the member's AdminServer found,
	// when it was looked for ("no AdminServer at …: connection refused").
	AdminNote string `json:"admin_note,omitempty"`
	// AdminUnanswered is the AdminServer URL presumed to be this member's
	// (by its host, or as the only one left) when neither the member nor
	// that URL answered.
	AdminUnanswered string `json:"admin_unanswered,omitempty"`
	// AdminError is why that AdminServer did not answer.
	AdminError string `json:"admin_error,omitempty"`
	// NoAnswer is set when an unreachable member was silent until the
	// deadline (Error: "no answer within 2s"), as a stopped or hung
	// process is, rather than refusing the connection.
	NoAnswer bool `json:"no_answer,omitempty"`
	// Stats is srvr (or server_stats): version, zxid, node count,
	// connection count, latency, outstanding requests.
	Stats *ServerStats `json:"stats,omitempty"`
	// Monitor is mntr (or monitor), keyed without the "zk_" prefix.
	Monitor map[string]string `json:"monitor,omitempty"`
	// Connections is cons (or connections): nil when unknown.
	Connections []Connection `json:"connections"`
	// ConnectionsAt is when Connections arrived, on zkx's clock: the
	// moment the member's freshest LastResponse stands for (see
	// Session.LastHeard).
	ConnectionsAt time.Time `json:"-"`
	// Watches is the data-watch table from wchc and wchp (or watches and
	// watches_by_path): nil when unknown. See WatchTable for what ZooKeeper
	// leaves out.
	Watches *WatchTable `json:"watches,omitempty"`
	// Dump is dump: sessions, their ephemerals, connections.
	Dump *Dump `json:"dump,omitempty"`
	// Conf is conf (or configuration; the AdminServer spells keys
	// snake_case: client_port, tick_time).
	Conf map[string]string `json:"conf,omitempty"`
}

// ServerID is the member's id (myid) from its configuration: the top byte
// of every session id it creates. ok is false when conf and the
// AdminServer's configuration were not read.
func (m *Member) ServerID() (id int64, ok bool) {
	for _, key := range []string{"serverId", "server_id"} {
		if v, err := strconv.ParseInt(m.Conf[key], 10, 64); err == nil {
			return v, true
		}
	}
	return 0, false
}

// Serving reports whether the member serves clients.
func (m *Member) Serving() bool {
	switch m.Mode {
	case ModeNotServing, ModeUnreachable, "":
		return false
	}
	return true
}

// Refusal is a four-letter word a member would not run because its
// 4lw.commands.whitelist leaves it out.
type Refusal struct {
	Member  string `json:"member"`
	Command string `json:"command"`
	// Missing says what zkview therefore does not know, or where it took
	// the same information from instead.
	Missing string `json:"missing"`
}

// String reads "wchc refused on zk2:2181: watches cannot be confirmed;
// add it to 4lw.commands.whitelist".
func (r Refusal) String() string {
	return fmt.Sprintf("%s refused on %s: %s; add it to 4lw.commands.whitelist", r.Command, r.Member, r.Missing)
}

// Problem is a request that failed other than by a refusal: a member
// unreachable or timing out, an answer zkview could not read, an
// AdminServer error.
type Problem struct {
	Member  string `json:"member"`
	Command string `json:"command"` // "srvr", …; "admin monitor" for the AdminServer
	Err     error  `json:"-"`
}

// String reads "cons on zk2:2181: no answer within 5s: …".
func (p Problem) String() string { return fmt.Sprintf("%s on %s: %v", p.Command, p.Member, p.Err) }

// MarshalJSON adds the error's text.
func (p Problem) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Member  string `json:"member"`
		Command string `json:"command"`
		Error   string `json:"error"`
	}{p.Member, p.Command, p.Err.Error()})
}

// Snapshot is what the members of an ensemble said, at At.
type Snapshot struct {
	At time.Time `json:"at"`
	// Chroot is the connect string's chroot, "" for none: Sessions and
	// Tables speak paths under it.
	Chroot string `json:"chroot,omitempty"`
	// Members are in the connect string's order.
	Members []Member `json:"members"`
	// Sessions combines every member's tables, by session id.
	Sessions []Session `json:"sessions"`
	Refused  []Refusal `json:"refused"`
	Problems []Problem `json:"problems"`

	touch touchRecord // what Options.Touch did
}

// Leader returns the leader (or the standalone server), nil when no
// member says it leads.
func (in *Snapshot) Leader() *Member {
	for i := range in.Members {
		if m := &in.Members[i]; m.Mode == ModeLeader || m.Mode == ModeStandalone {
			return m
		}
	}
	return nil
}

// Member returns the member with the address, nil when none.
func (in *Snapshot) Member(addr string) *Member {
	for i := range in.Members {
		if in.Members[i].Addr == addr {
			return &in.Members[i]
		}
	}
	return nil
}

// Session returns the session with the id, nil when none.
func (in *Snapshot) Session(id int64) *Session {
	i := sort.Search(len(in.Sessions), func(i int) bool { return in.Sessions[i].ID >= id })
	if i < len(in.Sessions) && in.Sessions[i].ID == id {
		return &in.Sessions[i]
	}
	return nil
}

// DefaultTimeout bounds each request to a member when Options.Timeout is
// zero: ZooKeeper answers a four-letter word or an AdminServer command in
// milliseconds, so a member silent this long is frozen, overloaded or cut
// off, and is named as such rather than waited for.
const DefaultTimeout = 2 * time.Second

// Options tunes Ask.
type Options struct {
	// Timeout bounds each request to a member, connect included (default
	// DefaultTimeout). A member that does not answer costs one timeout,
	// in parallel with the others: it is asked nothing more.
	Timeout time.Duration
	// AdminURLs are members' AdminServers, "http://zk1:8080/commands" (a
	// URL without a path gets /commands), in any order: each is matched to
	// the member it says it is (its client port, and its host when several
	// members share the port). A member's tables come from its AdminServer,
	// which ignores 4lw.commands.whitelist; four-letter words fill only what
	// the AdminServer did not answer.
	AdminURLs []string
	// AdminPort, when positive, is where an AdminServer is looked for on a
	// member that refuses the four-letter words of the tables and has none
	// in AdminURLs: http://<member host>:AdminPort/commands (8080 is
	// ZooKeeper's default).
	AdminPort int
	// TLS, when set, is how the members' client ports are spoken to (the
	// four-letter words on a secure port), and the AdminServers over
	// https: the same CA and client certificate. A member's AdminServer is
	// then looked for over https.
	TLS *tls.Config
	// HTTPClient asks the AdminServer (default: http.DefaultTransport).
	HTTPClient *http.Client
	// Dial, when set, opens the four-letter words' connections instead of
	// a TCP (or TLS) dial to the member: an in-process server's pipe.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Touch, when set, makes a request on the caller's own ZooKeeper
	// sessions just before the members are asked, and returns their ids:
	// the member each is connected to then has an answer from a moment ago
	// among its connections, which Session.LastHeard measures the others'
	// silence against (see liveness.go).
	Touch func(ctx context.Context) (sessions []int64)
}

// Ask asks every member of servers (host:port, as a connect string
// lists them) what it knows: srvr, mntr, cons, wchc, wchp, dump and conf,
// all members and words at once, each request bounded by opts.Timeout. A
// member that answers neither srvr nor its AdminServer is marked
// unreachable and asked nothing more (see reach.go); MemberNotes names
// it. A refused word is recorded in Refused with what is therefore
// missing, a failed one in Problems, and the rest goes on. chroot ("" or
// "/app") maps server paths to the user's in Sessions and Tables. The
// error is nil unless no member answered at all.
//
// Connections, watches and their sessions are per member (a session's
// watches live on the member it is connected to); ephemerals are in every
// member's dump. Watch tables hold data watches only (getData, exists):
// ZooKeeper 3.8's wchc, wchp and AdminServer list no child watches.
func Ask(ctx context.Context, target connstr.ConnectString, opts Options) (*Snapshot, error) {
	servers, chroot := target.Servers, target.Chroot
	if len(servers) == 0 {
		return nil, errors.New("introspect: no servers")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
		if opts.TLS != nil {
			opts.HTTPClient.Transport = &http.Transport{TLSClientConfig: opts.TLS}
		}
	}
	in := &Snapshot{At: time.Now(), Chroot: strings.TrimSuffix(chroot, "/"), Refused: []Refusal{}, Problems: []Problem{}}
	probes := make([]*memberProbe, len(servers))
	for i, addr := range servers {
		probes[i] = &memberProbe{member: Member{Addr: addr}, timeout: opts.Timeout, opts: opts}
	}
	in.Problems = append(in.Problems, reach(ctx, probes, servers, opts)...)
	// zkx's own sessions answered a moment before the tables are asked:
	// their members' freshest answers are then recent (liveness.go).
	if opts.Touch != nil {
		tctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		in.touch.sessions = opts.Touch(tctx)
		in.touch.at = time.Now()
		cancel()
	}
	var wg sync.WaitGroup
	for _, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.run(ctx)
		}()
	}
	wg.Wait()
	answered := false
	for _, p := range probes {
		if p.member.Mode != ModeUnreachable {
			answered = true
		}
		in.Members = append(in.Members, p.member)
		in.Problems = append(in.Problems, p.problems...)
	}
	for _, p := range probes {
		for _, cmd := range p.refused {
			in.Refused = append(in.Refused, Refusal{Member: p.member.Addr, Command: cmd, Missing: missingFor(cmd, &p.member, in)})
		}
	}
	if !answered {
		errs := make([]error, 0, len(probes))
		for _, p := range probes {
			errs = append(errs, fmt.Errorf("%s: %w", p.member.Addr, p.greeting.err))
		}
		return nil, fmt.Errorf("no member of %s answered: %w", strings.Join(servers, ","), errors.Join(errs...))
	}
	in.Sessions = buildSessions(in)
	return in, nil
}
