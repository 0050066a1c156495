package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/recipes"
)

func newLockCommand(g *globalOptions) *cobra.Command {
	var (
		format  string
		timeout time.Duration
		data    string
	)
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
			if g.readonly {
				return fmt.Errorf("--readonly: zkx lock would create a lock node")
			}
			f, err := recipes.ParseFormat(format)
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
			opts := lockRunOptions{
				Servers: target.Servers, Dir: target.Abs(dir), DisplayDir: dir, Format: f,
				Timeout: timeout, SessionOpts: g.sessionOptions(), Command: args[1:],
				Stdin: os.Stdin, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
			}
			if cmd.Flags().Changed("data") {
				opts.Data = []byte(data)
			}
			if code := runLocked(cmd.Context(), opts); code != 0 {
				return exitStatus(code) // runLocked has said why on stderr
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "curator", "lock layout: curator (InterProcessMutex) or kazoo (Lock)")
	f.DurationVar(&timeout, "timeout", 0, "give up waiting for the lock after this long (0: wait forever)")
	f.StringVar(&data, "data", "", "data of the lock node (default: this host and pid)")
	return cmd
}
