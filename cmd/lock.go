package cmd

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/recipes"
)

// lockOptions are zkx lock's flags and arguments; complete turns them
// into what runLocked takes.
type lockOptions struct {
	globals   *globalOptions
	format    string
	timeout   time.Duration
	data      string
	dataGiven bool // --data was given, even empty
	run       lockRunOptions
}

func newLockCommand(g *globalOptions, run runFunc[*lockOptions]) *cobra.Command {
	opts := &lockOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "lock PATH -- CMD [ARGS...]",
		Short: "Run a command while holding a ZooKeeper lock",
		Long: `lock acquires the lock in directory PATH (a Curator InterProcessMutex by default,
so Curator clients on the same path are excluded; --format kazoo for Kazoo's Lock),
runs CMD with its standard streams attached, releases the lock when CMD exits, and
exits with CMD's status.

CMD finds the lock's fencing token (the zxid that created its lock node, a number
that grows with every acquisition) in ZKX_LOCK_TOKEN, the node in ZKX_LOCK_PATH and
the session in ZKX_LOCK_SESSION.

If the lock is lost while CMD runs (the session expired, or someone deleted the lock
node), CMD gets SIGTERM, then SIGKILL 10s later, and zkx exits 75.
Other exit codes: 124 no lock within --timeout, 125 zkx failed (connection, lock),
126 CMD cannot run, 127 CMD not found, 128+N CMD killed by signal N.`,
		Example: `  zkx lock /app/locks/backup -- ./backup.sh
  zkx lock --timeout 30s --server zk1:2181,zk2:2181 /jobs/nightly -- make report
  zkx lock --format kazoo /kazoo/locks/deploy -- sh -c 'echo "token $ZKX_LOCK_TOKEN"'`,
		Args: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash != 1 || len(args) < 2 {
				return fmt.Errorf("want PATH -- CMD [ARGS...], e.g. zkx lock /locks/job -- ./job.sh")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dataGiven = cmd.Flags().Changed("data")
			return runE(opts, run)(cmd, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "curator", "lock layout: curator (InterProcessMutex) or kazoo (Lock)")
	f.DurationVar(&opts.timeout, "timeout", 0, "give up waiting for the lock after this long (0: wait forever)")
	f.StringVar(&opts.data, "data", "", "data of the lock node (default: this host and pid)")
	return cmd
}

func (o *lockOptions) complete(args []string) error {
	g := o.globals
	if g.readonly {
		return fmt.Errorf("--readonly: zkx lock would create a lock node")
	}
	format, err := recipes.ParseFormat(o.format)
	if err != nil {
		return err
	}
	target, err := g.connect()
	if err != nil {
		return err
	}
	dir, err := checkPath(args[0])
	if err != nil {
		return err
	}
	o.run = lockRunOptions{
		Servers: target.Servers, Dir: target.Abs(dir), DisplayDir: dir, Format: format,
		Timeout: o.timeout, SessionOpts: g.sessionOptions(), Command: args[1:],
	}
	if o.dataGiven {
		o.run.Data = []byte(o.data)
	}
	return nil
}

// runLock runs the command while holding the lock, and ends with its exit
// status (or zkx lock's own).
func runLock(ctx context.Context, opts *lockOptions, std streams) error {
	run := opts.run
	// The command gets the process's own stdin (a terminal stays one).
	run.Stdin, run.Stdout, run.Stderr = os.Stdin, std.out, std.errOut
	if code := runLocked(ctx, run); code != 0 {
		return exitStatus(code) // runLocked has said why on stderr
	}
	return nil
}
