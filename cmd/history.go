package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// historyJSON is one recipe of zkx history -o json.
type historyJSON struct {
	Path   string `json:"path"`
	Recipe string `json:"recipe"`
	Format string `json:"format"`
	System string `json:"system,omitempty"`
	Role   string `json:"role,omitempty"`
	// Holdings for a lock, Leaders for an election, Items for a queue.
	Holdings []holdingJSON `json:"holdings,omitempty"`
	Leaders  []holdingJSON `json:"leaders,omitempty"`
	Items    []itemJSON    `json:"items,omitempty"`
}

type holdingJSON struct {
	Node           string `json:"node"`
	Session        string `json:"session"`
	Kind           string `json:"kind,omitempty"`
	From           string `json:"from"`
	FromZxid       string `json:"from_zxid,omitempty"`
	To             string `json:"to,omitempty"`
	ToZxid         string `json:"to_zxid,omitempty"`
	WaitedMs       *int64 `json:"waited_ms,omitempty"`
	HeldMs         int64  `json:"held_ms"`
	Ended          string `json:"ended"`
	DeletedBy      string `json:"deleted_by,omitempty"`
	HeldBeforeLogs bool   `json:"held_before_logs,omitempty"`
	// Audit says who created the node and who ended the holding (--audit).
	Audit *holdingAuditJSON `json:"audit,omitempty"`
}

type holdingAuditJSON struct {
	Created *whoJSON `json:"created,omitempty"`
	Ended   *whoJSON `json:"ended,omitempty"`
}

type itemAuditJSON struct {
	Put   *whoJSON `json:"put,omitempty"`
	Taken *whoJSON `json:"taken,omitempty"`
}

type itemJSON struct {
	Node          string `json:"node"`
	Data          string `json:"data,omitempty"`
	PutBy         string `json:"put_by,omitempty"`
	PutAt         string `json:"put_at"`
	PutZxid       string `json:"put_zxid,omitempty"`
	PutBeforeLogs bool   `json:"put_before_logs,omitempty"`
	TakenBy       string `json:"taken_by,omitempty"`
	TakenAt       string `json:"taken_at,omitempty"`
	TakenZxid     string `json:"taken_zxid,omitempty"`
	// Audit says who put the item and who took it (--audit).
	Audit *itemAuditJSON `json:"audit,omitempty"`
}

func jsonTime(t time.Time) string { return t.UTC().Format(statMillisFormat) }

// zxidOrNone is a zxid in hex, "" (left out) for none.
func zxidOrNone(z int64) string {
	if z == 0 {
		return ""
	}
	return display.Hex(z)
}

func holdingsJSON(recipe string, hs []forensics.Holding, ix *forensics.AuditIndex) []holdingJSON {
	var out []holdingJSON
	for _, h := range hs {
		j := holdingJSON{Node: h.Node, Session: h.Session, Kind: h.Kind, From: jsonTime(h.From), FromZxid: zxidOrNone(h.FromZxid),
			WaitedMs: h.WaitedMs, HeldMs: h.HeldMs, Ended: h.Ended, DeletedBy: h.DeletedBy, HeldBeforeLogs: h.HeldBeforeLogs}
		if h.To != nil {
			j.To, j.ToZxid = jsonTime(*h.To), display.Hex(h.ToZxid)
		}
		if ix != nil {
			created, ended := ix.Holding(recipe, h)
			j.Audit = &holdingAuditJSON{Created: describeWho(created), Ended: describeWho(ended)}
		}
		out = append(out, j)
	}
	return out
}

// describeHistory is a recipe's history in JSON, with who did what when
// ix is not nil.
func describeHistory(h forensics.History, ix *forensics.AuditIndex) historyJSON {
	j := historyJSON{Path: h.Path, Recipe: h.Recipe, Format: h.Format, System: h.System, Role: h.Role,
		Holdings: holdingsJSON(h.Path, h.Holdings, ix), Leaders: holdingsJSON(h.Path, h.Leaders, ix)}
	for _, it := range h.Items {
		ij := itemJSON{Node: it.Node, Data: it.Data, PutBy: it.PutBy, PutAt: jsonTime(it.PutAt), PutZxid: zxidOrNone(it.PutZxid),
			PutBeforeLogs: it.PutBeforeLogs, TakenBy: it.TakenBy}
		if it.TakenAt != nil {
			ij.TakenAt, ij.TakenZxid = jsonTime(*it.TakenAt), display.Hex(it.TakenZxid)
		}
		if ix != nil {
			put, taken := ix.Item(h.Path, it)
			ij.Audit = &itemAuditJSON{Put: describeWho(put), Taken: describeWho(taken)}
		}
		j.Items = append(j.Items, ij)
	}
	return j
}

type historyFlags struct {
	output, dataDir, since, until string
	audit                         auditFlags
	report                        bool
}

