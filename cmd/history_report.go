package cmd

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/txnlog"
	"github.com/zkx-dev/zkx/zkview/forensics"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// reportMaxChanges bounds the tree's changes a report lists; zkx txnlog
// lists them all.
const reportMaxChanges = 200

// reportTime is how a report writes times: UTC, to the millisecond, the
// same for every reader of the ticket.
const reportTime = "2006-01-02 15:04:05.000"

// timelineRow is one line of a report's timeline.
type timelineRow struct {
	at      time.Time
	zxid    int64
	what    string
	session string
	who     string
}

// reportTxns reads the transactions that touched path within the
// history's window, from the logs of the archive.
func reportTxns(arch *forensics.Archive, path string, opts forensics.HistoryOptions) ([]forensics.Transaction, error) {
	var paths []string
	for _, l := range arch.Dir.Logs {
		paths = append(paths, l.Path)
	}
	logs := txnlog.OpenFiles(paths)
	defer logs.Close()
	var out []forensics.Transaction
	last := int64(0)
	for {
		e, err := logs.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil || e.Header.Zxid <= last {
			continue // reported by the history; a log may start before the last ends
		}
		last = e.Header.Zxid
		t := forensics.Describe(e)
		if !t.Touches(path) || (!opts.Since.IsZero() && before(&t, opts.Since)) || (!opts.Until.IsZero() && after(&t, opts.Until)) {
			continue
		}
		out = append(out, t)
	}
}

// mdCell makes text safe in a Markdown table's cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'").Replace(display.Line(s))
}

// mdCode puts a path or a command in code, safe in a table's cell.
func mdCode(s string) string { return "`" + strings.ReplaceAll(display.Line(s), "`", "'") + "`" }

func utc(t time.Time) string { return t.UTC().Format(reportTime) }

