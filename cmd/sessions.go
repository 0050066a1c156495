package cmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// Where a session of `zkx sessions` is known from.
const (
	sessionFromTables     = "tables"     // the servers' session tables
	sessionFromEphemerals = "ephemerals" // only its ephemeral nodes, read from the tree
)

// sessionJSON is one session as `zkx sessions -o json` prints it.
type sessionJSON struct {
	Session   string `json:"session"`              // the id as ZooKeeper prints it, 0x…
	Client    string `json:"client"`               // "ip:port"; "" when no server lists a connection
	Server    string `json:"server"`               // the member it is connected to; "" when unknown
	CreatedBy string `json:"created_by,omitempty"` // the member that created it (its id's top byte), when known
	// Connected: a member lists a connection for it (true), or every
	// member's list was read and none does (false); absent when not known.
	Connected *bool `json:"connected,omitempty"`
	TimeoutMs int64 `json:"timeout_ms"` // 0 when not known
	// LastHeardMs is how long ago its member last answered it (pings
	// count); absent when not known. LastHeardAtLeast: zkx had no session
	// on that member, so the silence may be longer.
	LastHeardMs      *int64 `json:"last_heard_ms,omitempty"`
	LastHeardAtLeast bool   `json:"last_heard_at_least,omitempty"`
	// Silent: not heard from for more than a third of its timeout.
	Silent bool `json:"silent,omitempty"`
	// ExpiresBy: when the servers expire it at the latest if its client
	// stays silent (RFC 3339, UTC, whole seconds); ExpiresByAbout: only
	// about, the servers' tick being unknown. Absent when not known.
	ExpiresBy      string `json:"expires_by,omitempty"`
	ExpiresByAbout bool   `json:"expires_by_about,omitempty"`
	// Ephemerals are its ephemeral nodes (paths under the chroot), sorted.
	Ephemerals []string `json:"ephemerals"`
	// Watches are the paths (under the chroot) it holds data watches on;
	// WatchCount counts them all, outside the chroot too.
	Watches     []string `json:"watches"`
	WatchCount  int      `json:"watch_count"`
	LastOp      string   `json:"last_op,omitempty"`
	Established string   `json:"established,omitempty"` // RFC 3339, UTC
	Expires     string   `json:"expires,omitempty"`     // RFC 3339, UTC; from the leader's dump
	// From is where the session is known from: tables, or ephemerals when
	// the servers refused their tables and only its ephemeral nodes tell.
	From string `json:"from"`
	// Ensemble is what should be said of the members (ensembleHelp), the
	// same on every session; absent when nothing.
	Ensemble []introspect.MemberNote `json:"ensemble,omitempty"`
}

func describeSession(s introspect.Session, tables recognize.ServerTables, now time.Time) sessionJSON {
	j := sessionJSON{Session: s.Hex, Client: s.Client, Server: s.Server, CreatedBy: s.CreatedBy,
		TimeoutMs: s.Timeout.Milliseconds(), Ephemerals: nonNil(s.Ephemerals), Watches: nonNil(s.Watches),
		WatchCount: s.WatchCount, LastOp: s.LastOp, From: sessionFromTables}
	if conn, known := tables.Connected(s.ID); known {
		j.Connected = &conn
	}
	if l, ok := tables.LastHeard(s.ID); ok {
		ms := l.Silence(now).Milliseconds()
		j.LastHeardMs, j.LastHeardAtLeast, j.Silent = &ms, l.AtLeast, l.Silent(now)
		if !l.ExpiresBy.IsZero() {
			j.ExpiresBy, j.ExpiresByAbout = l.ExpiresBy.UTC().Format(time.RFC3339), l.ExpiresByApprox
		}
	}
	if !s.Established.IsZero() {
		j.Established = s.Established.UTC().Format(statMillisFormat)
	}
	if !s.Expires.IsZero() {
		j.Expires = s.Expires.UTC().Format(statMillisFormat)
	}
	return j
}

