package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// errNotConfirmed is a mirror the user did not confirm.
var errNotConfirmed = errors.New("not confirmed: nothing written")

// mirrorJSON is zkx mirror -o json: the report, and the plan of a dry run.
type mirrorJSON struct {
	transfer.MirrorReport
	Plan []transfer.MirrorOp `json:"plan,omitempty"`
}

func newMirrorCommand(g *globalOptions) *cobra.Command {
	var output string
	var ignore []string
	var dryRun, yes bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "mirror SRC DST",
		Short: "Make the subtree DST equal to SRC, deleting only what SRC lacks",
		Long: `mirror makes DST a copy of SRC: it creates the nodes SRC has and DST lacks (with
their data and ACLs), replaces the data and ACLs that differ, and deletes the
nodes of DST that SRC lacks — nothing else. SRC is /path, CONTEXT:/path, a file
zkx export wrote, or DIR@MOMENT:/path — the subtree as it was at that moment of
a data directory's past (zkx diff says more); DST is /path or CONTEXT:/path (it
is created when it does not exist, its parent must).

It compares the two as zkx diff does (streams, neither tree held), then writes in
transactions (multi) of up to 1000 operations or 512 KiB. Every set and delete is
conditional on the version it read, so a DST that someone changes meanwhile fails
that transaction instead of losing the change; run mirror again to go on. ACLs,
which a transaction cannot set, follow each transaction, each conditional on its
ACL version. Ephemeral nodes belong to live sessions and are left alone on both
sides: SRC's are not recreated, DST's are not deleted (nor the nodes above them);
the plan says so ("skip").
--ignore leaves nodes alone on both sides, as in zkx diff.

--dry-run prints the plan — every create, set, setacl and delete, with the
version each is conditional on, and each ephemeral node left alone — and writes
nothing. Without it, zkx asks on a
terminal after showing what the plan holds; elsewhere it needs --yes. With
--readonly (or a read-only context for DST) mirror is refused.

-o json prints one object: created, updated, acls, deleted, ephemeral (left
alone), refused, refusals [{path, reason}], transactions, dry_run,
source_nodes, destination_nodes, and with --dry-run plan [{op, path, version,
bytes, reason}] (op: create, set, setacl, delete, or skip with its reason).`,
		Example: `  zkx mirror prod:/config staging:/config --dry-run
  zkx mirror /var/lib/zookeeper@02:45:/app/config /app/config --dry-run   # put back what 02:46 overwrote
  zkx mirror backup.jsonl /app --yes
  zkx mirror /app dr:/app --ignore 'lock-*' --yes`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := cliout.ParseFormat(output)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			run := func(dry bool, planned func(transfer.MirrorOp)) (transfer.MirrorReport, *side, error) {
				src, err := openSide(ctx, cmd, g, args[0], true)
				if err != nil {
					return transfer.MirrorReport{}, nil, err
				}
				defer src.close()
				if src.missing {
					return transfer.MirrorReport{}, nil, fmt.Errorf("%s: %s does not exist", src.spec, src.root)
				}
				dst, err := openSide(ctx, cmd, g, args[1], false)
				if err != nil {
					return transfer.MirrorReport{}, nil, err
				}
				defer dst.close()
				if dst.past != nil {
					return transfer.MirrorReport{}, dst, fmt.Errorf("%s: the past is read-only; put it back into a live DST (zkx mirror DIR@MOMENT:/path /path)", dst.spec)
				}
				if dst.opts.readonly {
					return transfer.MirrorReport{}, dst, fmt.Errorf("%s is read-only (--readonly, or its context's readonly): zkx mirror writes", dst.spec)
				}
				c, bw, err := openWriter(ctx, dst.opts, "mirror")
				if err != nil {
					return transfer.MirrorReport{}, dst, err
				}
				defer c.Close()
				defer bw.Close()
				rep, err := transfer.Mirror(ctx, bw, src.src, dst.src, transfer.MirrorOptions{DryRun: dry, Ignore: ignore, Planned: planned})
				return rep, dst, err
			}
			out := cmd.OutOrStdout()
			if dryRun {
				var plan []transfer.MirrorOp
				st := cliout.NewStyles(out)
				rep, _, err := run(true, func(op transfer.MirrorOp) {
					if format == cliout.JSON {
						plan = append(plan, op)
						return
					}
					fmt.Fprintln(out, planLine(st, op))
				})
				if err != nil {
					return timedOut(err, timeout)
				}
				return writeMirrorReport(out, rep, plan, format)
			}
			if !yes {
				rep, dst, err := run(true, nil)
				if err != nil {
					return timedOut(err, timeout)
				}
				if rep.Created+rep.Updated+rep.ACLs+rep.Deleted == 0 {
					return writeMirrorReport(out, rep, nil, format)
				}
				ok, err := confirmOnTerminal(cmd, fmt.Sprintf("mirror %s onto %s: create %d, set %d, set %d ACLs, delete %d?",
					args[0], dst.spec, rep.Created, rep.Updated, rep.ACLs, rep.Deleted))
				if err != nil {
					return err
				}
				if !ok {
					return errNotConfirmed
				}
			}
			rep, _, err := run(false, nil)
			if werr := writeMirrorReport(out, rep, nil, format); err == nil && werr != nil {
				return werr
			}
			if err != nil {
				return timedOut(err, timeout)
			}
			if rep.Refused > 0 {
				return &partialError{fmt.Errorf("%s refused", plural(rep.Refused, "node"))}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	cmd.Flags().StringArrayVar(&ignore, "ignore", nil, "leave nodes matching this glob alone on both sides, with their subtrees (as zkx diff); repeatable")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan, write nothing")
	cmd.Flags().BoolVar(&yes, "yes", false, "write without asking")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after this long")
	return cmd
}

// planLine is one planned write for people.
func planLine(st cliout.Styles, op transfer.MirrorOp) string {
	s := fmt.Sprintf("%-6s %s", op.Op, cliout.Clean(op.Path))
	var notes []string
	if op.Bytes != nil {
		notes = append(notes, plural(*op.Bytes, "byte"))
	}
	if op.Version != nil {
		what := "version"
		if op.Op == "setacl" {
			what = "ACL version"
		}
		notes = append(notes, fmt.Sprintf("if still %s %d", what, *op.Version))
	}
	if len(notes) > 0 {
		s += st.Dim("  (" + strings.Join(notes, ", ") + ")")
	}
	if op.Reason != "" {
		s += st.Dim("  (" + op.Reason + ")")
	}
	if op.Op == "delete" {
		return st.Warn(s)
	}
	return s
}

func writeMirrorReport(out io.Writer, rep transfer.MirrorReport, plan []transfer.MirrorOp, format cliout.Format) error {
	if format == cliout.JSON {
		rep.Refusals = nonNil(rep.Refusals)
		return cliout.WriteJSON(out, mirrorJSON{MirrorReport: rep, Plan: plan})
	}
	st := cliout.NewStyles(out)
	done := "created %d, set %d, set %d ACLs, deleted %d"
	if rep.DryRun {
		done = "would create %d, set %d, set %d ACLs, delete %d"
	}
	fmt.Fprintf(out, done+"; %d ephemeral left alone, %d refused — in %s (source %s, destination %s)\n",
		rep.Created, rep.Updated, rep.ACLs, rep.Deleted, rep.Ephemeral, rep.Refused, plural(rep.Transactions, "transaction"),
		plural(rep.SourceNodes, "node"), plural(rep.DestinationNodes, "node"))
	for _, r := range rep.Refusals {
		fmt.Fprintf(out, "  %s %s: %s\n", st.Warn("refused"), cliout.Clean(r.Path), cliout.Clean(r.Reason))
	}
	if rep.Refused > len(rep.Refusals) {
		fmt.Fprintf(out, "  … and %d more\n", rep.Refused-len(rep.Refusals))
	}
	return nil
}
