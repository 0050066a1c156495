package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/datadir"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/fileread"
	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/txnlog"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// txnlogFlags are zkx txnlog's filters.
type txnlogFlags struct {
	output, path, session, since, until, types string
	audit                                      auditFlags
}

func newTxnlogCommand() *cobra.Command {
	var f txnlogFlags
	cmd := &cobra.Command{
		Use:   "txnlog FILE|DIR",
		Short: "Print the transactions of ZooKeeper's transaction logs",
		Long: `txnlog reads ZooKeeper's transaction logs from disk — one log file (log.<zxid>),
or every log of a data directory (DIR/version-2/log.*, or the version-2 folder
itself) in order — and prints each transaction: its time, zxid, session, type,
path and what it did, data decoded as zkx get shows it. A multi is followed by
its operations; a closeSession names the ephemeral nodes it removed and says
whether the server closed it (an expiry: cxid 0) or its client did.

It reads the logs streaming (memory stays small whatever their size) and goes
on past damage: a bad checksum, a broken entry or a truncated end is reported
on stderr with the file and offset, the rest is printed, and the exit status is
3 (a partial result).

Filters (all must match): --path keeps transactions naming a path that starts
with it (a multi's operations, a closeSession's removed nodes count);
--session keeps one session's (0x… or decimal); --since and --until keep those
at or after / at or before a moment, a zxid (0x1f) or a time (RFC 3339,
"2006-01-02 15:04:05", or a time of day "02:47" on the day the logs begin, in
local time); --type keeps the given types (create, create2, createTtl,
createContainer, delete, deleteContainer, setData, setACL, multi, reconfig,
createSession, closeSession, error), comma-separated.

JSON (-o json) is JSON Lines, one object per transaction: zxid, time (RFC 3339
UTC, ms), session, cxid, type, path; by type node_kind (persistent, ephemeral,
container, ttl), ttl_ms, data (decoded text) and decoder, acl
(scheme:id:perms), version (after the change), parent_cversion, timeout_ms,
removed and closed_by (server or client), error and error_code, ops (a
multi's operations, each with type, path and its own fields) and failed;
digest (the tree digest logged with it), file and offset. docs/json.md has
the whole contract.

--audit FILE|DIR (ZooKeeper's audit log, see zkx audit; repeatable, one per
member) names who made each transaction, at the end of its line in brackets,
"audit" in JSON: its own audit event (the same session, operation and node
within 10 s; how far apart in gap_ms), else its session's client from the
session's first audited operation ("session:"), else nothing — zkx never
guesses. --audit-zone is the zone of the audit log's times when it names none.`,
		Example: `  zkx txnlog /var/lib/zookeeper
  zkx txnlog /var/lib/zookeeper/version-2/log.100000001 --path /app/locks
  zkx txnlog /var/lib/zookeeper --since 02:00 --until 03:00 --type create,delete,closeSession
  zkx txnlog /var/lib/zookeeper --session 0x100000f4c810003 -o json | jq .
  zkx txnlog /var/lib/zookeeper --path /app/config --audit /var/log/zookeeper/zookeeper_audit.log`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTxnlog(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "table", "output format: table or json (JSON Lines)")
	fl.StringVar(&f.path, "path", "", "only transactions naming a path that starts with this")
	fl.StringVar(&f.session, "session", "", "only this session's transactions (0x… or decimal)")
	fl.StringVar(&f.since, "since", "", "only from this moment on: a zxid (0x1f) or a time")
	fl.StringVar(&f.until, "until", "", "only up to this moment: a zxid (0x1f) or a time")
	fl.StringVar(&f.types, "type", "", "only these types, comma-separated (create,delete,closeSession,…)")
	f.audit.register(fl)
	return cmd
}

// txnFilter is zkx txnlog's filters, parsed.
type txnFilter struct {
	path         string
	session      int64
	hasSession   bool
	since, until forensics.Moment
	types        map[string]bool
}

func (tf *txnFilter) keep(t *forensics.Transaction) bool {
	if tf.hasSession && t.Session != tf.session {
		return false
	}
	if tf.types != nil && !tf.types[t.Type] {
		return false
	}
	if !tf.since.IsZero() && before(t, tf.since) {
		return false
	}
	if !tf.until.IsZero() && after(t, tf.until) {
		return false
	}
	if tf.path != "" {
		for _, p := range t.Paths() {
			if strings.HasPrefix(p, tf.path) {
				return true
			}
		}
		return false
	}
	return true
}

func before(t *forensics.Transaction, m forensics.Moment) bool {
	if m.Zxid != 0 {
		return t.Zxid < m.Zxid
	}
	return t.Time.Before(m.Time)
}

func after(t *forensics.Transaction, m forensics.Moment) bool {
	if m.Zxid != 0 {
		return t.Zxid > m.Zxid
	}
	return t.Time.After(m.Time)
}

// parseSession reads a session id, 0x… or decimal.
func parseSession(s string) (int64, error) {
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err := strconv.ParseUint(h, 16, 64)
		return int64(v), err
	}
	return strconv.ParseInt(s, 10, 64)
}