func newHistoryCommand() *cobra.Command {
	var f historyFlags
	cmd := &cobra.Command{
		Use:   "history PATH --data-dir DIR",
		Short: "Tell who held a lock, led an election or used a queue, from ZooKeeper's files",
		Long: `history replays a ZooKeeper data directory — its oldest readable snapshot, then
every transaction logged after it — and tells the story of each recipe at or
under PATH that zkx recognises (the layouts of zkx locks / queues / elections:
Curator, Kazoo, ZooKeeper's recipes, go-zookeeper, zkx, one ephemeral node as a
lock, Kafka's /controller …), as recognised after every transaction that
touched it.

For a lock (and an election's leaders): each holding in turn, its node and
session, from and to (the times of the transactions that began and ended it),
how long it waited (from its node's creation) and held, and how it ended:
  released          its own session deleted its node
  session-closed    its session's client closed the session
  session-expired   the server closed the session: a closeSession with cxid 0,
                    which only the server's session expirer writes
                    (ZooKeeperServer.expire); a client's close carries its
                    request's xid
  deleted-by-other  another session deleted its node (a force-release):
                    deleted_by names it
  held              still held when the logs end (held_ms runs to the last
                    logged transaction)
  superseded        its node stayed but the recipe's rule no longer let it hold
A holding that began before the snapshot the history starts from says so: its
from is its node's creation. For a queue: each item, who put it and when, who
took it and when. Sessions are ids: client addresses are not on disk — but
ZooKeeper's audit log names them: with --audit FILE|DIR (see zkx audit), each
holding says who created its node and who ended it (the user and address of
the audit event of the same session, operation and node within 10 s, else the
session's client from its first audited operation; the server itself for an
expiry's or a close's removal of the node), each item who put and took it.

--since and --until keep what overlaps them: a zxid (0x1f) or a time (RFC 3339,
"2006-01-02 15:04:05", or a time of day "02:47" on the day the logs begin, in
local time).

JSON (-o json) is an array, one object per recipe: path, recipe (mutex, rwlock,
semaphore, election, queue), format, system and role when it belongs to a known
system; holdings (locks) or leaders (elections), each with node, session, kind
(read, write, lease), from, from_zxid, to, to_zxid, waited_ms, held_ms, ended,
deleted_by, held_before_logs, audit {created, ended}; items (queues), each
with node, data, put_by, put_at, put_zxid, put_before_logs, taken_by, taken_at,
taken_zxid, audit {put, taken}. Times are RFC 3339 UTC with milliseconds.
docs/json.md has the whole contract.

--report writes a one-page incident report in Markdown instead: the timeline
of the recipes at PATH (holders, waiters, expiries, force-deletes, with who
when --audit says), the changes to the tree under PATH in the window, and the
commands that reproduce each part — to paste into the incident's ticket.`,
		Example: `  zkx history /app/locks/billing --data-dir /var/lib/zookeeper
  zkx history /app --data-dir /var/lib/zookeeper --since 02:00 --until 03:00
  zkx history /controller --data-dir /var/lib/zookeeper -o json | jq '.[].holdings[] | select(.ended != "released")'
  zkx history /app/locks/billing --data-dir /var/lib/zookeeper --audit /var/log/zookeeper
  zkx history /app/locks/billing --data-dir /var/lib/zookeeper --audit /var/log/zookeeper --since 02:00 --report > incident.md`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dataDir, "data-dir", "", "ZooKeeper's dataDir (or its version-2 folder) to read")
	fl.StringVarP(&f.output, "output", "o", "table", "output format: table or json")
	fl.StringVar(&f.since, "since", "", "only what went on from this moment: a zxid (0x1f) or a time")
	fl.StringVar(&f.until, "until", "", "only what went on up to this moment: a zxid (0x1f) or a time")
	fl.BoolVar(&f.report, "report", false, "write a one-page incident report in Markdown: timeline, tree changes, the commands behind them")
	f.audit.register(fl)
	cmd.MarkFlagRequired("data-dir")
	return cmd
}

func runHistory(cmd *cobra.Command, path string, f historyFlags) error {
	format, err := cliout.ParseFormat(f.output)
	if err != nil {
		return err
	}
	path, err = checkPath(path)
	if err != nil {
		return err
	}
	arch, err := forensics.OpenArchive(f.dataDir)
	if err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	for _, skipped := range arch.Dir.Skipped {
		warnSkipped(cmd)(skipped)
	}
	var opts forensics.HistoryOptions
	if f.since != "" || f.until != "" {
		var base time.Time
		if ms, ok := arch.FirstTime(); ok {
			base = time.UnixMilli(ms)
		}
		if opts.Since, err = forensics.ParseMoment(f.since, time.Local, base); err != nil {
			return fmt.Errorf("--since: %w", err)
		}
		if opts.Until, err = forensics.ParseMoment(f.until, time.Local, base); err != nil {
			return fmt.Errorf("--until: %w", err)
		}
	}
	// The audit log is read while the logs are replayed: on two cores
	// the join costs little more than the longer of the two.
	type audited struct {
		ix  *forensics.AuditIndex
		err error
	}
	auditDone := make(chan audited, 1)
	if f.audit.given() {
		go func() {
			ix, err := f.audit.index(cmd.ErrOrStderr(), forensics.AuditKeep{Node: func(znode []byte) bool { return underPath(znode, path) }})
			auditDone <- audited{ix, err}
		}()
	} else {
		auditDone <- audited{}
	}
	res, err := forensics.Histories(cmd.Context(), arch, path, opts)
	a := <-auditDone
	if err != nil {
		return err
	}
	if a.err != nil {
		return a.err
	}
	ix := a.ix
	for _, p := range res.Problems.List {
		fmt.Fprintln(cmd.ErrOrStderr(), "zkx history:", p)
	}
	out := cmd.OutOrStdout()
	switch {
	case f.report:
		if err := writeHistoryReport(cmd, out, arch, path, f, opts, res, ix); err != nil {
			return err
		}
	case format == cliout.JSON:
		all := []historyJSON{}
		for _, h := range res.Recipes {
			all = append(all, describeHistory(h, ix))
		}
		if err := cliout.WriteJSON(out, all); err != nil {
			return err
		}
	default:
		if err := writeHistoryTable(out, res, ix); err != nil {
			return err
		}
	}
	if n := res.Problems.Count(); n > 0 {
		return &partialError{fmt.Errorf("%s read past in %s (reported above)", plural(n, "problem"), f.dataDir)}
	}
	return nil
}

