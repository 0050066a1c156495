package cmd

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// TestFindOptions: the conditions become the query; bad ones are refused
// before the walk.
func TestFindOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	opts := parsed(t, func(run runFunc[*findOptions]) *cobra.Command { return newFindCommand(g, run) },
		"/app", "--name", "lock-*", "--ephemeral", "--owner", "0x10a", "--older", "90s", "-o", "json")
	q := opts.query
	if opts.root != "/app" || q.Name == nil || !q.Ephemeral || q.Owner != 0x10a || q.Older != 90*time.Second ||
		opts.walk.format != cliout.JSON || opts.walk.concurrency != 192 {
		t.Errorf("find /app --name lock-* --ephemeral --owner 0x10a --older 90s: %+v", opts)
	}
	find := func() *cobra.Command { return newFindCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{find, []string{"/app", "--name", "[a-"}, "--name: "},
		{find, []string{"/app", "--data", "/(/"}, "--data: "},
		{find, []string{"/app", "--owner", "zz"}, "--owner: "},
		{find, []string{"/app", "--older", "-1s"}, "--older must not be negative"},
		{find, []string{"app"}, "is relative"},
		{find, []string{"/app", "--concurrency", "0"}, "--concurrency and --connections must be at least 1"},
	})
}

// TestFindLinesAndEnd: a node that could not be read is marked on its
// line; the exit status is grep's, 3 when nodes were not searched.
func TestFindLinesAndEnd(t *testing.T) {
	t.Parallel()
	warn := cliout.NewStyles(&strings.Builder{}).Warn
	if got := foundLine(warn, zkview.WalkNode{Path: "/a/lock-1"}); got != "/a/lock-1" {
		t.Errorf("a match: %q", got)
	}
	got := foundLine(warn, zkview.WalkNode{Path: "/a/\x1b]0;x\x07", Err: errors.New("list: not authenticated")})
	if got != `/a/\x1b]0;x\x07 (unreadable, not searched below: list: not authenticated)` {
		t.Errorf("a node that could not be read: %q", got)
	}
	var status exitStatus
	if err := findEnded(zkview.FindStats{Visited: 5}); !errors.As(err, &status) || status != 1 {
		t.Errorf("nothing matched: %v, want exit status 1", err)
	}
	if err := findEnded(zkview.FindStats{Visited: 5, Matched: 2}); err != nil {
		t.Errorf("2 matched: %v", err)
	}
	err := findEnded(zkview.FindStats{Visited: 5, Matched: 2, Unreadable: 1, NoRead: 1})
	var partial *partialError
	if !errors.As(err, &partial) || exitCode(err) != exitPartial || !strings.Contains(err.Error(), "1 node could not be read") ||
		!strings.Contains(err.Error(), "pass --auth") || !strings.Contains(err.Error(), "2 nodes matched") {
		t.Errorf("a node not searched: %v (exit %d)", err, exitCode(err))
	}
}