// writeHistoryReport writes the one-page incident report of zkx history
// --report.
func writeHistoryReport(cmd *cobra.Command, w io.Writer, arch *forensics.Archive, path string, f historyFlags,
	opts forensics.HistoryOptions, res forensics.HistoryResult, ix *forensics.AuditIndex) error {
	txns, err := reportTxns(arch, path, opts)
	if err != nil {
		return err
	}
	created := map[string]*forensics.Transaction{} // a node's create, by path
	for i := range txns {
		t := &txns[i]
		if strings.HasPrefix(t.Type, "create") {
			created[t.Path] = t
		}
		for j := range t.Ops {
			if strings.HasPrefix(t.Ops[j].Type, "create") {
				created[t.Ops[j].Path] = t
			}
		}
	}
	who := func(w *forensics.Who) string {
		if w == nil {
			if ix == nil {
				return ""
			}
			return "—"
		}
		return w.Text()
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# Post-mortem: %s\n\n", mdCode(path))
	b.WriteString("| | |\n| --- | --- |\n")
	fmt.Fprintf(&b, "| Data directory | %s: from %s, replayed to zxid %s (%s UTC) |\n", mdCode(f.dataDir), mdCode(res.Start),
		display.Hex(res.EndZxid), utc(res.EndTime))
	window := "the whole logs"
	if !opts.Since.IsZero() || !opts.Until.IsZero() {
		window = "from " + momentText(opts.Since, "the start") + " to " + momentText(opts.Until, "the end")
	}
	fmt.Fprintf(&b, "| Window | %s |\n", window)
	if ix != nil {
		var files []string
		for _, a := range f.audit.files {
			files = append(files, mdCode(a))
		}
		events := ix.Events
		for _, f := range ix.Files {
			events += f.Skipped // other nodes' events, passed over once their session was known
		}
		fmt.Fprintf(&b, "| Audit log | %s: %s, %d of them under %s |\n", strings.Join(files, ", "), plural(events, "event"), ix.Kept, mdCode(path))
	} else {
		b.WriteString("| Audit log | not given: sessions are ids, who they were is not on disk (`--audit`) |\n")
	}
	fmt.Fprintf(&b, "| Recipes | %d recognised at or under %s |\n", len(res.Recipes), mdCode(path))

	// The timeline: every recipe's holders, waiters and items, in order.
	var rows []timelineRow
	for _, h := range res.Recipes {
		rows = append(rows, recipeTimeline(h, ix, created, txns, who)...)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].zxid != 0 && rows[j].zxid != 0 {
			return rows[i].zxid < rows[j].zxid
		}
		return rows[i].at.Before(rows[j].at)
	})
	b.WriteString("\n## Timeline\n\n")
	if len(rows) == 0 {
		b.WriteString("No lock, election or queue was seen at or under this path.\n")
	} else {
		b.WriteString("| time (UTC) | zxid | what | session | who |\n| --- | --- | --- | --- | --- |\n")
		for _, r := range rows {
			zxid := ""
			if r.zxid != 0 {
				zxid = display.Hex(r.zxid)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", utc(r.at), zxid, r.what, r.session, mdCell(r.who))
		}
	}

	// The holders, recipe by recipe.
	for _, h := range res.Recipes {
		writeReportRecipe(&b, h, ix, who)
	}

	// The tree's changes.
	fmt.Fprintf(&b, "\n## Changes to the tree under %s\n\n", mdCode(path))
	if len(txns) == 0 {
		b.WriteString("None in the window.\n")
	} else {
		b.WriteString("| time (UTC) | zxid | session | change | who |\n| --- | --- | --- | --- | --- |\n")
		for i := range txns {
			if i == reportMaxChanges {
				fmt.Fprintf(&b, "\n… and %d more (the command below lists them all).\n", len(txns)-reportMaxChanges)
				break
			}
			t := &txns[i]
			var w *forensics.Who
			if ix != nil {
				w = ix.Who(t)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", utc(t.Time), display.Hex(t.Zxid), display.Hex(t.Session),
				mdCell(t.Summary()), mdCell(who(w)))
		}
	}

	b.WriteString("\n## Reproduce\n\n```sh\n")
	for _, c := range reportCommands(path, f, rows) {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	if ix != nil {
		b.WriteString("\nWho: the user and address of the audit event of the same session, operation and node (within " +
			forensics.AuditWindow.String() + "); \"session of …\" where the operation has no event and its session's first audited operation names the client; the server's own for a node removed when its session ended. The audit log names users without their scheme.\n")
	}
	_, err = io.WriteString(w, b.String())
	if ix != nil {
		auditMatched(cmd.ErrOrStderr(), ix, len(rows))
	}
	return err
}

func momentText(m forensics.Moment, none string) string {
	switch {
	case m.Zxid != 0:
		return "zxid " + display.Hex(m.Zxid)
	case !m.Time.IsZero():
		return utc(m.Time) + " UTC"
	}
	return none
}

// recipeTimeline is a recipe's lines of the timeline: each holding's
// wait, hold and end, each contender that never held, each item.
func recipeTimeline(h forensics.History, ix *forensics.AuditIndex, created map[string]*forensics.Transaction,
	txns []forensics.Transaction, who func(*forensics.Who) string) []timelineRow {
	var rows []timelineRow
	name := mdCode(h.Path)
	held := map[string]bool{}
	for _, x := range append(append([]forensics.Holding{}, h.Holdings...), h.Leaders...) {
		held[x.Node] = true
		node := recognize.ContenderPath(h.Path, x.Node)
		var createdBy, endedBy *forensics.Who
		if ix != nil {
			createdBy, endedBy = ix.Holding(h.Path, x)
		}
		verb := "holds"
		if h.Leaders != nil {
			verb = "leads"
		}
		if x.Kind != "" {
			verb += " (" + x.Kind + ")"
		}
		if c := created[node]; c != nil && x.WaitedMs != nil && *x.WaitedMs > 0 {
			rows = append(rows, timelineRow{at: c.Time, zxid: c.Zxid, what: "queues for " + name + " (" + mdCode(x.Node) + ")",
				session: x.Session, who: who(createdBy)})
			createdBy = nil // said on the queueing line
		}
		what := verb + " " + name + " (" + mdCode(x.Node) + ")"
		if x.HeldBeforeLogs {
			what += ", from before the logs begin"
		}
		r := timelineRow{at: x.From, zxid: x.FromZxid, what: what, session: x.Session}
		if createdBy != nil {
			r.who = who(createdBy)
		}
		rows = append(rows, r)
		if x.To == nil {
			continue
		}
		end := timelineRow{at: *x.To, zxid: x.ToZxid, session: x.Session, who: who(endedBy)}
		how := "held " + millis(x.HeldMs)
		switch x.Ended {
		case forensics.EndedReleased:
			end.what = "releases " + name + " (" + how + ")"
		case forensics.EndedSessionClosed:
			end.what = "**its client closes its session**: loses " + name + " (" + how + ")"
		case forensics.EndedSessionExpired:
			end.what = "**its session expires**: loses " + name + " (" + how + ")"
		case forensics.EndedDeletedByOther:
			end.what = "**force-deleted by session " + x.DeletedBy + "**: loses " + name + " (" + how + ")"
		case forensics.EndedSuperseded:
			end.what = "no longer holds " + name + " by the recipe's rule (" + how + ")"
		}
		rows = append(rows, end)
	}
	if h.Recipe != "queue" {
		rows = append(rows, neverHeld(h, held, txns, ix, who)...)
	}
	for _, it := range h.Items {
		var put, taken *forensics.Who
		if ix != nil {
			put, taken = ix.Item(h.Path, it)
		}
		rows = append(rows, timelineRow{at: it.PutAt, zxid: it.PutZxid, what: fmt.Sprintf("puts %q in %s", it.Data, name),
			session: it.PutBy, who: who(put)})
		if it.TakenAt != nil {
			rows = append(rows, timelineRow{at: *it.TakenAt, zxid: it.TakenZxid, what: fmt.Sprintf("takes %q from %s", it.Data, name),
				session: it.TakenBy, who: who(taken)})
		}
	}
	return rows
}

// neverHeld are the contenders of a lock or an election that queued and
// went without ever holding: their node's create and its end.
func neverHeld(h forensics.History, held map[string]bool, txns []forensics.Transaction, ix *forensics.AuditIndex,
	who func(*forensics.Who) string) []timelineRow {
	var rows []timelineRow
	name := mdCode(h.Path)
	waiting := map[string]bool{}
	lookup := func(t *forensics.Transaction) *forensics.Who {
		if ix == nil {
			return nil
		}
		return ix.Who(t)
	}
	for i := range txns {
		t := &txns[i]
		for _, c := range changedChildren(t, h.Path) {
			switch {
			case c.created && !held[c.node]:
				waiting[c.node] = true
				rows = append(rows, timelineRow{at: t.Time, zxid: t.Zxid, session: display.Hex(t.Session),
					what: "queues for " + name + " (" + mdCode(c.node) + "), never to hold", who: who(lookup(t))})
			case !c.created && waiting[c.node]:
				delete(waiting, c.node)
				what := "gives up on " + name + " (deletes " + mdCode(c.node) + ")"
				if t.Type == "closeSession" {
					what = "**its session ends while it waits** for " + name + " (" + mdCode(c.node) + ")"
				}
				rows = append(rows, timelineRow{at: t.Time, zxid: t.Zxid, session: display.Hex(t.Session), what: what, who: who(lookup(t))})
			}
		}
	}
	return rows
}

// childChange is a create or delete of a recipe's child by a transaction.
type childChange struct {
	node    string
	created bool
}

// changedChildren are the children of dir a transaction created or
// deleted (a multi's operations, a closeSession's ephemerals).
func changedChildren(t *forensics.Transaction, dir string) []childChange {
	child := func(p string) (string, bool) {
		rest, ok := strings.CutPrefix(p, dir+"/")
		return rest, ok && rest != "" && !strings.Contains(rest, "/")
	}
	var out []childChange
	add := func(typ, p string) {
		if n, ok := child(p); ok {
			switch {
			case strings.HasPrefix(typ, "create"):
				out = append(out, childChange{n, true})
			case strings.HasPrefix(typ, "delete"):
				out = append(out, childChange{n, false})
			}
		}
	}
	if t.Type == "multi" && !t.Failed {
		for _, op := range t.Ops {
			add(op.Type, op.Path)
		}
	}
	add(t.Type, t.Path)
	for _, p := range t.Removed {
		add("delete", p)
	}
	return out
}

// writeReportRecipe writes a recipe's table of holders (or items).
func writeReportRecipe(b *strings.Builder, h forensics.History, ix *forensics.AuditIndex, who func(*forensics.Who) string) {
	kind := h.Recipe + " (" + h.Format
	if h.System != "" {
		kind += ", " + h.System + " " + h.Role
	}
	fmt.Fprintf(b, "\n## %s — %s)\n\n", mdCode(h.Path), kind)
	holdings := append(append([]forensics.Holding{}, h.Holdings...), h.Leaders...)
	if len(holdings) > 0 {
		b.WriteString("| from (UTC) | to | session | waited | held | ended | node created by | ended by |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, x := range holdings {
			var createdBy, endedBy *forensics.Who
			if ix != nil {
				createdBy, endedBy = ix.Holding(h.Path, x)
			}
			to, waited, ended := "still held", "", x.Ended
			if x.To != nil {
				to = utc(*x.To)
			}
			switch {
			case x.HeldBeforeLogs:
				waited = "before the logs"
			case x.WaitedMs != nil:
				waited = millis(*x.WaitedMs)
			}
			if x.DeletedBy != "" {
				ended += " by " + x.DeletedBy
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", utc(x.From), to, x.Session, waited, millis(x.HeldMs), ended,
				mdCell(who(createdBy)), mdCell(who(endedBy)))
		}
	}
	if len(h.Items) > 0 {
		b.WriteString("| put (UTC) | taken | data | put by | taken by |\n| --- | --- | --- | --- | --- |\n")
		for _, it := range h.Items {
			var put, taken *forensics.Who
			if ix != nil {
				put, taken = ix.Item(h.Path, it)
			}
			takenAt := "still there"
			if it.TakenAt != nil {
				takenAt = utc(*it.TakenAt)
			}
			putBy := strings.TrimSpace(it.PutBy + " " + who(put))
			takenBy := strings.TrimSpace(it.TakenBy + " " + who(taken))
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", utc(it.PutAt), takenAt, mdCell(fmt.Sprintf("%q", it.Data)), mdCell(putBy), mdCell(takenBy))
		}
	}
}

// reportCommands are the commands behind each part of a report: the
// history, the tree's changes, the audit events, the explorer at each
// forced end.
func reportCommands(path string, f historyFlags, rows []timelineRow) []string {
	var window, audit string
	if f.since != "" {
		window += " --since " + shellQuote(f.since)
	}
	if f.until != "" {
		window += " --until " + shellQuote(f.until)
	}
	for _, a := range f.audit.files {
		audit += " --audit " + shellQuote(a)
	}
	if f.audit.zone != "" {
		audit += " --audit-zone " + shellQuote(f.audit.zone)
	}
	dir, p := shellQuote(f.dataDir), shellQuote(path)
	out := []string{
		"# the holders, waiters and ends",
		"zkx history " + p + " --data-dir " + dir + window + audit,
		"# every transaction under the path",
		"zkx txnlog " + dir + " --path " + p + window + audit,
	}
	if len(f.audit.files) > 0 {
		var files []string
		for _, a := range f.audit.files {
			files = append(files, shellQuote(a))
		}
		zone := ""
		if f.audit.zone != "" {
			zone = " --zone " + shellQuote(f.audit.zone)
		}
		out = append(out, "# the audit events under the path", "zkx audit "+strings.Join(files, " ")+" --path "+p+zone)
	}
	seen := map[int64]bool{}
	for _, r := range rows {
		if strings.HasPrefix(r.what, "**") && r.zxid != 0 && !seen[r.zxid] {
			seen[r.zxid] = true
			out = append(out, "# the explorer right after: "+strings.Trim(strings.SplitN(r.what, "**", 3)[1], " :"),
				"zkx --data-dir "+dir+" --at "+display.Hex(r.zxid)+" --path "+p+audit)
		}
	}
	return out
}