// logFiles are the logs to read: the file itself, or a data directory's
// (warn is told of the files skipped there).
func logFiles(arg string, warn func(error)) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if err := fileread.Check(arg, fi.Mode()); err != nil {
			return nil, err
		}
		if kind, _, ok := datadir.Parse(fi.Name()); ok && kind == datadir.Snapshot {
			return nil, fmt.Errorf("%s is a snapshot, not a transaction log (zkx snapshot reads it)", arg)
		}
		return []string{arg}, nil
	}
	d, err := datadir.Open(arg)
	if err != nil {
		return nil, err
	}
	for _, skipped := range d.Skipped {
		warn(skipped)
	}
	if len(d.Logs) == 0 {
		return nil, fmt.Errorf("%s has no transaction logs (log.*)", d.Path)
	}
	paths := make([]string, len(d.Logs))
	for i, l := range d.Logs {
		paths[i] = l.Path
	}
	return paths, nil
}

// firstLogTime is the time of the first readable transaction of paths.
func firstLogTime(paths []string) time.Time {
	f := txnlog.OpenFiles(paths)
	defer f.Close()
	for {
		e, err := f.Next()
		if errors.Is(err, io.EOF) {
			return time.Time{}
		}
		if err == nil {
			return time.UnixMilli(e.Header.Time)
		}
	}
}

func (f txnlogFlags) filter(paths []string) (txnFilter, error) {
	tf := txnFilter{path: f.path}
	if f.session != "" {
		id, err := parseSession(f.session)
		if err != nil {
			return tf, fmt.Errorf("--session %q: not a session id (0x… or decimal)", f.session)
		}
		tf.session, tf.hasSession = id, true
	}
	if f.types != "" {
		tf.types = map[string]bool{}
		for _, name := range strings.Split(f.types, ",") {
			name = strings.TrimSpace(name)
			typ, ok := txnlog.TypeByName(name)
			if !ok {
				return tf, fmt.Errorf("--type %q: not a logged transaction type (create, create2, createTtl, createContainer, delete, deleteContainer, setData, setACL, multi, reconfig, createSession, closeSession, error)", name)
			}
			tf.types[typ.String()] = true
		}
	}
	var base time.Time
	if f.since != "" || f.until != "" {
		base = firstLogTime(paths)
	}
	var err error
	if tf.since, err = forensics.ParseMoment(f.since, time.Local, base); err != nil {
		return tf, fmt.Errorf("--since: %w", err)
	}
	if tf.until, err = forensics.ParseMoment(f.until, time.Local, base); err != nil {
		return tf, fmt.Errorf("--until: %w", err)
	}
	return tf, nil
}

