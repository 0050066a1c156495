package cmd

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// setACLOptions are zkx setacl's flags and arguments.
type setACLOptions struct {
	globals *globalOptions
	version int // --version: the ACL's version the change is conditional on
	force   bool
	timeout time.Duration
	path    string
	acl     []zk.ACL
}

func newSetACLCommand(g *globalOptions, run runFunc[*setACLOptions]) *cobra.Command {
	opts := &setACLOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "setacl PATH ACL",
		Short: "Replace a node's ACL",
		Long: `setacl replaces PATH's ACL with ACL: comma-separated scheme:id:perms entries,
perms being letters of cdrwa (create, delete, read, write, admin):

  world:anyone:r            everyone may read
  digest:user:HASH:cdrwa    the digest identity user (HASH from zkx digest user:password)
  ip:10.0.0.0/8:r           clients from that network
  auth::cdrwa               every identity this session authenticated as (--auth)

A digest entry whose HASH is not a digest (a password by mistake) is refused.
When the new ACL would leave none of your identities (world:anyone, your --auth)
with ADMIN, you could never change it again: setacl asks on a terminal and
otherwise refuses unless --force. --version makes the change conditional on the
ACL's version (aversion), so a concurrent change is not overwritten.`,
		Example: `  zkx setacl /app/config world:anyone:r,digest:admin:fvr2cB/fjGeAiX8g1aGhUm3ZICk=:cdrwa   # zkx digest admin:secret
  zkx --auth digest:admin:secret setacl /app auth::cdrwa,world:anyone:r
  zkx setacl /app/config ip:10.0.0.0/8:cdrwa --version 3`,
		Args: cobra.ExactArgs(2),
		RunE: runE(opts, run),
	}
	cmd.Flags().IntVar(&opts.version, "version", -1, "only if the ACL's version (aversion) is this (-1: any)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "set an ACL that leaves you no ADMIN right without asking")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

func (o *setACLOptions) complete(args []string) (err error) {
	if o.globals.readonly {
		return fmt.Errorf("--readonly: zkx setacl writes")
	}
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	o.acl, err = zkview.ParseACL(args[1])
	return err
}

// runSetACL replaces the ACL of opts.path, once asked when it would leave
// the user no ADMIN right.
func runSetACL(ctx context.Context, opts *setACLOptions, std streams) error {
	conn, err := openConnection(ctx, opts.timeout, opts.globals.dial)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, c, p := conn.ctx, conn.client, opts.path
	w, err := c.Writer()
	if err != nil {
		return err
	}
	old, _, err := c.ACL(ctx, p)
	if err != nil {
		return err
	}
	if warning := adminWarning(opts.acl, c.Identities()); warning != "" && !opts.force {
		ok, err := confirmOnTerminal(std, warning+" Set it anyway?")
		if err != nil {
			return fmt.Errorf("%w (or --force)", err)
		}
		if !ok {
			return fmt.Errorf("ACL of %s not changed", p)
		}
	}
	st, err := w.SetACL(ctx, p, opts.acl, int32(opts.version))
	if err != nil {
		if zkview.IsBadVersion(err) {
			return fmt.Errorf("%w: the ACL changed since version %d; read it again (zkx stat %s)", err, opts.version, p)
		}
		return err
	}
	fmt.Fprintf(std.out, "%s: ACL %s → %s (version %d)\n", cliout.Clean(p),
		zkview.FormatACLSpec(old), zkview.FormatACLSpec(opts.acl), st.Aversion)
	return nil
}

// adminWarning says why an ACL may lock its setter out, or "".
func adminWarning(acl []zk.ACL, ids []zkview.Identity) string {
	granted, unsure := zkview.GrantsAdmin(acl, ids)
	switch {
	case granted:
		return ""
	case unsure:
		return "The new ACL grants ADMIN only to ip entries, which may not include the address the server sees for you: you may not be able to change it again."
	}
	var names []string
	for _, id := range ids {
		names = append(names, id.Scheme+":"+id.ID)
	}
	who := "you are not authenticated (--auth)"
	if len(names) > 0 {
		who = "you are " + strings.Join(names, ", ")
	}
	return "The new ACL grants ADMIN to none of your identities (" + who + "): you will not be able to change it again (only a super user can)."
}

// digestOptions are zkx digest's argument: USER:PASSWORD, or none to read
// it from stdin.
type digestOptions struct {
	credentials string
	fromStdin   bool
}

func newDigestCommand(run runFunc[*digestOptions]) *cobra.Command {
	opts := &digestOptions{}
	return &cobra.Command{
		Use:   "digest [USER:PASSWORD]",
		Short: "Print the digest ACL id of user:password",
		Long: `digest prints the id ZooKeeper's digest scheme gives USER:PASSWORD —
user:base64(sha1(user:password)) — as the ACL entry to give zkx setacl. Without
an argument it reads USER:PASSWORD from stdin, keeping the password out of the
process list and the shell history. Nothing is sent anywhere.`,
		Example: `  zkx digest admin:secret
  read -rs pw; printf 'admin:%s' "$pw" | zkx digest`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(opts, run),
	}
}

func (o *digestOptions) complete(args []string) error {
	o.credentials, o.fromStdin = "", len(args) == 0
	if len(args) == 1 {
		o.credentials = args[0]
	}
	return nil
}

// runDigest prints the digest ACL id of the credentials, read from stdin
// when not given.
func runDigest(_ context.Context, opts *digestOptions, std streams) error {
	in := opts.credentials
	if opts.fromStdin {
		line, err := bufio.NewReader(std.in).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("no user:password on stdin")
		}
		in = strings.TrimRight(line, "\r\n")
	}
	id, err := zkview.DigestID(in)
	if err != nil {
		return fmt.Errorf("digest: %w", err)
	}
	fmt.Fprintf(std.out, "digest:%s\n", id)
	return nil
}
