package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// writeLocks prints locks as a table, one row per lock, or with long one
// block per lock with every contender; warnings follow either way. What it
// shows is what recognize computed: who holds, who waits for whom, since
// when, and what the servers said of each session.
func writeLocks(out io.Writer, locks []recognize.Lock, long bool) error {
	if len(locks) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	now := time.Now()
	if long {
		for i, l := range locks {
			title := st.Header(cliout.Clean(l.Path)) + "  " + present.Head(&l, now)
			if err := writeRecipeBlock(out, st, now, i > 0, title, l.Lineup(), l.Warnings, brokenLabel(st, l)); err != nil {
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
			held = present.HeldOf(h, now).Cell
		}
		if word, sev := present.LockState(&l); word != "" {
			holder = styled(st, sev, word) + " " + holder
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
func writeElections(out io.Writer, elections []recognize.Election, long bool) error {
	if len(elections) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	now := time.Now()
	if long {
		for i, e := range elections {
			title := st.Header(cliout.Clean(e.Path)) + "  " + present.Head(&e, now)
			if err := writeRecipeBlock(out, st, now, i > 0, title, e.Lineup(), e.Warnings, ""); err != nil {
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
			leader, leading = who(*e.Leader), present.HeldOf(*e.Leader, now).Cell
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
// with long every item read; warnings follow either way.
func writeQueues(out io.Writer, queues []recognize.Queue, long bool) error {
	if len(queues) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	if long {
		for i, q := range queues {
			if err := writeQueueBlock(out, st, i > 0, q); err != nil {
				return err
			}
		}
		return nil
	}
	t := cliout.NewTable(out)
	t.Row(st.Header("PATH"), st.Header("FORMAT"), st.Header("LENGTH"), st.Header("OLDEST"), st.Header("IN FLIGHT"), st.Header("WARNINGS"), st.Header("FIRST ITEMS"))
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
		format := q.Format
		if q.Kind != "" {
			format += " " + q.Kind
		}
		oldest := "-"
		if q.OldestAgeMs != nil {
			oldest = heldFor(*q.OldestAgeMs)
		}
		t.Row(cliout.Clean(q.Path), format, strconv.Itoa(q.Length), oldest, strconv.Itoa(q.InFlight), warnCount(st, q.Warnings), items)
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

// writeQueueBlock prints one queue in the long view: a title, a row per
// item read (its age, a delay queue's due time or an id queue's id, and
// the consumer of an item in flight), and the warnings.
func writeQueueBlock(out io.Writer, st cliout.Styles, gap bool, q recognize.Queue) error {
	if gap {
		fmt.Fprintln(out)
	}
	kind := "queue"
	if q.Kind != "" {
		kind = q.Kind + " queue"
	}
	title := fmt.Sprintf("%s  %s  %s  length %d", st.Header(cliout.Clean(q.Path)), kind, q.Format, q.Length)
	if q.OldestAgeMs != nil {
		title += ", oldest " + heldFor(*q.OldestAgeMs)
	}
	if q.InFlight > 0 {
		title += fmt.Sprintf(", %d in flight", q.InFlight)
	}
	if q.LockPath != "" {
		title += ", lockPath " + cliout.Clean(q.LockPath)
	}
	fmt.Fprintln(out, title)
	t := cliout.NewTable(out)
	t.Row("  "+st.Header("#"), st.Header("NODE"), st.Header("PRIORITY"), st.Header("AGE"), st.Header("WAITING"), st.Header("DUE / ID"), st.Header("IN FLIGHT"), st.Header("DATA"))
	now := time.Now()
	for j, it := range q.Items {
		prio, waiting, dueID, flight := "-", "-", "", ""
		if it.Priority != nil {
			prio = strconv.Itoa(*it.Priority)
		}
		if it.WaitingMs != nil {
			waiting = heldFor(*it.WaitingMs)
		}
		switch {
		case !it.Due.IsZero():
			dueID = present.Due(it, now)
		case it.ID != "":
			dueID = "id " + cliout.Clean(it.ID)
		}
		if it.InFlight {
			flight = "in flight"
			if c := it.Consumer; c != nil {
				flight = "by " + orDash(st, c.Session)
				if client := c.ClientText(); client != "" {
					flight += " " + cliout.Clean(client)
				}
				switch {
				case c.Connected != nil && !*c.Connected:
					flight += " " + st.Bad("GONE")
				case c.Silent:
					flight += " " + st.Bad("SILENT")
				}
			}
		}
		t.Row("  "+strconv.Itoa(j+1), cliout.Clean(it.Node), prio, heldFor(it.AgeMs), waiting, dueID, flight, cliout.Clean(it.Data))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	for _, w := range q.Warnings {
		fmt.Fprintf(out, "  %s %s\n", st.Warn("warning:"), cliout.Clean(w))
	}
	return nil
}

// brokenLabel labels a lock's first warning with present.LockState
// (DEADLOCK, BROKEN in red; MAYBE BROKEN); "" for a lock whose first
// warning is no such thing.
func brokenLabel(st cliout.Styles, l recognize.Lock) string {
	word, sev := present.LockState(&l)
	if word == "" {
		return ""
	}
	return styled(st, sev, word+":")
}

// styled styles words by the presenter's severity.
func styled(st cliout.Styles, sev present.Severity, s string) string {
	switch sev {
	case present.Bad:
		return st.Bad(s)
	case present.Warn:
		return st.Warn(s)
	}
	return s
}

// writeRecipeBlock prints one recipe in the long view: a title, a row per
// contender, the wait chain when it is one line, and the warnings (the
// first labelled broken when the lock is).
func writeRecipeBlock(out io.Writer, st cliout.Styles, now time.Time, gap bool, title string, places []recognize.Place, warnings []string, broken string) error {
	if gap {
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, title)
	t := cliout.NewTable(out)
	t.Row("  "+st.Header("ROLE"), st.Header("NODE"), st.Header("FORMAT"), st.Header("SESSION"), st.Header("CLIENT"), st.Header("CONNECTED"),
		st.Header("HEARD"), st.Header("AGE"), st.Header("HELD"), st.Header("WAITS FOR"), st.Header("WATCH"), st.Header("DATA"))
	for _, p := range places {
		c := p.Contender
		held := "-"
		if p.Holding() {
			held = present.HeldOf(c, now).Cell
		}
		age, ok := present.Age(c, now)
		if !ok {
			age = "-"
		}
		watch := c.Watch
		if watch == recognize.WatchObserved {
			watch = st.Good(watch)
		}
		t.Row("  "+present.Role(p), cliout.Clean(recognize.BareName(c.Node)), orDash(st, c.Format), orDash(st, c.Session), orDash(st, cliout.Clean(c.ClientText())),
			connected(st, c), heard(st, c, now), age, held, cliout.Clean(recognize.BareName(c.WaitsFor)), watch, cliout.Clean(c.Data))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if line := waitLine(places); line != "" {
		kind, rest, _ := strings.Cut(line, " ")
		fmt.Fprintf(out, "  %s %s\n", st.Dim(kind), cliout.Clean(rest))
	}
	for i, w := range warnings {
		label := st.Warn("warning:")
		if broken != "" && i == 0 {
			label = broken
		}
		fmt.Fprintf(out, "  %s %s\n", label, cliout.Clean(w))
	}
	return nil
}

// waitLine draws the waiters as recognize.LineOf sees them: "chain: holder
// ← waiter ← waiter", or "herd: node ⇐ sessions"; "" otherwise (readers
// sharing a lock, a semaphore's waiters), where the WAITS FOR column says
// it better.
func waitLine(places []recognize.Place) string {
	switch recognize.LineOf(places) {
	case recognize.LineChain:
		names := make([]string, len(places))
		for i, p := range places {
			names[i] = recognize.BareName(p.Node)
		}
		return "chain: " + strings.Join(names, " ← ")
	case recognize.LineHerd:
		sessions := make([]string, 0, len(places)-1)
		for _, p := range places[1:] {
			sessions = append(sessions, p.Session)
		}
		return fmt.Sprintf("herd: %s ⇐ %s (all watch it: every release wakes every one)",
			recognize.BareName(places[0].Node), strings.Join(sessions, ", "))
	}
	return ""
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

// connected says whether the contender's session has a live connection,
// as recognize read it from the servers: yes, NO, or ? when they would not
// say.
func connected(st cliout.Styles, c recognize.Contender) string {
	switch {
	case c.SessionID == 0 && c.Session == "":
		return st.Dim("-")
	case c.Connected == nil:
		return "?"
	case *c.Connected:
		return st.Good("yes")
	}
	return st.Warn("NO")
}

// heard draws present.HeardOf in a cell, red when it calls for someone.
func heard(st cliout.Styles, c recognize.Contender, now time.Time) string {
	h := present.HeardOf(c, now)
	if h.Alarming() {
		return st.Bad(h.Cell)
	}
	if h.State == present.HeardNoSession {
		return st.Dim(h.Cell)
	}
	return h.Cell
}

func warnCount(st cliout.Styles, warnings []string) string {
	if len(warnings) == 0 {
		return "0"
	}
	return st.Warn(strconv.Itoa(len(warnings)))
}

// heldFor shows milliseconds as a compact duration.
func heldFor(ms int64) string { return display.Duration(time.Duration(ms) * time.Millisecond) }
