package cmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The tests of flag handling run one command, alone (not under the root:
// the global options are given as a value), up to its run function and
// no further: nothing is dialled or read.

// errWouldRun is what a command returns in those tests once its options
// are complete: it would run now.
var errWouldRun = errors.New("options complete: the command would run now")

// stopBeforeRun is a run function for the tests of refusals: it returns
// errWouldRun.
func stopBeforeRun[O options](context.Context, O, streams) error { return errWouldRun }

// captured keeps the options a command's run function was given.
type captured[O options] struct {
	opts  O
	calls int
}

func (c *captured[O]) run(_ context.Context, opts O, _ streams) error {
	c.opts, c.calls = opts, c.calls+1
	return nil
}

// execute runs cmd on args with empty streams and returns its error and
// what it wrote on stderr.
func execute(cmd *cobra.Command, args ...string) (string, error) {
	var errs bytes.Buffer
	if args == nil {
		args = []string{} // nil would have cobra read os.Args: the test binary's own
	}
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&errs)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return errs.String(), err
}

// refusal is a command line a command refuses before any I/O, and a part
// of the error it gives.
type refusal struct {
	command func() *cobra.Command
	args    []string
	want    string
}

// checkRefusals runs each command line up to its run function and wants
// its error.
func checkRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		cmd := c.command()
		_, err := execute(cmd, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("zkx %s %v: error %v, want one containing %q", cmd.Name(), c.args, err, c.want)
		}
	}
}

// parsed runs cmd on args up to its run function and returns the options
// it would run with; the test fails when they are not complete.
func parsed[O options](t *testing.T, build func(runFunc[O]) *cobra.Command, args ...string) O {
	t.Helper()
	var got captured[O]
	cmd := build(got.run)
	if _, err := execute(cmd, args...); err != nil || got.calls != 1 {
		t.Fatalf("zkx %s %v: %v (run %d times), want it to run", cmd.Name(), args, err, got.calls)
	}
	return got.opts
}
