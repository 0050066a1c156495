package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// writeLocks prints locks as a table, one row per lock, or with long one
// block per lock with every contender; warnings follow either way.
func writeLocks(out io.Writer, locks []recognize.Lock, tables recognize.ServerTables, long bool) error {
	if len(locks) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	if long {
		for i, l := range locks {
			title := fmt.Sprintf("%s  %s  %s  %s", st.Header(cliout.Clean(l.Path)), l.Recipe, l.Format, countHolders(l))
			if l.MaxLeases > 0 {
				title += fmt.Sprintf(", max %d leases", l.MaxLeases)
			}
			rows := make([]contenderRow, 0, len(l.Holders)+len(l.Waiters))
			for _, h := range l.Holders {
				rows = append(rows, contenderRow{role: "holder", c: h})
			}
			for _, w := range l.Waiters {
				rows = append(rows, contenderRow{role: "waiter", c: w})
			}
			if err := writeRecipeBlock(out, st, i > 0, title, rows, tables, l.Warnings); err != nil {
				return err
			}
		}
		return nil
	}
	t := cliout.NewTable(out)
	t.Row(st.Header("PATH"), st.Header("RECIPE"), st.Header("FORMAT"), st.Header("HOLDER"), st.Header("HELD"), st.Header("WAITERS"), st.Header("WARNINGS"))
	for _, l := range locks {
		holder, held := st.Dim("(none)"), "-"
		if len(l.Holders) > 0 {
			h := l.Holders[0]
			holder = who(h)
			if more := len(l.Holders) - 1; more > 0 {
				holder += fmt.Sprintf(" (+%d more)", more)
			}
			held = heldFor(h.HeldMs)
		}
		t.Row(cliout.Clean(l.Path), l.Recipe, l.Format, holder, held, strconv.Itoa(len(l.Waiters)), warnCount(st, l.Warnings))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	return writeWarnings(out, st, func(yield func(string, []string)) {
		for _, l := range locks {
			yield(l.Path, l.Warnings)
		}
	})
}

// writeElections prints elections as writeLocks prints locks.
func writeElections(out io.Writer, elections []recognize.Election, tables recognize.ServerTables, long bool) error {
	if len(elections) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	if long {
		for i, e := range elections {
			title := fmt.Sprintf("%s  election  %s  %s", st.Header(cliout.Clean(e.Path)), e.Format, plural(len(e.Candidates), "candidate"))
			rows := make([]contenderRow, 0, len(e.Candidates)+1)
			if e.Leader != nil {
				rows = append(rows, contenderRow{role: "leader", c: *e.Leader})
			}
			for _, c := range e.Candidates {
				rows = append(rows, contenderRow{role: "candidate", c: c})
			}
			if err := writeRecipeBlock(out, st, i > 0, title, rows, tables, e.Warnings); err != nil {
				return err
			}
		}
		return nil
	}
	t := cliout.NewTable(out)
	t.Row(st.Header("PATH"), st.Header("FORMAT"), st.Header("LEADER"), st.Header("LEADING"), st.Header("CANDIDATES"), st.Header("WARNINGS"))
	for _, e := range elections {
		leader, leading := st.Dim("(none)"), "-"
		if e.Leader != nil {
			leader, leading = who(*e.Leader), heldFor(e.Leader.HeldMs)
		}
		t.Row(cliout.Clean(e.Path), e.Format, leader, leading, strconv.Itoa(len(e.Candidates)), warnCount(st, e.Warnings))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	return writeWarnings(out, st, func(yield func(string, []string)) {
		for _, e := range elections {
			yield(e.Path, e.Warnings)
		}
	})
}

// queueFirstItems is how many items the queue table shows per queue, and
// queueItemWidth how much of each item's data.
const (
	queueFirstItems = 3
	queueItemWidth  = 24
)

// writeQueues prints queues, one row per queue with its first items, or
// with long every item read.
func writeQueues(out io.Writer, queues []recognize.Queue, long bool) error {
	if len(queues) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	if long {
		for i, q := range queues {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "%s  queue  %s  length %d\n", st.Header(cliout.Clean(q.Path)), q.Format, q.Length)
			t := cliout.NewTable(out)
			t.Row("  "+st.Header("#"), st.Header("NODE"), st.Header("PRIORITY"), st.Header("TAKEN"), st.Header("DATA"))
			for j, it := range q.Items {
				prio, taken := "-", ""
				if it.Priority != nil {
					prio = strconv.Itoa(*it.Priority)
				}
				if it.Taken {
					taken = "taken"
				}
				t.Row("  "+strconv.Itoa(j+1), cliout.Clean(it.Node), prio, taken, cliout.Clean(it.Data))
			}
			if err := t.Flush(); err != nil {
				return err
			}
			for _, w := range q.Warnings {
				fmt.Fprintf(out, "  %s %s\n", st.Warn("warning:"), cliout.Clean(w))
			}
		}
		return nil
	}
	t := cliout.NewTable(out)
	t.Row(st.Header("PATH"), st.Header("FORMAT"), st.Header("LENGTH"), st.Header("WARNINGS"), st.Header("FIRST ITEMS"))
	for _, q := range queues {
		var first []string
		for _, it := range q.Items[:min(len(q.Items), queueFirstItems)] {
			first = append(first, cliout.Clean(truncate(it.Data, queueItemWidth)))
		}
		items := strings.Join(first, " | ")
		if len(q.Items) == 0 {
			items = st.Dim("(empty)")
		} else if q.Length > len(first) {
			items += st.Dim(fmt.Sprintf(" … (%d more)", q.Length-len(first)))
		}
		t.Row(cliout.Clean(q.Path), q.Format, strconv.Itoa(q.Length), warnCount(st, q.Warnings), items)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	return writeWarnings(out, st, func(yield func(string, []string)) {
		for _, q := range queues {
			yield(q.Path, q.Warnings)
		}
	})
}

// contenderRow is one line of a recipe's block: a holder, leader, waiter
// or candidate.
type contenderRow struct {
	role string
	c    recognize.Contender
}

// writeRecipeBlock prints one recipe in the long view: a title, a row per
// contender, the wait chain when it is one line, and the warnings.
func writeRecipeBlock(out io.Writer, st cliout.Styles, gap bool, title string, rows []contenderRow, tables recognize.ServerTables, warnings []string) error {
	if gap {
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, title)
	t := cliout.NewTable(out)
	t.Row("  "+st.Header("ROLE"), st.Header("NODE"), st.Header("SESSION"), st.Header("CLIENT"), st.Header("CONNECTED"),
		st.Header("FOR"), st.Header("WAITS FOR"), st.Header("WATCH"), st.Header("DATA"))
	for _, r := range rows {
		c := r.c
		role := r.role
		switch {
		case c.Kind == "lease" && role == "holder":
			role = "lease"
		case c.Kind != "":
			role += " " + c.Kind
		}
		since, waitsFor, watch := heldFor(c.HeldMs), "", ""
		if role := r.role; role == "waiter" || role == "candidate" {
			since, waitsFor, watch = heldFor(c.WaitingMs), recognize.BareName(c.WaitsFor), c.Watch
		}
		if watch == recognize.WatchObserved {
			watch = st.Good(watch)
		}
		t.Row("  "+role, cliout.Clean(recognize.BareName(c.Node)), orDash(st, c.Session), orDash(st, cliout.Clean(c.ClientText())),
			connected(st, tables, c), since, cliout.Clean(waitsFor), watch, cliout.Clean(c.Data))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if chain := waitChain(rows); chain != "" {
		kind, line, _ := strings.Cut(chain, " ")
		fmt.Fprintf(out, "  %s %s\n", st.Dim(kind), cliout.Clean(line))
	}
	for _, w := range warnings {
		fmt.Fprintf(out, "  %s %s\n", st.Warn("warning:"), cliout.Clean(w))
	}
	return nil
}

// waitChain draws "holder ← waiter ← waiter" when each contender waits
// for the one before it (a mutex, an election); "" otherwise (readers
// sharing a lock, a semaphore's waiters), where the WAITS FOR column says
// it better.
func waitChain(rows []contenderRow) string {
	if len(rows) < 2 {
		return ""
	}
	if herd := herdLine(rows); herd != "" {
		return herd
	}
	names := []string{recognize.BareName(rows[0].c.Node)}
	for i := 1; i < len(rows); i++ {
		if rows[i].c.WaitsFor != rows[i-1].c.Node {
			return ""
		}
		names = append(names, recognize.BareName(rows[i].c.Node))
	}
	return "chain: " + strings.Join(names, " ← ")
}

// herdLine draws waiters with no node of their own, all watching the
// holder's node (an ephemeral-node lock): a herd, not a chain.
func herdLine(rows []contenderRow) string {
	var sessions []string
	for _, r := range rows[1:] {
		if r.c.Node != "" || r.c.WaitsFor != rows[0].c.Node {
			return ""
		}
		sessions = append(sessions, r.c.Session)
	}
	return fmt.Sprintf("herd: %s ⇐ %s (all watch it: every release wakes every one)",
		recognize.BareName(rows[0].c.Node), strings.Join(sessions, ", "))
}

// writeWarnings lists every recipe's warnings below a summary table.
func writeWarnings(out io.Writer, st cliout.Styles, each func(yield func(path string, warnings []string))) error {
	var b strings.Builder
	each(func(path string, warnings []string) {
		for _, w := range warnings {
			fmt.Fprintf(&b, "  %s: %s\n", cliout.Clean(path), cliout.Clean(w))
		}
	})
	if b.Len() == 0 {
		return nil
	}
	_, err := fmt.Fprintf(out, "\n%s\n%s", st.Warn("warnings:"), b.String())
	return err
}

// who names a contender in one cell: its node (short), session and client.
func who(c recognize.Contender) string {
	parts := []string{cliout.Clean(recognize.BareName(c.Node))}
	if c.Session != "" {
		parts = append(parts, c.Session)
	} else {
		parts = append(parts, "persistent")
	}
	if c.Client != "" {
		parts = append(parts, cliout.Clean(c.ClientText()))
	}
	return strings.Join(parts, " ")
}

// connected says whether the contender's session has a live connection:
// yes, NO (the servers list every connection and not this one), or ? when
// the servers would not say.
func connected(st cliout.Styles, tables recognize.ServerTables, c recognize.Contender) string {
	if c.SessionID == 0 {
		return st.Dim("-")
	}
	if tables == nil {
		return "?"
	}
	switch conn, known := tables.Connected(c.SessionID); {
	case !known:
		return "?"
	case conn:
		return st.Good("yes")
	default:
		return st.Warn("NO")
	}
}

// shortNode drops the random prefix of a protected node's name, which
// tells clients apart to their library but not to a reader:
// "_c_<uuid>-lock-0000000003" reads "lock-0000000003", "<32 hex>__lock__…"
// reads "__lock__…". Any directory part ("leases/…") is kept; sequence
// numbers are unique in a directory, so the short name still names one
// node. JSON output keeps the full names.
func countHolders(l recognize.Lock) string {
	return plural(len(l.Holders), "holder") + ", " + plural(len(l.Waiters), "waiter")
}

func warnCount(st cliout.Styles, warnings []string) string {
	if len(warnings) == 0 {
		return "0"
	}
	return st.Warn(strconv.Itoa(len(warnings)))
}

// heldFor shows a contender's held_ms or waiting_ms as a compact duration.
func heldFor(ms int64) string { return display.Duration(time.Duration(ms) * time.Millisecond) }
