package cmd

import (
	"context"
	"io"

	"github.com/spf13/cobra"
)

// Every command is built the same way (CONTRIBUTING.md, "Adding a
// command"): its flags and arguments fill an options struct, which checks
// itself without any I/O (complete); a run function then does the work
// with a context, the options and the command's streams. The cobra
// command is only the glue between the two, so that the tests of flag
// handling run the command up to run and no further, and the tests of
// output feed the writing functions model values: neither needs a server.

// streams are a command's standard streams: the process's, or a test's
// buffers (cobra's In, Out and Err).
type streams struct {
	in     io.Reader
	out    io.Writer
	errOut io.Writer
}

// streamsOf are cmd's streams.
func streamsOf(cmd *cobra.Command) streams {
	return streams{in: cmd.InOrStdin(), out: cmd.OutOrStdout(), errOut: cmd.ErrOrStderr()}
}

// options are a command's flags and arguments: complete takes the
// arguments and checks everything, before anything is dialled or read.
type options interface {
	complete(args []string) error
}

// runFunc does a command's work with its options once they are complete.
// The command's constructor takes it, so that a test can run the
// command up to it.
type runFunc[O options] func(ctx context.Context, opts O, std streams) error

// runE is the RunE of a command with options opts: complete them from
// the arguments, then run.
func runE[O options](opts O, run runFunc[O]) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := opts.complete(args); err != nil {
			return err
		}
		return run(cmd.Context(), opts, streamsOf(cmd))
	}
}
