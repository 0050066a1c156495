package cmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/zkx-dev/zkx/internal/auditlog"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// auditFlags are the audit log a command joins with what it tells
// (--audit, --audit-zone).
type auditFlags struct {
	files []string
	zone  string
}

func (f *auditFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.files, "audit", nil, "ZooKeeper's audit log (a file, or a folder of its rotated files; repeatable, one per member): name who made each transaction")
	fl.StringVar(&f.zone, "audit-zone", "", "the zone the audit log's times are written in when they name none: UTC, +02:00, Europe/Paris (default: local)")
}

func (f *auditFlags) given() bool { return len(f.files) > 0 }

// parseZone reads a zone: "" or Local, UTC, an offset (+02:00, -0530) or
// an IANA name.
func parseZone(s string) (*time.Location, error) {
	switch strings.ToLower(s) {
	case "", "local":
		return time.Local, nil
	case "utc", "z":
		return time.UTC, nil
	}
	if t, err := time.Parse("-07:00", s); err == nil {
		return t.Location(), nil
	}
	if t, err := time.Parse("-0700", s); err == nil {
		return t.Location(), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("%q: not a zone (UTC, an offset such as +02:00, or a name such as Europe/Paris): %w", s, err)
	}
	return loc, nil
}

// index reads the audit log for a join: every event names its session's
// client, keep says which are kept for matching. It tells stderr what it
// read past.
func (f *auditFlags) index(errOut io.Writer, keep forensics.AuditKeep) (*forensics.AuditIndex, error) {
	return f.read(errOut, keep, forensics.ReadAudit)
}

// stream opens the audit log for a join with transactions read in time
// order (forensics.StreamAudit); Close the index when done.
func (f *auditFlags) stream(errOut io.Writer, keep forensics.AuditKeep) (*forensics.AuditIndex, error) {
	return f.read(errOut, keep, forensics.StreamAudit)
}

func (f *auditFlags) read(errOut io.Writer, keep forensics.AuditKeep,
	open func([]string, auditlog.Options, forensics.AuditKeep) (*forensics.AuditIndex, error)) (*forensics.AuditIndex, error) {
	loc, err := parseZone(f.zone)
	if err != nil {
		return nil, fmt.Errorf("--audit-zone %w", err)
	}
	ix, err := open(f.files, auditlog.Options{Location: loc, Warn: func(err error) { warnf(errOut, "skipped %v", err) }}, keep)
	if err != nil {
		return nil, fmt.Errorf("--audit: %w", err)
	}
	for _, p := range ix.Problems.List {
		fmt.Fprintln(errOut, "zkx: audit log:", p)
	}
	if ix.Problems.Dropped > 0 {
		fmt.Fprintf(errOut, "zkx: audit log: … and %s more\n", plural(ix.Problems.Dropped, "problem"))
	}
	noEvents(errOut, ix.Files)
	if ix.Untimed > 0 {
		warnf(errOut, "%s of the audit log have no time zkx reads: they name their sessions' clients but match no transaction (a layout with %%d{ISO8601} gives one)", plural(ix.Untimed, "event"))
	}
	return ix, nil
}

// noEvents warns of the files that held no audit event.
func noEvents(errOut io.Writer, files []auditlog.FileStats) {
	for _, s := range files {
		if s.Events == 0 && s.Broken == 0 && s.Skipped == 0 {
			warnf(errOut, "%s: no audit event among its %s: is org.apache.zookeeper.audit.Slf4jAuditLogger routed to it, and audit.enable=true? (docs/postmortem.md)", s.Path, plural(s.Lines, "line"))
		}
	}
}

// auditMatched says on stderr how the join went: when no transaction
// found its own event but some found events of their session, operation
// and node further away, the audit log's times are likely in another
// zone.
func auditMatched(errOut io.Writer, ix *forensics.AuditIndex, own int) {
	if own == 0 && ix.OutOfWindow() > 0 {
		warnf(errOut, "no transaction found its audit event within %v, but %s found events of the same session, operation and node further away: are the audit log's times in another zone than %s? (--audit-zone)",
			forensics.AuditWindow, plural(ix.OutOfWindow(), "lookup"), zoneName(time.Local))
	}
}