func runTxnlog(cmd *cobra.Command, arg string, f txnlogFlags) error {
	format, err := cliout.ParseFormat(f.output)
	if err != nil {
		return err
	}
	paths, err := logFiles(arg, warnSkipped(cmd))
	if err != nil {
		return err
	}
	tf, err := f.filter(paths)
	if err != nil {
		return err
	}
	var ix *forensics.AuditIndex
	if f.audit.given() {
		var keep forensics.AuditKeep
		if tf.path != "" {
			prefix := []byte(tf.path)
			keep.Node = func(znode []byte) bool { return bytes.HasPrefix(znode, prefix) }
		}
		if tf.hasSession {
			keep.Session = tf.session
		}
		// The transactions come in time order: the audit log is read
		// alongside, its events held for the window around them only.
		if ix, err = f.audit.stream(cmd.ErrOrStderr(), keep); err != nil {
			return err
		}
		defer ix.Close()
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10)
	defer out.Flush()
	var write func(item *txnItem) error
	if format == cliout.JSON {
		var jw jsonWriter
		var buf []byte
		write = func(item *txnItem) error {
			buf = jw.appendTxn(buf[:0], &item.txn, item.file)
			if item.who != nil {
				j, err := json.Marshal(describeWho(item.who))
				if err != nil {
					return err
				}
				buf = append(append(append(buf[:len(buf)-2], `,"audit":`...), j...), "}\n"...)
			}
			_, err := out.Write(buf)
			return err
		}
	} else {
		tw := newTxnTable(out)
		write = func(item *txnItem) error { return tw.write(&item.txn, whoNote(item.who)) }
	}
	var problems []error
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel() // a write that fails ends the reading too
	own := 0
	for batch := range readTransactions(ctx, paths, &tf, ix) {
		for i := range batch {
			item := &batch[i]
			if item.err != nil {
				problems = append(problems, item.err)
				out.Flush()
				fmt.Fprintln(cmd.ErrOrStderr(), "zkx txnlog:", item.err)
				continue
			}
			if item.who != nil && item.who.Match == forensics.MatchEvent {
				own++
			}
			if err := write(item); err != nil {
				return err
			}
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if ix != nil {
		auditMatched(cmd.ErrOrStderr(), ix, own)
	}
	if len(problems) > 0 {
		return &partialError{fmt.Errorf("%s in the logs, read past (each reported above with its file and offset)", plural(len(problems), "problem"))}
	}
	return nil
}

// txnItem is a transaction read and kept by the filters, with who made
// it when an audit log says, or a problem read past.
type txnItem struct {
	txn  forensics.Transaction
	file string
	who  *forensics.Who
	err  error
}

// txnBatch is how many transactions go to the writer at a time.
const txnBatch = 512

// readTransactions reads, decodes and filters the logs on a goroutine of
// its own — and finds who made each in ix, when not nil — sending batches
// in log order while the caller writes the ones before: reading and
// writing a large log overlap on two cores. The channel closes at the end
// of the logs, or when ctx ends.
func readTransactions(ctx context.Context, paths []string, tf *txnFilter, ix *forensics.AuditIndex) <-chan []txnItem {
	out := make(chan []txnItem, 8)
	go func() {
		defer close(out)
		logs := txnlog.OpenFiles(paths)
		defer logs.Close()
		batch := make([]txnItem, 0, txnBatch)
		send := func() bool {
			select {
			case out <- batch:
				batch = make([]txnItem, 0, txnBatch)
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			e, err := logs.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				batch = append(batch, txnItem{err: err})
			} else if t := forensics.Describe(e); tf.keep(&t) {
				item := txnItem{txn: t, file: logs.File()}
				if ix != nil {
					item.who = ix.Who(&item.txn)
				}
				batch = append(batch, item)
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

// txnTable writes transactions as a table streaming: fixed columns, so
// that nothing waits for the widest row.
type txnTable struct {
	out *bufio.Writer
	buf []byte
	// sec and secText cache the time's text to the second: a log holds
	// thousands of transactions a second.
	sec     int64
	secText []byte
}

func newTxnTable(w *bufio.Writer) *txnTable {
	zone, _ := time.Now().Zone()
	fmt.Fprintf(w, "%-23s  %-10s  %-18s  %-15s  %s\n", "TIME ("+zone+")", "ZXID", "SESSION", "TYPE", "PATH  WHAT")
	return &txnTable{out: w}
}

// opIndent puts a multi's operation under the TYPE column.
var opIndent = strings.Repeat(" ", 23+2+10+2+18+2)

// dataWidth bounds a data summary in the table.
const dataWidth = 60

// write writes a transaction's lines; note, when not empty, ends its
// first line.
func (tt *txnTable) write(t *forensics.Transaction, note string) error {
	b := tt.appendTime(tt.buf[:0], t.Time)
	b = append(b, "  "...)
	b = pad(append(b, "0x"...), strconv.FormatUint(uint64(t.Zxid), 16), 8)
	b = append(b, "  "...)
	b = pad(append(b, "0x"...), strconv.FormatUint(uint64(t.Session), 16), 16)
	b = append(b, "  "...)
	b = pad(b, t.Type, 15)
	b = append(b, "  "...)
	b = trimBlanks(appendWhat(b, t))
	if note != "" {
		b = appendLine(append(b, "  "...), note)
	}
	b = append(b, '\n')
	for i := range t.Ops {
		op := &t.Ops[i]
		b = append(b, opIndent...) // the operation goes under TYPE
		b = pad(append(b, "· "...), op.Type, 13)
		b = append(b, "  "...)
		b = trimBlanks(appendWhat(b, op))
		b = append(b, '\n')
	}
	tt.buf = b
	_, err := tt.out.Write(b)
	return err
}

// appendLine appends s as display.Line shows it, without its cost for
// the printable ASCII almost every path is.
func appendLine(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return append(b, display.Line(s)...)
		}
	}
	return append(b, s...)
}

// openACL reports whether acl is world:anyone with every permission,
// which the table leaves out.
func openACL(acl []jute.ACL) bool {
	return len(acl) == 1 && acl[0].Perms == jute.PermAll && acl[0].ID.Scheme == "world" && acl[0].ID.ID == "anyone"
}

// trimBlanks drops the blanks a line ends with.
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// appendTime appends "2006-01-02 15:04:05.000" in local time.
func (tt *txnTable) appendTime(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	sec := ms / 1000
	if ms < 0 {
		return t.AppendFormat(b, "2006-01-02 15:04:05.000")
	}
	if sec != tt.sec || tt.secText == nil {
		tt.sec, tt.secText = sec, time.Unix(sec, 0).AppendFormat(tt.secText[:0], "2006-01-02 15:04:05.")
	}
	b = append(b, tt.secText...)
	frac := ms % 1000
	return append(b, byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// pad appends s and blanks up to width.
func pad(b []byte, s string, width int) []byte {
	b = append(b, s...)
	for n := len(s); n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

// appendWhat appends a transaction's path and what it did.
func appendWhat(b []byte, t *forensics.Transaction) []byte {
	if t.Path != "" {
		b = appendLine(b, t.Path)
		b = append(b, "  "...)
	}
	switch t.Type {
	case "create", "create2", "createTtl", "createContainer":
		if t.NodeKind != "persistent" {
			b = append(b, t.NodeKind...)
			if t.TTLMs > 0 {
				b = append(b, " "...)
				b = append(b, (time.Duration(t.TTLMs) * time.Millisecond).String()...)
			}
			b = append(b, "  "...)
		}
		b = appendData(b, t)
		if !openACL(t.ACL) {
			b = append(b, "  acl "...)
			b = append(b, juteACLText(t.ACL)...)
		}
	case "setData", "reconfig":
		b = append(b, 'v')
		b = strconv.AppendInt(b, int64(t.Version), 10)
		b = append(b, "  "...)
		b = appendData(b, t)
	case "setACL":
		b = append(b, "aversion "...)
		b = strconv.AppendInt(b, int64(t.Version), 10)
		b = append(b, "  "...)
		b = append(b, juteACLText(t.ACL)...)
	case "check":
		b = append(b, "version "...)
		b = strconv.AppendInt(b, int64(t.Version), 10)
	case "deleteContainer":
		if t.Session == 0 {
			b = append(b, "by the server (empty container, or TTL passed)"...)
		}
	case "createSession":
		b = append(b, "timeout "...)
		b = strconv.AppendInt(b, int64(t.TimeoutMs), 10)
		b = append(b, " ms"...)
	case "closeSession":
		if t.ByServer {
			b = append(b, "expired (closed by the server)"...)
		} else {
			b = append(b, "closed by its client"...)
		}
		switch {
		case len(t.Removed) > 0:
			b = append(b, "; removed"...)
			for _, p := range t.Removed {
				b = appendLine(append(b, ' '), p)
			}
		case !t.RemovedKnown:
			b = append(b, "; the log does not say which ephemerals it removed"...)
		}
	case "error":
		b = appendErr(b, t.Err)
	case "multi":
		b = strconv.AppendInt(b, int64(len(t.Ops)), 10)
		b = append(b, " operations"...)
		if t.Failed {
			b = append(b, ", failed ("...)
			b = appendErr(b, t.FailedErr)
			b = append(b, "): nothing applied"...)
		}
	}
	return b
}

func appendErr(b []byte, code jute.Code) []byte {
	b = append(b, code.String()...)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(code), 10)
	return append(b, ')')
}

func appendData(b []byte, t *forensics.Transaction) []byte {
	switch {
	case !t.HasData:
		return append(b, "data null"...)
	case len(t.Data) == 0:
		return append(b, "data empty"...)
	}
	b = append(b, "data "...)
	return strconv.AppendQuote(b, summaryOf(t.Data))
}

// juteACLText writes a logged ACL as zkx setacl reads it.
func juteACLText(acl []jute.ACL) string {
	zacl := make([]zk.ACL, len(acl))
	for i, a := range acl {
		zacl[i] = zk.ACL{Perms: a.Perms, Scheme: a.ID.Scheme, ID: a.ID.ID}
	}
	return zkview.FormatACLSpec(zacl)
}

// dataJSON decodes data as zkx get does.
func dataJSON(t *forensics.Transaction) (*string, string) {
	data := t.Data
	if !t.HasData {
		data = nil
	}
	d := decode.DataAt(t.Path, data, decode.Auto)
	return &d.Text, string(d.Decoder)
}