func writeHistoryTable(w io.Writer, res forensics.HistoryResult, ix *forensics.AuditIndex) error {
	st := cliout.NewStyles(w)
	fmt.Fprintf(w, "%s %s, replayed to zxid %s (%s)\n", st.Dim("from"), res.Start, display.Hex(res.EndZxid),
		res.EndTime.Local().Format("2006-01-02 15:04:05.000"))
	if len(res.Recipes) == 0 {
		fmt.Fprintln(w, "no lock, election or queue was seen there")
		return nil
	}
	for _, h := range res.Recipes {
		kind := h.Recipe + " (" + h.Format
		if h.System != "" {
			kind += ", " + h.System + " " + h.Role
		}
		fmt.Fprintf(w, "\n%s  %s)\n", st.Header(display.Line(h.Path)), kind)
		tw := cliout.NewTable(w)
		for _, x := range append(append([]forensics.Holding{}, h.Holdings...), h.Leaders...) {
			tw.Row("  "+span(x.From, x.To), x.Session, holdingStory(x, h.Leaders != nil), st.Dim(display.Line(x.Node)))
			if ix != nil {
				created, ended := ix.Holding(h.Path, x)
				tw.Row(st.Dim("    " + cliout.Clean(holdingWho(x, created, ended))))
			}
		}
		for _, it := range h.Items {
			tw.Row("  "+span(it.PutAt, it.TakenAt), orDash(st, it.PutBy), itemStory(it), st.Dim(display.Line(it.Node)))
			if ix != nil {
				put, taken := ix.Item(h.Path, it)
				tw.Row(st.Dim("    " + cliout.Clean(itemWho(it, put, taken))))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// span is "from → to" in local time, the day once.
func span(from time.Time, to *time.Time) string {
	s := from.Local().Format("2006-01-02 15:04:05.000") + " → "
	if to == nil {
		return s + "…"
	}
	if to.Local().Format("20060102") == from.Local().Format("20060102") {
		return s + to.Local().Format("15:04:05.000")
	}
	return s + to.Local().Format("2006-01-02 15:04:05.000")
}

// millis shows a holding's length: milliseconds count in a handoff.
func millis(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.3f s", float64(ms)/1000)
	}
	return display.Duration(time.Duration(ms) * time.Millisecond)
}

// holdingStory tells a holding in one line.
func holdingStory(h forensics.Holding, leader bool) string {
	verb := "held it"
	if leader {
		verb = "led"
	}
	if h.Kind == "read" || h.Kind == "write" {
		verb = "held it (" + h.Kind + ")"
	}
	s := verb + " " + millis(h.HeldMs)
	switch {
	case h.HeldBeforeLogs:
		s = verb + " from before the logs begin (its node from then), " + millis(h.HeldMs)
	case h.WaitedMs != nil && *h.WaitedMs > 0:
		s += " after waiting " + millis(*h.WaitedMs)
	}
	switch h.Ended {
	case forensics.EndedReleased:
		return s + ", then released it"
	case forensics.EndedSessionClosed:
		return s + ", then its client closed its session"
	case forensics.EndedSessionExpired:
		return s + ", until its session expired (closed by the server)"
	case forensics.EndedDeletedByOther:
		return s + ", until session " + h.DeletedBy + " deleted its node (a force-release)"
	case forensics.EndedHeld:
		return s + " so far: still held when the logs end"
	case forensics.EndedSuperseded:
		return s + ", until the recipe no longer let it hold (its node stayed)"
	}
	return s
}

// itemStory tells a queue item in one line.
func itemStory(it forensics.Item) string {
	s := "put " + fmt.Sprintf("%q", it.Data)
	if it.PutBeforeLogs {
		s += " before the logs begin"
	}
	if it.TakenBy != "" {
		return s + ", taken by " + it.TakenBy
	}
	return s + ", still there when the logs end"
}
