package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// sessionJSON is one session as `zkx sessions -o json` prints it.
type sessionJSON struct {
	Session   string `json:"session"`              // the id as ZooKeeper prints it, 0x…
	Client    string `json:"client"`               // "ip:port"; "" when no server lists a connection
	Server    string `json:"server"`               // the member it is connected to; "" when unknown
	CreatedBy string `json:"created_by,omitempty"` // the member that created it (its id's top byte), when known
	Connected bool   `json:"connected"`            // a member lists a connection for it
	TimeoutMs int64  `json:"timeout_ms"`
	// Ephemerals are its ephemeral nodes (paths under the chroot), sorted.
	Ephemerals []string `json:"ephemerals"`
	// Watches are the paths (under the chroot) it holds data watches on;
	// WatchCount counts them all, outside the chroot too.
	Watches     []string `json:"watches"`
	WatchCount  int      `json:"watch_count"`
	LastOp      string   `json:"last_op,omitempty"`
	Established string   `json:"established,omitempty"` // RFC 3339, UTC
	Expires     string   `json:"expires,omitempty"`     // RFC 3339, UTC; from the leader's dump
}

func describeSession(s introspect.Session) sessionJSON {
	j := sessionJSON{Session: s.Hex, Client: s.Client, Server: s.Server, CreatedBy: s.CreatedBy, Connected: s.Connected,
		TimeoutMs: s.Timeout.Milliseconds(), Ephemerals: nonNil(s.Ephemerals), Watches: nonNil(s.Watches),
		WatchCount: s.WatchCount, LastOp: s.LastOp}
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
		Use:   "sessions",
		Short: "List the ensemble's sessions: clients, ephemerals, watches",
		Long: `sessions asks every server of --server what it knows of the sessions — the
four-letter words cons (connections), dump (ephemeral nodes, expiry) and
wchc / wchp (watches), or one member's AdminServer with --admin-url — and
prints one row per session: its id, client address, the server it is
connected to, its timeout, its ephemeral nodes and its watch count. No
ZooKeeper session is opened for this, so zkx itself is not listed.

A server that refuses a word (4lw.commands.whitelist) or does not answer is
warned about on stderr, and what it would have told is left empty. When no
server lists any session at all (cons and dump both refused), the command
fails.

JSON (-o json) is an array, one object per session, sorted by id: session
(0x…), client ("ip:port", "" when unknown), server, connected, timeout_ms,
ephemerals (paths under the chroot), watches (paths under the chroot with a
data watch), watch_count (every data watch, outside the chroot too),
last_op, established and expires (RFC 3339, when known).`,
		Example: `  zkx sessions
  zkx sessions --server zk1:2181,zk2:2181,zk3:2181
  zkx sessions -o json | jq -r '.[] | select(.ephemerals | length > 0) | .client'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			if !sessionsKnown(in) {
				return fmt.Errorf("no server of %s would list its sessions (cons and dump refused or failed): add them to 4lw.commands.whitelist, or pass --admin-url", cs)
			}
			out := cmd.OutOrStdout()
			if format == cliout.JSON {
				rows := make([]sessionJSON, len(in.Sessions))
				for i, s := range in.Sessions {
					rows[i] = describeSession(s)
				}
				return cliout.WriteJSON(out, rows)
			}
			return writeSessions(out, in.Sessions, in.Tables())
		},
	}
	flags.register(cmd)
	return cmd
}

// sessionsKnown reports whether any member listed its sessions.
func sessionsKnown(in *introspect.Snapshot) bool {
	for _, m := range in.Members {
		if m.Connections != nil || m.Dump != nil {
			return true
		}
	}
	return false
}

// sessionEphemeralsShown is how many ephemeral nodes a table row names.
const sessionEphemeralsShown = 2

// writeSessions prints one row per session. A session no member lists a
// connection for is "(no connection)" only when every member's connection
// list was read; otherwise its member may simply not have said ("?").
func writeSessions(out io.Writer, sessions []introspect.Session, tables recognize.ServerTables) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("SESSION"), st.Header("CLIENT"), st.Header("SERVER"), st.Header("TIMEOUT"), st.Header("WATCHES"), st.Header("EPHEMERALS"))
	for _, s := range sessions {
		client := cliout.Clean(s.Client)
		if client == "" {
			client = "?"
			if conn, known := tables.Connected(s.ID); known && !conn {
				client = st.Warn("(no connection)")
			}
		}
		timeout := "?"
		if s.Timeout > 0 {
			timeout = s.Timeout.Round(time.Millisecond).String()
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
		t.Row(s.Hex, client, orDash(st, cliout.Clean(s.Server)), timeout, strconv.Itoa(s.WatchCount), eph)
	}
	return t.Flush()
}
