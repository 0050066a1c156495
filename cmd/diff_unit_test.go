package cmd

import (
	"errors"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
)

// TestDiffAndMirrorOptions: the two sides and the flags; diff ends every
// refusal with diff(1)'s trouble status, having said why on stderr.
func TestDiffAndMirrorOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	diff := parsed(t, func(run runFunc[*diffOptions]) *cobra.Command { return newDiffCommand(g, run) },
		"/app", "prod:/app", "--ignore", "lock-*", "--ignore", "**/leases/*", "-o", "json")
	if diff.a != "/app" || diff.b != "prod:/app" || len(diff.ignore) != 2 || diff.format != cliout.JSON || diff.timeout != 10*time.Minute {
		t.Errorf("diff /app prod:/app --ignore lock-* --ignore **/leases/* -o json: %+v", diff)
	}
	mirror := parsed(t, func(run runFunc[*mirrorOptions]) *cobra.Command { return newMirrorCommand(g, run) }, "backup.jsonl", "/app", "--dry-run")
	if mirror.src != "backup.jsonl" || mirror.dst != "/app" || !mirror.dryRun || mirror.yes || mirror.format != cliout.Table {
		t.Errorf("mirror backup.jsonl /app --dry-run: %+v", mirror)
	}

	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"/app"}, "zkx: diff takes two sides, A and B (got 1)\n"},
		{[]string{"-o", "yaml", "/a", "/b"}, "zkx: -o \"yaml\": want table or json\n"},
		{[]string{"--bogus", "/a", "/b"}, "zkx: unknown flag: --bogus\n"},
		// An error of the run itself is trouble too.
		{[]string{"/a", "/b"}, "zkx: " + errWouldRun.Error() + "\n"},
	} {
		stderr, err := execute(newDiffCommand(g, stopBeforeRun), c.args...)
		var status exitStatus
		if !errors.As(err, &status) || status != diffTrouble || stderr != c.stderr {
			t.Errorf("zkx diff %v: %v, stderr %q; want exit status %d and %q", c.args, err, stderr, diffTrouble, c.stderr)
		}
	}
	mirrorCmd := func() *cobra.Command { return newMirrorCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{mirrorCmd, []string{"/a"}, "accepts 2 arg(s), received 1"},
		{mirrorCmd, []string{"-o", "xml", "/a", "/b"}, `-o "xml": want table or json`},
	})
}