func newSessionsCommand(g *globalOptions) *cobra.Command {
	var flags readFlags
	cmd := &cobra.Command{
		Use:   "sessions [SESSION]",
		Short: "List the ensemble's sessions, or tell one's whole story: what it holds, waits for, leads",
		Long: `sessions asks every server of --server what it knows of the sessions — the
four-letter words cons (connections), dump (ephemeral nodes, expiry) and
wchc / wchp (watches), or the members' AdminServers with --admin-url — and
prints one row per session: its id, client address, the server it is
connected to, how long ago that server last answered it (HEARD; a client
pings at least every third of its timeout, so a live one is never quieter:
past that it is marked SILENT), its timeout, its ephemeral nodes and its
watch count. No ZooKeeper session is opened for this unless the tables are
refused, so zkx itself is not listed.

When a server last answered a session is read from cons's lresp or the
AdminServer's last_response_time, which are that server's monotonic clock:
zkx compares them only with the same server's freshest answer, never with
its own clock or another server's, so clock skew does not enter. Without a
session of zkx's on that server the freshest answer may be a little old,
and the silence is then at least what is shown (≥).

A server that refuses a word (4lw.commands.whitelist) or does not answer is
warned about on stderr, and what it would have told is left empty. When no
server lists ephemeral nodes (dump refused everywhere), zkx reads the tree
instead and lists the sessions that own ephemeral nodes, with their nodes;
their clients, connections and watches are then unknown, and stderr says how
to let zkx read them.

JSON (-o json) is an array, one object per session, sorted by id: session
(0x…), client ("ip:port", "" when unknown), server, created_by (when known),
connected (absent when not known), timeout_ms (0 when not known),
last_heard_ms (how long ago its server last answered it; absent when not
known), last_heard_at_least (the silence may be longer), silent (not heard
from for more than a third of its timeout), expires_by (when the servers
expire it at the latest if its client stays silent: its last answer, its
timeout and two of the servers' ticks, rounded up to the second; RFC 3339),
expires_by_about (the tick is not known: only about), ephemerals (paths
under the chroot), watches (paths under the chroot with a data watch),
watch_count (every data watch, outside the chroot too), last_op,
established and expires (RFC 3339, when known: the leader's own expiry
bucket, from its dump), from (tables, or ephemerals when only the tree told
of the session) and ensemble.

With SESSION (its id, 0x… as ZooKeeper prints it), sessions tells that
session's whole story: its facts as above, then, from the recipes zkx
recognises (found from the ephemeral nodes the servers list, or by a walk
of the tree when they do not), what it holds (locks, leases), what it leads,
where it waits and behind whom ("waits  /app/l2 (mutex, curator): waiter 1
lock-0000000001 — curator lock-0000000000 (session 0x…) holds"), the
elections it stands in, the groups it is a member of, the queue items it
has taken, the deadlocks it is in (a cycle of sessions across locks, each
waiting for what the next holds), and its other ephemeral nodes. JSON: one
object, the session's fields as above and holds, waits, members ([{path,
recipe, role, position, contender, behind}]: contender as zkx locks prints
it, behind the contenders it waits for up to the one holding), items
([{queue, item, mark}]), deadlocks ([string]) and other_ephemerals.

` + ensembleHelp,
		Example: `  zkx sessions
  zkx sessions --server zk1:2181,zk2:2181,zk3:2181
  zkx sessions -o json | jq -r '.[] | select(.silent) | "\(.session) \(.client) \(.last_heard_ms)"'
  zkx sessions 0x10000343b9a0027`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var session int64
			if len(args) == 1 {
				id, err := parseSessionID(args[0])
				if err != nil {
					return err
				}
				session = id
			}
			format, err := cliout.ParseFormat(flags.output)
			if err != nil {
				return err
			}
			if flags.timeout <= 0 {
				return fmt.Errorf("--timeout must be positive")
			}
			cs, err := g.connect()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			in, err := g.introspect(ctx, cmd.ErrOrStderr(), cs)
			if err != nil {
				return err
			}
			now := time.Now()
			tables := in.Tables()
			rows := make([]sessionJSON, 0, len(in.Sessions))
			for _, s := range in.Sessions {
				rows = append(rows, describeSession(s, tables, now))
			}
			if _, listed := in.Ephemerals(); !listed {
				rows, err = g.sessionsFromTree(ctx, cmd.ErrOrStderr(), in, rows)
				if err != nil {
					return err
				}
			}
			if len(args) == 1 {
				return g.sessionStory(ctx, cmd, in, rows, session, format)
			}
			out := cmd.OutOrStdout()
			if format == cliout.JSON {
				ensemble := in.MemberNotes(introspect.ReadThrough{})
				for i := range rows {
					rows[i].Ensemble = ensemble
				}
				return cliout.WriteJSON(out, rows)
			}
			return writeSessions(out, rows)
		},
	}
	flags.register(cmd)
	return cmd
}

