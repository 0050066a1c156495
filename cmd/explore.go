package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui"
	"github.com/zkx-dev/zkx/zkview"
)

// exploreFlags are the root command's own flags: where the explorer
// starts and what it calls stuck.
type exploreFlags struct {
	path        string
	heldTooLong time.Duration
	// older, settle and the semaphores' maxima: what the explorer's
	// recipe pages judge by (see zkx queues, recipes and locks).
	older, settle  time.Duration
	maxes, maxFrom []string
	// dataDir and at open the explorer on the past (explore_past.go),
	// audit names who made each transaction there.
	dataDir, at string
	audit       auditFlags
}

func (f *exploreFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.path, "path", "/", "where the tree starts, e.g. /app/locks")
	cmd.Flags().DurationVar(&f.heldTooLong, "held-too-long", 10*time.Minute, "warn about lock holders older than this")
	cmd.Flags().DurationVar(&f.older, "older", 10*time.Minute, "a queue whose item has waited longer than this is stale")
	cmd.Flags().DurationVar(&f.settle, "settle", 2*time.Minute, "a partitioner whose item locks were not taken again this long after its party changed is stuck")
	cmd.Flags().StringArrayVar(&f.maxes, "max", nil, "a Curator semaphore's maximum, as in its clients' code: SEMAPHORE=N; repeatable")
	cmd.Flags().StringArrayVar(&f.maxFrom, "max-from", nil, "the SharedCount a Curator semaphore reads its maximum from: SEMAPHORE=COUNT; repeatable")
	cmd.Flags().StringVar(&f.dataDir, "data-dir", "", "open the explorer read-only on a ZooKeeper data directory's past instead of a server (see --at)")
	cmd.Flags().StringVar(&f.at, "at", "", "with --data-dir: the moment, a zxid (0x1f) or a time (\"2006-01-02 15:04:05\", 02:47); default the end of the logs")
	f.audit.register(cmd.Flags())
}

// runExplorer opens the TUI on --server.
func runExplorer(cmd *cobra.Command, g *globalOptions, f exploreFlags) error {
	start, err := zkview.CheckPath(f.path)
	if err != nil {
		return fmt.Errorf("--path: %w", err)
	}
	f.heldTooLong = g.heldTooLong(cmd, f.heldTooLong)
	if f.heldTooLong <= 0 {
		return fmt.Errorf("--held-too-long must be positive")
	}
	if f.older <= 0 || f.settle <= 0 {
		return fmt.Errorf("--older and --settle must be positive")
	}
	maxima, err := semaphoreMaxima(f.maxes, f.maxFrom, "/")
	if err != nil {
		return err
	}
	if !cliout.IsTerminal(os.Stdout) || !cliout.IsTerminal(os.Stdin) {
		return fmt.Errorf("the explorer needs a terminal; for scripts use zkx ls, tree, locks … -o json")
	}
	if f.dataDir != "" {
		return runPastExplorer(cmd, g, f, start)
	}
	if f.at != "" {
		return fmt.Errorf("--at needs --data-dir: it names a moment of a data directory's past")
	}
	if f.audit.given() {
		return fmt.Errorf("--audit needs --data-dir: it names who made the past's transactions")
	}
	// The connection is made under a screen that says what it waits for
	// and quits on q: a server that never answers must not leave the
	// user before a blank terminal.
	status := zkview.NewConnectStatus()
	limit := g.sessionTimeout + 5*time.Second
	ended := func(err error) error {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %v (--session-timeout + 5s): %w", limit, err)
		}
		return err
	}
	c, err := tui.Connect(cmd.Context(), g.server, status.Lines, func(ctx context.Context) (*zkview.Client, error) {
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		c, err := zkview.Dial(ctx, g.server, append(g.viewOptions(), zkview.WithConnectStatus(status))...)
		if err != nil {
			return nil, ended(err)
		}
		if _, err := c.Exists(ctx, start); err != nil {
			go c.Close() // waits up to a second for a server that may not answer
			return nil, ended(err)
		}
		return c, nil
	})
	if errors.Is(err, tui.ErrConnectCancelled) {
		return nil // the user quit
	}
	if err != nil {
		return err
	}
	defer c.Close()
	return tui.Run(cmd.Context(), tui.Config{
		Client: c, Connect: display.Line(g.server), ContextName: display.Line(g.contextName), ReadOnly: g.readonly, Path: start,
		HeldTooLong: f.heldTooLong, QueueStale: f.older, PartitionSettle: f.settle, SemaphoreMax: maxima,
		Introspect: g.introspectOptions(), Contexts: g.explorerContexts(),
	})
}

// explorerContexts lets the explorer list the contexts file's contexts
// and open one (:ctx), each as zkx --context NAME would open it.
func (g *globalOptions) explorerContexts() tui.Contexts {
	return tui.Contexts{
		List: func() ([]tui.ContextInfo, error) {
			f, err := g.contextsFile()
			if err != nil {
				return nil, err
			}
			var out []tui.ContextInfo
			for _, name := range f.Names() {
				c := f.Contexts[name]
				out = append(out, tui.ContextInfo{Name: name, Server: c.Server + c.Chroot, ReadOnly: c.ReadOnly || g.readonlyFlag})
			}
			return out, nil
		},
		Open: func(ctx context.Context, name string) (tui.Connection, error) {
			opts, err := g.forContext(name)
			if err != nil {
				return tui.Connection{}, err
			}
			c, err := opts.dial(ctx)
			if err != nil {
				return tui.Connection{}, err
			}
			return tui.Connection{Client: c, Connect: display.Line(opts.server), ContextName: display.Line(name), ReadOnly: opts.readonly,
				Introspect: opts.introspectOptions()}, nil
		},
	}
}
