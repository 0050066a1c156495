package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/display"
)

func newRootCommand() *cobra.Command { return newRoot(&globalOptions{}) }

// newRoot builds the command tree around opts, which its flags fill.
func newRoot(opts *globalOptions) *cobra.Command {
	var explore exploreFlags
	root := &cobra.Command{
		Use:   "zkx",
		Short: "A terminal explorer for ZooKeeper coordination state",
		Long: `zkx shows what ZooKeeper coordination recipes are doing: who holds each lock,
who waits behind whom, queues and elections, live from watches.

Without a command it opens the explorer on --server: the tree with each node's data,
stat and ACL, recognised locks, queues and elections (Curator, Kazoo, ZooKeeper's
recipes, go-zookeeper, zkx), sessions and the ensemble. Press ? inside for keys.`,
		Example: `  zkx --server zk1:2181,zk2:2181,zk3:2181/app
  zkx --readonly --path /app/locks
  zkx --data-dir /var/lib/zookeeper --at 02:47 --audit /var/log/zookeeper   # the past, and who made each change
  zkx demo`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExplorer(cmd, opts, explore)
		},
	}
	explore.register(root)
	pf := root.PersistentFlags()
	var raw rawGlobals
	pf.StringVar(&opts.server, "server", "", "ZooKeeper connect string host:port[,host:port...][/chroot] (default: the context's, else $ZK_SERVERS, else "+defaultServer+")")
	pf.BoolVar(&opts.readonly, "readonly", false, "never change anything on the server")
	// No default shown: $ZKX_AUTH is read when the flag is absent, so that
	// neither the help nor the process list shows the credentials.
	pf.StringVar(&opts.auth, "auth", "", "credentials as digest:user:password (default: the context's; without a context $ZKX_AUTH, which keeps them out of the process list)")
	pf.DurationVar(&opts.sessionTimeout, "session-timeout", defaultSessionTimeout, "ZooKeeper session timeout")
	pf.DurationVar(&opts.memberTimeout, "member-timeout", defaultMemberTimeout, "how long each member of the ensemble has to answer (srvr, its session tables, its AdminServer; and which member the session goes to) before zkx names it as not answering and goes on without it")
	pf.StringVar(&raw.adminURLs, "admin-url", "", "the members' AdminServers, comma-separated (http://zk1:8080/commands,http://zk2:8080/commands,…), for client addresses and watches when the four-letter words are not whitelisted; $"+adminURLEnv+" when absent and no context is chosen")
	pf.IntVar(&opts.adminPort, "admin-port", defaultAdminPort, "where to look for a member's AdminServer when it refuses the four-letter words and --admin-url names none (0: do not look)")
	pf.StringVar(&raw.tls.CA, "tls-ca", "", "PEM file of the CA that signed the servers' certificates: connect over TLS (ZooKeeper's secureClientPort); $ZKX_TLS_CA when absent and no context is chosen")
	pf.StringVar(&raw.tls.Cert, "tls-cert", "", "PEM file of the client certificate, when the servers want one; $ZKX_TLS_CERT when absent and no context is chosen")
	pf.StringVar(&raw.tls.Key, "tls-key", "", "PEM file of the client certificate's key; $ZKX_TLS_KEY when absent and no context is chosen")
	pf.StringVar(&raw.tls.ServerName, "tls-server-name", "", "the name to check in the servers' certificates (default: the host dialled)")
	raw.sasl.register(pf)
	pf.StringVar(&raw.context, "context", "", "the named context of the contexts file to use (default: its current-context)")
	pf.StringVar(&raw.config, "config", "", "the contexts file (default "+displayConfigPath()+")")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		return opts.resolve(cmd, raw)
	}
	root.AddCommand(newVersionCommand(), newManCommand(), newServeCommand(&raw), newLockCommand(opts),
		newLsCommand(opts), newTreeCommand(opts), newGetCommand(opts), newStatCommand(opts),
		newLocksCommand(opts), newQueuesCommand(opts), newElectionsCommand(opts), newSystemsCommand(opts), newRecipesCommand(opts),
		newSessionsCommand(opts), newUnlockCommand(opts), newRevokeCommand(opts), newDemoCommand(opts), newContextCommand(&raw))
	root.AddCommand(newFindCommand(opts), newExportCommand(opts), newImportCommand(opts),
		newCopyCommand(opts), newMoveCommand(opts), newSetACLCommand(opts), newDigestCommand(),
		newWatchCommand(opts))
	root.AddCommand(newEditCommand(opts), newDiffCommand(opts), newMirrorCommand(opts), newWhoamiCommand(opts),
		newQuotaCommand(opts))
	root.AddCommand(newTxnlogCommand(), newHistoryCommand(), newSnapshotCommand(), newAuditCommand())
	return root
}

// exitStatus is a command's exit status when it has already said why
// (zkx lock passes on its command's).
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Run runs zkx with the process's arguments and returns the exit status;
// version is the build's version (main.version, set with -ldflags).
func Run(buildVersion string) int {
	version = buildVersion
	err := newRootCommand().Execute()
	var status exitStatus
	if err != nil && !errors.As(err, &status) {
		// What the user typed (--server, $ZK_SERVERS) and what the
		// network sent may hold escape sequences: shown, not obeyed.
		fmt.Fprintln(os.Stderr, errorLine(err))
	}
	return exitCode(err)
}

// errorLine is how zkx prints a command's error on stderr.
func errorLine(err error) string { return "zkx: " + display.Text(err.Error()) }

// exitCode is the exit status for a command's error: its own status (it
// has said why), 3 for a partial result, 1 for any other failure.
func exitCode(err error) int {
	var status exitStatus
	var partial *partialError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &partial):
		return exitPartial
	}
	return 1
}