// sessionsFromTree adds the sessions that own ephemeral nodes, read from
// the tree, when no server would list ephemerals (dump refused): those the
// tables did not list, and the nodes of those they did. It says on stderr
// what is unknown and how to let zkx read it.
func (g *globalOptions) sessionsFromTree(ctx context.Context, stderr io.Writer, in *introspect.Snapshot, rows []sessionJSON) ([]sessionJSON, error) {
	c, err := g.dialBulk(ctx, 4, true)
	if err != nil {
		return nil, fmt.Errorf("the servers list no ephemeral nodes (dump refused), and reading the tree instead failed: %w", err)
	}
	defer c.Close()
	owners, nodes, err := zkview.EphemeralOwners(ctx, c, "/")
	if err != nil && len(owners) == 0 {
		return nil, fmt.Errorf("the servers list no ephemeral nodes (dump refused), and reading the tree instead failed after %d nodes: %w", nodes, err)
	}
	byHex := map[string]int{}
	for i, r := range rows {
		byHex[r.Session] = i
	}
	added := 0
	for id, paths := range owners {
		hex := display.Hex(id)
		if i, ok := byHex[hex]; ok {
			rows[i].Ephemerals = paths
			continue
		}
		rows = append(rows, sessionJSON{Session: hex, Ephemerals: paths, Watches: []string{}, From: sessionFromEphemerals})
		added++
	}
	sort.Slice(rows, func(i, j int) bool {
		a, _ := strconv.ParseUint(strings.TrimPrefix(rows[i].Session, "0x"), 16, 64)
		b, _ := strconv.ParseUint(strings.TrimPrefix(rows[j].Session, "0x"), 16, 64)
		return a < b
	})
	unknown := "their clients, connections, liveness and watches are unknown"
	if remedy := in.TablesRemedy("pass --admin-url http://HOST:PORT/commands,… (one per member; --admin-port finds them on another port)"); remedy != "" {
		unknown += ": " + remedy
	}
	warnf(stderr, "the servers list no sessions' ephemeral nodes (dump refused); %d sessions are known from the ephemeral nodes of the tree (%d nodes read), %s", added, nodes, unknown)
	if err != nil {
		warnf(stderr, "the read of the tree ended early: %v", err)
	}
	return rows, nil
}

// sessionEphemeralsShown is how many ephemeral nodes a table row names.
const sessionEphemeralsShown = 2

