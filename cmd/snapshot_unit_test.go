package cmd

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
)

// TestSnapshotOptions: -o and --path are checked before the file is
// opened.
func TestSnapshotOptions(t *testing.T) {
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
