package recognize

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"
)

// ClickHouse's distributed DDL queue (src/Interpreters/DDLTask.cpp,
// DDLWorker.cpp), at distributed_ddl's path (/clickhouse/task_queue/ddl):
//
//	query-SEQ             persistent sequential, a DDLLogEntry in text:
//	                      "version: N", "query: …", "hosts: ['h:9000',…]", "initiator: …"
//	query-SEQ/active/<h>  ephemeral: host h is executing it
//	query-SEQ/finished/<h>  persistent: host h is done (its ExecutionStatus)
//
// An entry is pending until every host it names has finished it.
const clickhouseSystemName = "clickhouse"

var clickhouseSystem = systemRecognizer{
	name: clickhouseSystemName,
	candidate: func(d listedDir) bool {
		if len(d.names) == 0 {
			return false
		}
		for _, n := range d.names {
			if !strings.HasPrefix(n.Name, "query-") || !n.HasSeq {
				return false
			}
		}
		return true
	},
	recognize: func(rc *recognizer, ctx context.Context, d listedDir) (Recipe, bool, error) {
		return rc.clickhouseDDL(ctx, d)
	},
}

// isClickHouseActive reports whether p is a DDL entry's active/: the hosts
// executing it, part of the queue above, not a group of its own.
func isClickHouseActive(p string) bool {
	entry := parseChildName(parent(p))
	return base(p) == "active" && strings.HasPrefix(entry.Name, "query-") && entry.HasSeq
}

// ddlEntry is what a DDLLogEntry says.
type ddlEntry struct {
	query string
	hosts []string
}

// parseDDLEntry reads DDLLogEntry::toString's text.
func parseDDLEntry(data []byte) (ddlEntry, bool) {
	var e ddlEntry
	lines := strings.Split(string(data), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "version: ") {
		return e, false
	}
	for _, l := range lines[1:] {
		switch {
		case strings.HasPrefix(l, "query: "):
			e.query = strings.TrimPrefix(l, "query: ")
		case strings.HasPrefix(l, "hosts: "):
			list := strings.Trim(strings.TrimPrefix(l, "hosts: "), "[]")
			for _, h := range strings.Split(list, ",") {
				if h = strings.Trim(strings.TrimSpace(h), "'"); h != "" {
					e.hosts = append(e.hosts, h)
				}
			}
		}
	}
	return e, e.query != ""
}

func (rc *recognizer) clickhouseDDL(ctx context.Context, d listedDir) (Recipe, bool, error) {
	names := append([]childName{}, d.names...)
	sortBySeq(names)
	names = names[max(len(names)-recQueueItems, 0):] // the newest: old entries are done and cleaned
	ms, err := rc.readMembers(ctx, d.path, names)
	if err != nil {
		return nil, true, err
	}
	root := d.path
	if parent(d.path) == "task_queue" {
		root = up(d.path, 2)
	}
	q := &Queue{Path: d.path, Format: clickhouseSystemName, Items: []QueueItem{},
		SystemTag: SystemTag{System: clickhouseSystemName, Role: "ddl-queue", SystemRoot: root}}
	b := rc.build(d.path)
	parsed := 0
	for _, m := range ms {
		e, ok := parseDDLEntry(m.data)
		if !ok {
			continue
		}
		parsed++
		finished, _, err := rc.list(ctx, path.Join(d.path, m.Name, "finished"))
		if err != nil {
			return nil, true, err
		}
		active, _, err := rc.list(ctx, path.Join(d.path, m.Name, "active"))
		if err != nil {
			return nil, true, err
		}
		if len(e.hosts) > 0 && len(finished) >= len(e.hosts) {
			continue // done everywhere
		}
		state := fmt.Sprintf("done on %d of %d hosts", len(finished), len(e.hosts))
		if len(active) > 0 {
			state += " · running on " + strings.Join(active, ",")
		}
		q.Items = append(q.Items, QueueItem{Node: m.Name, Data: clipText(e.query, 120) + " · " + state})
		if age := rc.opts.Now.Sub(time.UnixMilli(m.stat.Ctime)); age > rc.opts.HeldTooLong {
			b.warnf("%s pending for %v: %s", m.Name, age.Round(time.Second), state)
		}
	}
	if parsed == 0 && len(ms) > 0 {
		return nil, false, nil // query-SEQ of something else
	}
	q.Length = len(q.Items)
	q.Warnings = b.warn
	return q, true, nil
}

// clipText cuts s at n runes with "…".
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