// writeSessions prints one row per session. A session no member lists a
// connection for is "(no connection)" only when every member's connection
// list was read; otherwise its member may simply not have said ("?").
func writeSessions(out io.Writer, rows []sessionJSON) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("SESSION"), st.Header("CLIENT"), st.Header("SERVER"), st.Header("HEARD"), st.Header("TIMEOUT"), st.Header("WATCHES"), st.Header("EPHEMERALS"))
	for _, s := range rows {
		client := cliout.Clean(s.Client)
		if client == "" {
			client = "?"
			if s.Connected != nil && !*s.Connected {
				client = st.Warn("(no connection)")
			}
		}
		heard := "?"
		if s.LastHeardMs != nil {
			heard = heldFor(*s.LastHeardMs) + " ago"
			if s.LastHeardAtLeast {
				heard = "≥" + heard
			}
			if s.Silent {
				heard = st.Bad("SILENT " + heard)
			}
		}
		timeout, watches := "?", "?"
		if s.TimeoutMs > 0 {
			timeout = (time.Duration(s.TimeoutMs) * time.Millisecond).String()
		}
		if s.From == sessionFromTables {
			watches = strconv.Itoa(s.WatchCount)
		}
		eph := strconv.Itoa(len(s.Ephemerals))
		if n := len(s.Ephemerals); n > 0 {
			shown := make([]string, 0, sessionEphemeralsShown)
			for _, p := range s.Ephemerals[:min(n, sessionEphemeralsShown)] {
				shown = append(shown, cliout.Clean(p))
			}
			eph += ": " + strings.Join(shown, ", ")
			if n > sessionEphemeralsShown {
				eph += st.Dim(fmt.Sprintf(" … (%d more)", n-sessionEphemeralsShown))
			}
		}
		t.Row(s.Session, client, orDash(st, cliout.Clean(s.Server)), heard, timeout, watches, eph)
	}
	return t.Flush()
}

// parseSessionID reads a session id as ZooKeeper prints it: hexadecimal,
// 0x optional.
func parseSessionID(s string) (int64, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a session id (hexadecimal, as ZooKeeper prints it: 0x10000343b9a0027)", s)
	}
	return int64(id), nil
}

// sessionStoryJSON is what `zkx sessions SESSION -o json` prints.
type sessionStoryJSON struct {
	sessionJSON
	recognize.SessionStory
}

// sessionStory tells one session's story: its row, and what it does in
// the recipes recognised from the servers' ephemeral nodes (or a walk).
func (g *globalOptions) sessionStory(ctx context.Context, cmd *cobra.Command, in *introspect.Snapshot, rows []sessionJSON, id int64, format cliout.Format) error {
	hex := display.Hex(id)
	var row *sessionJSON
	for i := range rows {
		if rows[i].Session == hex {
			row = &rows[i]
		}
	}
	if row == nil {
		return fmt.Errorf("session %s is not in the servers' tables nor among the owners of ephemeral nodes: closed, expired, or on a member that did not answer", hex)
	}
	c, err := g.dialBulk(ctx, 4, true)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := recognize.ScanContended(ctx, c, "/", recognize.Options{Tables: in.Tables()}, in)
	var partial error
	switch {
	case err != nil && !res.Partial:
		return fmt.Errorf("recognising the recipes to tell what session %s does: %w", hex, err)
	case err != nil:
		partial = err
		warnf(cmd.ErrOrStderr(), "%v: what session %s does in the recipes not read is not told", err, hex)
	}
	deadlocks := recognize.MarkDeadlocks(res.Locks)
	story := recognize.StoryOf(&res, id, row.Ephemerals, deadlocks)
	out := cmd.OutOrStdout()
	if format == cliout.JSON {
		err = cliout.WriteJSON(out, sessionStoryJSON{sessionJSON: *row, SessionStory: story})
	} else {
		err = writeSessionStory(out, *row, story, time.Now())
	}
	if err != nil {
		return err
	}
	if partial != nil {
		return &partialError{partial}
	}
	return nil
}

// writeSessionStory prints a session's facts, then what it does, one
// line each in the presenter's words (as the explorer's session page).
func writeSessionStory(out io.Writer, row sessionJSON, story recognize.SessionStory, now time.Time) error {
	st := cliout.NewStyles(out)
	if err := writeSessions(out, []sessionJSON{row}); err != nil {
		return err
	}
	lines := present.SessionLines(story, now)
	if len(lines) == 0 {
		_, err := fmt.Fprintln(out, "\nIt holds, waits for and leads nothing zkx recognises, and owns no ephemeral node.")
		return err
	}
	fmt.Fprintln(out)
	for _, l := range lines {
		kind := fmt.Sprintf("%-*s", present.SessionKindWidth, l.Kind)
		if l.Alarm {
			kind = st.Bad(kind)
		}
		if _, err := fmt.Fprintf(out, "  %s  %s\n", kind, l.Text); err != nil {
			return err
		}
	}
	return nil
}
