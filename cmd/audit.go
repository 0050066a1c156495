package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/auditlog"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// auditCmdFlags are zkx audit's flags.
type auditCmdFlags struct {
	output, path, session, user, ip, operations, result, since, until, zone string
}

// auditOperations are the operations ZooKeeper audits (AuditConstants).
var auditOperations = []string{auditlog.OpCreate, auditlog.OpDelete, auditlog.OpSetData, auditlog.OpSetACL,
	auditlog.OpMulti, auditlog.OpReconfig, auditlog.OpEphemeral, auditlog.OpStart, auditlog.OpStop}

// ephemeralDeletion is how the table writes OpEphemeral, which is longer
// than its column.
const ephemeralDeletion = "ephemeralDeletion"

func newAuditCommand() *cobra.Command {
	var f auditCmdFlags
	cmd := &cobra.Command{
		Use:   "audit FILE|DIR...",
		Short: "Print ZooKeeper's audit log: who did what, from which address",
		Long: `audit reads ZooKeeper's audit log (ZooKeeper 3.6+ with audit.enable=true; the
events org.apache.zookeeper.audit.Slf4jAuditLogger logs) and prints each event:
its time, session, operation, result, node and who asked — the users the session
authenticated as and the client's address.

FILE is an audit log, or any log the audit logger writes into among other
loggers' lines (they are skipped); DIR is a folder of them, whose files named
*audit* are read (zookeeper_audit.log and its rotated copies, .gz too), else
all its files. Several files (the logs of several members) are merged by time.
The events are found whatever the logging layout around them; the time is read
at the start of the line: %d{ISO8601} ("2006-01-02 15:04:05,000", in the
server's zone, --zone) or with a zone. docs/postmortem.md says how to make
ZooKeeper write the audit log.

The user of an event is what ZooKeeper logs: the names of the session's
authenticated ids, in no fixed order, the client's address among them (every
session has it); a digest user is its bare name, without "digest:". The server
logs its own deletions of a session's ephemeral nodes when the session closes
or expires (ephemeralZNodeDeletionOnSessionCloseOrExpire, ephemeralDeletion in
the table) as the user it runs as. ZooKeeper audits creates, deletes, setData,
setAcl, failed multis and reconfig — on the member the client was connected to,
not the others; not a session's start or close, a createTTL, nor what the
server does itself (containers, TTLs). A line that looks like an event and is
not (cut short, garbled) is reported on stderr with its file and line, and the
exit status is 3.

Filters (all must match): --path keeps events on a node that starts with it;
--session one session's (0x… or decimal); --user events whose user names it;
--ip those from that address; --operation the given operations (create, delete,
setData, setAcl, multiOperation, reconfig,
ephemeralZNodeDeletionOnSessionCloseOrExpire, serverStart, serverStop),
comma-separated; --result success, failure or invoked; --since and --until a
time (RFC 3339, "2006-01-02 15:04:05", or a time of day "02:47" on the day the
log begins, in local time).

JSON (-o json) is JSON Lines, one object per event: time (RFC 3339 UTC, ms;
absent when the line has none), session, user (as logged), users (its names
but the client's address), ip, operation, znode, znode_type, acl, result, file,
line. docs/json.md has the whole contract.

zkx txnlog, zkx history and the explorer on the past (zkx --data-dir) take
--audit to name, beside each transaction, who made it.`,
		Example: `  zkx audit /var/log/zookeeper/zookeeper_audit.log
  zkx audit /var/log/zookeeper --path /app/locks --since 02:00 --until 03:00
  zkx audit zk1/audit.log zk2/audit.log zk3/audit.log --operation delete --user ops
  zkx audit /var/log/zookeeper -o json | jq -r 'select(.result == "failure") | [.time, .ip, .operation, .znode] | @tsv'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAudit(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "table", "output format: table or json (JSON Lines)")
	fl.StringVar(&f.path, "path", "", "only events on a node that starts with this")
	fl.StringVar(&f.session, "session", "", "only this session's events (0x… or decimal)")
	fl.StringVar(&f.user, "user", "", "only events whose user names this (a digest user's name, a principal, an address)")
	fl.StringVar(&f.ip, "ip", "", "only events from this client address")
	fl.StringVar(&f.operations, "operation", "", "only these operations, comma-separated (create,delete,setData,setAcl,…)")
	fl.StringVar(&f.result, "result", "", "only this result: success, failure or invoked")
	fl.StringVar(&f.since, "since", "", "only from this time on")
	fl.StringVar(&f.until, "until", "", "only up to this time")
	fl.StringVar(&f.zone, "zone", "", "the zone the log's times are written in when they name none: UTC, +02:00, Europe/Paris (default: local)")
	return cmd
}

// auditFilter is zkx audit's filters, parsed.
type auditFilter struct {
	path, user, ip, result string
	session                int64
	hasSession             bool
	operations             map[string]bool
	since, until           time.Time
}

func (af *auditFilter) keep(e *auditlog.Event) bool {
	switch {
	case af.hasSession && (!e.HasSession || e.Session != af.session),
		af.path != "" && !strings.HasPrefix(e.Znode, af.path),
		af.ip != "" && e.IP != af.ip,
		af.result != "" && e.Result != af.result,
		af.operations != nil && !af.operations[e.Operation],
		af.user != "" && !slices.Contains(e.Users(), af.user),
		!af.since.IsZero() && (e.Time.IsZero() || e.Time.Before(af.since)),
		!af.until.IsZero() && (e.Time.IsZero() || e.Time.After(af.until)):
		return false
	}
	return true
}

func (f auditCmdFlags) filter(args []string, loc *time.Location) (auditFilter, error) {
	af := auditFilter{path: f.path, user: f.user, ip: f.ip, result: f.result}
	if f.session != "" {
		id, err := parseSession(f.session)
		if err != nil {
			return af, fmt.Errorf("--session %q: not a session id (0x… or decimal)", f.session)
		}
		af.session, af.hasSession = id, true
	}
	switch f.result {
	case "", auditlog.ResultSuccess, auditlog.ResultFailure, auditlog.ResultInvoked:
	default:
		return af, fmt.Errorf("--result %q: success, failure or invoked", f.result)
	}
	if f.operations != "" {
		af.operations = map[string]bool{}
		for _, op := range strings.Split(f.operations, ",") {
			op = strings.TrimSpace(op)
			if op == ephemeralDeletion {
				op = auditlog.OpEphemeral
			}
			if !slices.Contains(auditOperations, op) {
				return af, fmt.Errorf("--operation %q: not an operation ZooKeeper audits (%s)", op, strings.Join(auditOperations, ", "))
			}
			af.operations[op] = true
		}
	}
	if f.since == "" && f.until == "" {
		return af, nil
	}
	base, err := firstAuditTime(args, loc)
	if err != nil {
		return af, err
	}
	for _, b := range []struct {
		flag, value string
		to          *time.Time
	}{{"--since", f.since, &af.since}, {"--until", f.until, &af.until}} {
		m, err := forensics.ParseMoment(b.value, time.Local, base)
		if err != nil {
			return af, fmt.Errorf("%s: %w", b.flag, err)
		}
		if m.Zxid != 0 {
			return af, fmt.Errorf("%s %s: an audit log has no zxids; give a time", b.flag, b.value)
		}
		*b.to = m.Time
	}
	return af, nil
}

// firstAuditTime is the time of the first event with one: the day a time
// of day falls on.
func firstAuditTime(args []string, loc *time.Location) (time.Time, error) {
	l, err := auditlog.Open(args, auditlog.Options{Location: loc})
	if err != nil {
		return time.Time{}, err
	}
	defer l.Close()
	for {
		e, err := l.Next()
		if errors.Is(err, io.EOF) {
			return time.Time{}, nil
		}
		if err == nil && !e.Time.IsZero() {
			return e.Time, nil
		}
	}
}

func runAudit(cmd *cobra.Command, args []string, f auditCmdFlags) error {
	format, err := cliout.ParseFormat(f.output)
	if err != nil {
		return err
	}
	loc, err := parseZone(f.zone)
	if err != nil {
		return fmt.Errorf("--zone %w", err)
	}
	af, err := f.filter(args, loc)
	if err != nil {
		return err
	}
	l, err := auditlog.Open(args, auditlog.Options{Location: loc, Warn: warnSkipped(cmd)})
	if err != nil {
		return err
	}
	defer l.Close()
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10)
	defer out.Flush()
	var write func(e *auditlog.Event) error
	var buf []byte
	if format == cliout.JSON {
		var jw jsonWriter
		write = func(e *auditlog.Event) error {
			buf = appendAuditJSON(buf[:0], &jw, e)
			_, err := out.Write(buf)
			return err
		}
	} else {
		zone, _ := time.Now().Zone()
		fmt.Fprintf(out, "%-23s  %-18s  %-17s  %-7s  %s\n", "TIME ("+zone+")", "SESSION", "OPERATION", "RESULT", "ZNODE  (TYPE)  (ACL)  WHO")
		clock := &txnTable{} // its clock: the time's text to the second, cached
		write = func(e *auditlog.Event) error {
			buf = appendAuditRow(buf[:0], clock, e)
			_, err := out.Write(buf)
			return err
		}
	}
	var problems []error
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	for batch := range readAuditEvents(ctx, l, &af) {
		for i := range batch {
			if batch[i].err != nil {
				problems = append(problems, batch[i].err)
				out.Flush()
				fmt.Fprintln(cmd.ErrOrStderr(), "zkx audit:", cliout.Clean(batch[i].err.Error()))
				continue
			}
			if err := write(&batch[i].event); err != nil {
				return err
			}
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	noEvents(cmd.ErrOrStderr(), l.Stats())
	if len(problems) > 0 {
		return &partialError{fmt.Errorf("%s in the audit log, read past (each reported above with its file and line)", plural(len(problems), "problem"))}
	}
	return nil
}

// auditItem is an event read and kept, or a line read past.
type auditItem struct {
	event auditlog.Event
	err   error
}

// readAuditEvents reads and filters the log on a goroutine of its own,
// sending batches in order while the caller writes the ones before (as
// zkx txnlog does).
func readAuditEvents(ctx context.Context, l *auditlog.Log, af *auditFilter) <-chan []auditItem {
	out := make(chan []auditItem, 8)
	go func() {
		defer close(out)
		batch := make([]auditItem, 0, txnBatch)
		send := func() bool {
			select {
			case out <- batch:
				batch = make([]auditItem, 0, txnBatch)
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			e, err := l.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			switch {
			case err != nil:
				batch = append(batch, auditItem{err: err})
			case af.keep(&e):
				batch = append(batch, auditItem{event: e})
			}
			if len(batch) == txnBatch && !send() {
				return
			}
		}
		if len(batch) > 0 {
			send()
		}
	}()
	return out
}

// appendAuditRow appends an event's line of the table.
func appendAuditRow(b []byte, clock *txnTable, e *auditlog.Event) []byte {
	if e.Time.IsZero() {
		b = pad(b, "-", 23)
	} else {
		b = clock.appendTime(b, e.Time)
	}
	b = append(b, "  "...)
	if e.HasSession {
		b = pad(append(b, "0x"...), strconv.FormatUint(uint64(e.Session), 16), 16)
	} else {
		b = pad(b, "-", 18)
	}
	b = append(b, "  "...)
	op := e.Operation
	if op == auditlog.OpEphemeral {
		op = ephemeralDeletion
	}
	// Every field is the log's text: escaped, as a crafted log or a user's
	// name may hold anything (appendLine).
	b = pad(b, display.Line(op), 17)
	b = append(b, "  "...)
	b = pad(b, display.Line(e.Result), 7)
	b = append(b, "  "...)
	if e.Znode != "" {
		b = append(appendLine(b, e.Znode), "  "...)
	}
	if e.ZnodeType != "" {
		b = append(appendLine(b, e.ZnodeType), "  "...)
	}
	if e.ACL != "" {
		b = append(appendLine(append(b, "acl "...), e.ACL), "  "...)
	}
	if e.ByServer() {
		b = appendLine(append(b, "by the server ("...), e.User)
		b = append(b, ')')
	} else {
		b = appendLine(b, (&forensics.Who{Match: forensics.MatchEvent, Client: forensics.Client{User: e.User, IP: e.IP}}).Text())
	}
	return append(trimBlanks(b), '\n')
}

// appendAuditJSON appends an event's JSON line.
func appendAuditJSON(b []byte, jw *jsonWriter, e *auditlog.Event) []byte {
	b = append(b, '{')
	if !e.Time.IsZero() {
		b = append(jw.appendTime(append(b, `"time":"`...), e.Time), `",`...)
	}
	if e.HasSession {
		b = append(b, `"session":"0x`...)
		b = append(strconv.AppendUint(b, uint64(e.Session), 16), `",`...)
	}
	if e.User != "" {
		b = append(appendJSONString(append(b, `"user":`...), e.User), `,"users":[`...)
		for i, u := range (forensics.Client{User: e.User, IP: e.IP}).Authenticated() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, u)
		}
		b = append(b, "],"...)
	}
	for _, field := range []struct{ key, value string }{{"ip", e.IP}, {"operation", e.Operation}, {"znode", e.Znode},
		{"znode_type", e.ZnodeType}, {"acl", e.ACL}, {"result", e.Result}} {
		if field.value != "" {
			b = append(appendJSONString(append(append(append(b, '"'), field.key...), `":`...), field.value), ',')
		}
	}
	b = appendJSONString(append(b, `"file":`...), e.File)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	return append(b, "}\n"...)
}
