package syslayout

import (
	"context"
	"path"
)

// ClickHouse lays out the distributed DDL queue under root
// (distributed_ddl's path, /clickhouse/task_queue/ddl by default), as
// src/Interpreters/DDLTask.cpp and DDLWorker.cpp write it: entries
// query-SEQ (persistent sequential; DDLLogEntry::toString: "version: 1",
// the escaped query, hosts as ['host:port',…], the initiator), each with
// active/ (a host executing it: ephemeral, in that host's session) and
// finished/ (a host done: persistent, its ExecutionStatus "0\n").
// The first entry is done on both hosts; the second is done on ch-1 and
// running on ch-2.
func (l *Layout) ClickHouse(ctx context.Context, root string) error {
	hosts := "['ch-1:9000','ch-2:9000']"
	entry := func(query string) []byte {
		return []byte("version: 1\nquery: " + query + "\nhosts: " + hosts + "\ninitiator: ch-1:9000\n")
	}
	first, err := l.sequential(ctx, path.Join(root, "query-"), entry("CREATE TABLE default.events ON CLUSTER main (ts DateTime, id UInt64) ENGINE = MergeTree ORDER BY ts"))
	if err != nil {
		return err
	}
	second, err := l.sequential(ctx, path.Join(root, "query-"), entry("ALTER TABLE default.events ON CLUSTER main ADD COLUMN country String"))
	if err != nil {
		return err
	}
	for _, q := range []string{first, second} {
		if err := l.persistent(ctx, path.Join(q, "active"), nil); err != nil {
			return err
		}
	}
	for _, done := range []string{path.Join(first, "finished/ch-1:9000"), path.Join(first, "finished/ch-2:9000"), path.Join(second, "finished/ch-1:9000")} {
		if err := l.persistent(ctx, done, []byte("0\n")); err != nil {
			return err
		}
	}
	_, err = l.ephemeral(ctx, "clickhouse-2", path.Join(second, "active/ch-2:9000"), nil, false)
	return err
}
