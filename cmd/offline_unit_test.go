package cmd

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
)

// TestSnapshotOptions: -o and --path are checked before the file is
// opened.
func TestSnapshotOptions(t *testing.T) {
	t.Parallel()
	opts := parsed(t, func(run runFunc[*snapshotOptions]) *cobra.Command { return newSnapshotCommand(run) }, "snapshot.1f.gz", "--path", "/app", "--data", "-o", "json")
	if opts.file != "snapshot.1f.gz" || opts.path != "/app" || !opts.withData || opts.format != cliout.JSON {
		t.Errorf("snapshot snapshot.1f.gz --path /app --data -o json: %+v", opts)
	}
	snapshot := func() *cobra.Command { return newSnapshotCommand(stopBeforeRun) }
	checkRefusals(t, []refusal{
		{snapshot, []string{"f", "-o", "yaml"}, `-o "yaml": want table or json`},
		{snapshot, []string{"f", "--path", "app"}, "is relative"},
		{snapshot, nil, "accepts 1 arg(s), received 0"},
	})
}

// TestOfflineReadOptions: txnlog, audit and history check -o (and
// history its PATH) before any file is opened.
func TestOfflineReadOptions(t *testing.T) {
	t.Parallel()
	txnlog := parsed(t, func(run runFunc[*txnlogOptions]) *cobra.Command { return newTxnlogCommand(run) }, "/var/lib/zookeeper", "--path", "/app", "-o", "json")
	if txnlog.logs != "/var/lib/zookeeper" || txnlog.path != "/app" || txnlog.format != cliout.JSON {
		t.Errorf("txnlog /var/lib/zookeeper --path /app -o json: %+v", txnlog)
	}
	audit := parsed(t, func(run runFunc[*auditOptions]) *cobra.Command { return newAuditCommand(run) }, "zk1/audit.log", "zk2/audit.log", "--user", "ops")
	if len(audit.files) != 2 || audit.files[1] != "zk2/audit.log" || audit.user != "ops" || audit.format != cliout.Table {
		t.Errorf("audit zk1/audit.log zk2/audit.log --user ops: %+v", audit)
	}
	history := parsed(t, func(run runFunc[*historyOptions]) *cobra.Command { return newHistoryCommand(run) }, "/app/locks", "--data-dir", "/var/lib/zookeeper", "--report")
	if history.path != "/app/locks" || history.dataDir != "/var/lib/zookeeper" || !history.report {
		t.Errorf("history /app/locks --data-dir /var/lib/zookeeper --report: %+v", history)
	}
	checkRefusals(t, []refusal{
		{func() *cobra.Command { return newTxnlogCommand(stopBeforeRun) }, []string{"d", "-o", "yaml"}, `-o "yaml": want table or json`},
		{func() *cobra.Command { return newAuditCommand(stopBeforeRun) }, nil, "requires at least 1 arg(s), only received 0"},
		{func() *cobra.Command { return newHistoryCommand(stopBeforeRun) }, []string{"/app"}, `required flag(s) "data-dir" not set`},
		{func() *cobra.Command { return newHistoryCommand(stopBeforeRun) }, []string{"app", "--data-dir", "d"}, "is relative"},
	})
}
