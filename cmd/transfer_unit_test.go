package cmd

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// TestTransferOptions: export, import, cp and mv turn their flags into
// the transfer's settings, and refuse what they cannot do before they
// read a file or dial.
func TestTransferOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	imp := parsed(t, func(run runFunc[*importOptions]) *cobra.Command { return newImportCommand(g, run) },
		"app.jsonl", "--to", "/restored", "--skip-existing", "--dry-run", "-o", "json")
	if imp.name != "app.jsonl" || imp.to != "/restored" || imp.flags.format != cliout.JSON || imp.flags.timeout != 30*time.Minute ||
		!sameImport(imp.flags.settings, transfer.ImportOptions{To: "/restored", DryRun: true, Existing: transfer.Skip}) {
		t.Errorf("import app.jsonl --to /restored --skip-existing --dry-run -o json: %+v", imp)
	}
	cp := parsed(t, func(run runFunc[*copyOptions]) *cobra.Command { return newCopyCommand(g, run) }, "/app", "/app-copy", "--overwrite", "--ephemerals")
	if cp.src != "/app" || cp.dst != "/app-copy" || !sameImport(cp.flags.settings, transfer.ImportOptions{To: "/app-copy", Ephemerals: true, Existing: transfer.Overwrite}) {
		t.Errorf("cp /app /app-copy --overwrite --ephemerals: %+v", cp)
	}
	mv := parsed(t, func(run runFunc[*moveOptions]) *cobra.Command { return newMoveCommand(g, run) }, "/a", "/b", "--yes", "--force")
	if mv.src != "/a" || mv.dst != "/b" || !mv.yes || !mv.force || mv.flags.settings.To != "/b" {
		t.Errorf("mv /a /b --yes --force: %+v", mv)
	}
	exp := parsed(t, func(run runFunc[*exportOptions]) *cobra.Command { return newExportCommand(g, run) }, "/app", "--connections", "3")
	if exp.spec != "/app" || exp.connections != 3 || exp.concurrency != 192 || exp.timeout != 30*time.Minute {
		t.Errorf("export /app --connections 3: %+v", exp)
	}

	importCmd := func() *cobra.Command { return newImportCommand(g, stopBeforeRun) }
	cpCmd := func() *cobra.Command { return newCopyCommand(g, stopBeforeRun) }
	mvCmd := func() *cobra.Command { return newMoveCommand(g, stopBeforeRun) }
	exportCmd := func() *cobra.Command { return newExportCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{importCmd, []string{"f", "--overwrite", "--skip-existing"}, "--overwrite and --skip-existing exclude each other"},
		{importCmd, []string{"f", "--to", "rel"}, "--to: "},
		{importCmd, []string{"f", "-o", "yaml"}, `-o "yaml": want table or json`},
		{importCmd, []string{"f", "--timeout", "0s"}, "--timeout must be positive"},
		{func() *cobra.Command { return newImportCommand(&globalOptions{readonly: true}, stopBeforeRun) }, []string{"f"}, "--readonly: zkx import writes"},
		{cpCmd, []string{"/a", "/a/inside"}, "/a/inside is inside /a: the copy would copy itself"},
		{cpCmd, []string{"/", "/b"}, "the root cannot be copied or moved as a whole"},
		{cpCmd, []string{"/a", "/zookeeper/a"}, "/zookeeper belongs to ZooKeeper itself"},
		{cpCmd, []string{"/a", "b"}, "is relative"},
		{mvCmd, []string{"/a", "/b", "--overwrite"}, "mv does not --overwrite"},
		{mvCmd, []string{"/a", "/b", "--ephemerals"}, "mv does not take --ephemerals"},
		{mvCmd, []string{"/a", "/a"}, "/a is the source itself"},
		{exportCmd, []string{"/app", "--concurrency", "0"}, "--timeout, --concurrency and --connections must be positive"},
		{exportCmd, nil, "accepts 1 arg(s), received 0"},
	})
}

// sameImport compares import settings but for their progress callback
// (a func, which Go does not compare).
func sameImport(a, b transfer.ImportOptions) bool {
	return a.To == b.To && a.DryRun == b.DryRun && a.Ephemerals == b.Ephemerals && a.Existing == b.Existing
}