func zoneName(loc *time.Location) string {
	name, offset := time.Now().In(loc).Zone()
	return fmt.Sprintf("%s (%+03d:%02d)", name, offset/3600, abs(offset%3600)/60)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// whoJSON is a Who in JSON (the audit objects of zkx txnlog, zkx history).
type whoJSON struct {
	Match string `json:"match"`
	User  string `json:"user,omitempty"`
	// Users are User's names but the client's address: who it
	// authenticated as.
	Users    []string `json:"users"`
	IP       string   `json:"ip,omitempty"`
	ByServer bool     `json:"by_server,omitempty"`
	// SessionUser and SessionIP name the session's client when the event
	// is the server's own.
	SessionUser string `json:"session_user,omitempty"`
	SessionIP   string `json:"session_ip,omitempty"`
	GapMs       *int64 `json:"gap_ms,omitempty"`
	Candidates  int    `json:"candidates,omitempty"`
	Operation   string `json:"operation,omitempty"`
	Znode       string `json:"znode,omitempty"`
	Result      string `json:"result,omitempty"`
	Addresses   int    `json:"addresses,omitempty"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
}

func describeWho(w *forensics.Who) *whoJSON {
	if w == nil {
		return nil
	}
	j := &whoJSON{Match: w.Match, User: w.User, Users: nonNil(w.Authenticated()), IP: w.IP, ByServer: w.ByServer,
		Candidates: w.Candidates, Operation: w.Operation, Znode: w.Znode, Result: w.Result, Addresses: w.Addresses,
		File: w.File, Line: w.Line}
	if w.ByServer {
		j.Users = []string{}
	}
	if w.Session != nil {
		j.SessionUser, j.SessionIP = w.Session.User, w.Session.IP
	}
	if w.Match == forensics.MatchEvent {
		gap := w.GapMs
		j.GapMs = &gap
	}
	return j
}

// whoNote is a Who at the end of a table's line: "[ops from 10.0.3.7]",
// "[session: ops from 10.0.3.7]" when only the session is known, "" for
// nil.
func whoNote(w *forensics.Who) string {
	if w == nil {
		return ""
	}
	if w.Match == forensics.MatchSession {
		return "[session: " + strings.TrimPrefix(w.Text(), "session of ") + "]"
	}
	if w.Result == auditlog.ResultFailure {
		// A failed request: the log's error says how, the audit log what.
		return "[" + w.Text() + ": " + strings.TrimSpace(w.Operation+" "+w.Znode) + " failed]"
	}
	return "[" + w.Text() + "]"
}

// underPath reports whether the node p is path or below it.
func underPath(p []byte, path string) bool {
	return path == "/" || string(p) == path || len(p) > len(path) && string(p[:len(path)]) == path && p[len(path)] == '/'
}

// holdingWho tells who created a holding's node and who ended it:
// "created by billing from 10.0.3.7; deleted by ops from 10.0.3.9".
func holdingWho(h forensics.Holding, created, ended *forensics.Who) string {
	parts := []string{"created by " + orUnknown(created)}
	switch {
	case h.Ended == forensics.EndedHeld || h.Ended == forensics.EndedSuperseded:
	case ended == nil:
		parts = append(parts, "ended by whom the audit log does not say")
	case h.Ended == forensics.EndedReleased:
		parts = append(parts, "released by "+ended.Text())
	case h.Ended == forensics.EndedDeletedByOther:
		parts = append(parts, "deleted by "+ended.Text())
	default:
		parts = append(parts, "removed by "+ended.Text())
	}
	return strings.Join(parts, "; ")
}

// itemWho tells who put a queue's item and who took it.
func itemWho(it forensics.Item, put, taken *forensics.Who) string {
	s := "put by " + orUnknown(put)
	if it.TakenBy != "" {
		s += "; taken by " + orUnknown(taken)
	}
	return s
}

func orUnknown(w *forensics.Who) string {
	if w == nil {
		return "whom the audit log does not say"
	}
	return w.Text()
}
