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

func newSetACLCommand(g *globalOptions) *cobra.Command {
	var version int
	var force bool
	var timeout time.Duration
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.readonly {
				return fmt.Errorf("--readonly: zkx setacl writes")
			}
			p, err := checkPath(args[0])
			if err != nil {
				return err
			}
			acl, err := zkview.ParseACL(args[1])
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			c, err := g.dial(ctx)
			if err != nil {
				return timedOut(err, timeout)
			}
			defer c.Close()
			w, err := c.Writer()
			if err != nil {
				return err
			}
			old, _, err := c.ACL(ctx, p)
			if err != nil {
				return err
			}
			if warning := adminWarning(acl, c.Identities()); warning != "" && !force {
				ok, err := confirmOnTerminal(streamsOf(cmd), warning+" Set it anyway?")
				if err != nil {
					return fmt.Errorf("%w (or --force)", err)
				}
				if !ok {
					return fmt.Errorf("ACL of %s not changed", p)
				}
			}
			st, err := w.SetACL(ctx, p, acl, int32(version))
			if err != nil {
				if zkview.IsBadVersion(err) {
					return fmt.Errorf("%w: the ACL changed since version %d; read it again (zkx stat %s)", err, version, p)
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ACL %s → %s (version %d)\n", cliout.Clean(p),
				zkview.FormatACLSpec(old), zkview.FormatACLSpec(acl), st.Aversion)
			return nil
		},
	}
	cmd.Flags().IntVar(&version, "version", -1, "only if the ACL's version (aversion) is this (-1: any)")
	cmd.Flags().BoolVar(&force, "force", false, "set an ACL that leaves you no ADMIN right without asking")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
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

func newDigestCommand() *cobra.Command {
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
		RunE: func(cmd *cobra.Command, args []string) error {
			in := ""
			if len(args) == 1 {
				in = args[0]
			} else {
				line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
				if err != nil && line == "" {
					return fmt.Errorf("no user:password on stdin")
				}
				in = strings.TrimRight(line, "\r\n")
			}
			id, err := zkview.DigestID(in)
			if err != nil {
				return fmt.Errorf("digest: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "digest:%s\n", id)
			return nil
		},
	}
}
