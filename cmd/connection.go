package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// connection is a command's session with the ensemble (a client, or the
// sessions a walk reads over) and the context its requests run in, which
// ends at --timeout. Close ends both. The output format is not part of
// it: it is an option, checked before anything is dialled.
type connection[C interface{ Close() }] struct {
	client C
	ctx    context.Context
	cancel context.CancelFunc
}

// Close closes the client, then ends the context.
func (c *connection[C]) Close() {
	c.client.Close()
	c.cancel()
}

// openConnection dials with a context that ends after timeout; a dial
// that runs out of it names --timeout.
func openConnection[C interface{ Close() }](ctx context.Context, timeout time.Duration, dial func(context.Context) (C, error)) (*connection[C], error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	client, err := dial(ctx)
	if err != nil {
		cancel()
		return nil, timedOut(err, timeout)
	}
	return &connection[C]{client: client, ctx: ctx, cancel: cancel}, nil
}

// readOptions are the flags of every scriptable read command: -o and
// --timeout.
type readOptions struct {
	output  string        // -o as given
	format  cliout.Format // -o, once checked
	timeout time.Duration
}

func (r *readOptions) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&r.output, "output", "o", "table", "output format: table or json")
	cmd.Flags().DurationVar(&r.timeout, "timeout", 30*time.Second, "give up after this long")
}

// check reads -o and checks --timeout.
func (r *readOptions) check() error {
	format, err := cliout.ParseFormat(r.output)
	if err != nil {
		return err
	}
	if r.timeout <= 0 {
		return fmt.Errorf("--timeout must be positive")
	}
	r.format = format
	return nil
}

// connect opens a session on g's ensemble for the command's --timeout.
func (r *readOptions) connect(ctx context.Context, g *globalOptions) (*connection[*zkview.Client], error) {
	return openConnection(ctx, r.timeout, g.dial)
}

// walkOptions are the flags of the commands that walk a subtree (tree,
// find): the read flags, and how the walk reads.
type walkOptions struct {
	readOptions
	concurrency, connections int
	batch                    bool
}

func (w *walkOptions) register(cmd *cobra.Command) {
	w.readOptions.register(cmd)
	cmd.Flags().IntVar(&w.concurrency, "concurrency", 192, "listings in flight")
	cmd.Flags().IntVar(&w.connections, "connections", 12, "sessions to read over (a server works through each connection in order)")
	cmd.Flags().BoolVar(&w.batch, "batch", true, batchFlagHelp)
}

// check checks the walk's flags, then the read flags.
func (w *walkOptions) check() error {
	if w.concurrency < 1 || w.connections < 1 {
		return fmt.Errorf("--concurrency and --connections must be at least 1")
	}
	return w.readOptions.check()
}

// connect opens the sessions the walk reads over, for the command's
// --timeout.
func (w *walkOptions) connect(ctx context.Context, g *globalOptions) (*connection[zkview.BulkReader], error) {
	return openConnection(ctx, w.timeout, func(ctx context.Context) (zkview.BulkReader, error) {
		return g.dialBulk(ctx, w.connections, w.batch)
	})
}

// options are the walk's settings for zkview.Walk and zkview.Find.
func (w *walkOptions) options() zkview.WalkOptions {
	return zkview.WalkOptions{Concurrency: w.concurrency}
}
