package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// copyArgs checks SRC and DST.
func copyArgs(args []string) (string, string, error) {
	src, err := checkPath(args[0])
	if err != nil {
		return "", "", err
	}
	dst, err := checkPath(args[1])
	if err != nil {
		return "", "", err
	}
	return src, dst, transfer.CheckDestination(src, dst)
}

func newCopyCommand(g *globalOptions) *cobra.Command {
	var flags importFlags
	cmd := &cobra.Command{
		Use:   "cp SRC DST",
		Short: "Copy a subtree (data and ACLs) to another path",
		Long: `cp reads SRC and everything below it (data and ACLs, batched as zkx export reads)
and recreates it at DST as zkx import would: DST's parent must exist, nodes that
exist at DST are refused unless --skip-existing or --overwrite, ephemeral nodes
are left out unless --ephemerals (then created persistent). The report is
zkx import's; exit status 3 when some nodes were refused.`,
		Example: `  zkx cp /app/config /app/config-backup
  zkx cp /app /app-staging --dry-run`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, dst, err := copyArgs(args)
			if err != nil {
				return err
			}
			opts, format, err := flags.options(dst)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			r, bw, done, err := openCopy(ctx, g, "cp", flags.timeout)
			if err != nil {
				return err
			}
			defer done()
			if _, _, err := r.Children(ctx, src); err != nil {
				return err
			}
			return runImport(ctx, cmd, bw, transfer.WalkSource(ctx, r, src), opts, format, flags.timeout)
		},
	}
	flags.register(cmd)
	return cmd
}

func newMoveCommand(g *globalOptions) *cobra.Command {
	var flags importFlags
	var yes, force bool
	cmd := &cobra.Command{
		Use:   "mv SRC DST",
		Short: "Move a subtree: copy it, then delete the source",
		Long: `mv copies SRC to DST as zkx cp does, then deletes SRC — only when every node was
copied, and only as it was copied: each delete carries the version that was read,
so a node changed or added meanwhile is kept (with the rest of the source) and
the report says which. Nothing is ever deleted that is not at DST.

A source that holds ephemeral nodes is refused unless --force: they cannot be
recreated as their owner's, so --force leaves them out of the copy and deletes
them with the source. On a terminal mv asks first, naming what will change;
--yes answers for scripts (without a terminal and without --yes it refuses).`,
		Example: `  zkx mv /app/old-name /app/new-name
  zkx mv /staging/config /prod/config --yes`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, dst, err := copyArgs(args)
			if err != nil {
				return err
			}
			opts, format, err := flags.options(dst)
			if err != nil {
				return err
			}
			if flags.overwrite {
				return fmt.Errorf("mv does not --overwrite: it would delete nodes it did not copy")
			}
			if flags.ephemerals {
				return fmt.Errorf("mv does not take --ephemerals: an ephemeral node cannot be recreated as its owner's (--force leaves them behind and deletes them)")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			r, bw, done, err := openCopy(ctx, g, "mv", flags.timeout)
			if err != nil {
				return err
			}
			defer done()
			survey, err := transfer.SurveyTree(ctx, r, src)
			if err != nil {
				return err
			}
			if survey.Unreadable > 0 {
				return fmt.Errorf("%s: %s cannot be read (%s): they could not be copied, so nothing is moved", src, plural(survey.Unreadable, "node"), whyUnreadable(survey.Unreadable, survey.NoRead, "shown by zkx tree"))
			}
			if survey.Ephemeral > 0 && !force {
				return fmt.Errorf("%s holds %s: they cannot be recreated as their owner's; --force leaves them out and deletes them with the source", src, plural(survey.Ephemeral, "ephemeral node"))
			}
			question := fmt.Sprintf("Move %s from %s to %s, then delete %s?", plural(survey.Nodes, "node"), cliout.Clean(src), cliout.Clean(dst), cliout.Clean(src))
			if survey.Ephemeral > 0 {
				question += fmt.Sprintf(" %s will be deleted, not moved: their owners lose them.", plural(survey.Ephemeral, "ephemeral node"))
			}
			if !yes && !opts.DryRun {
				ok, err := confirmOnTerminal(cmd, question)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("not moved")
				}
			}
			progress := newProgress(cmd.ErrOrStderr())
			opts.Progress = func(r transfer.Report) {
				progress.reached(r.Created+r.Updated+r.Skipped+r.Ephemeral+r.Refused, r.LastWritten)
			}
			rep, err := transfer.Move(ctx, r, bw, src, dst, transfer.CopyOptions{ImportOptions: opts, Force: force})
			progress.finish()
			if werr := writeMoveReport(cmd.OutOrStdout(), rep, format); err == nil && werr != nil {
				return werr
			}
			if err != nil {
				return timedOut(err, flags.timeout)
			}
			if rep.Kept != "" && !opts.DryRun {
				return &partialError{fmt.Errorf("%s was copied but not (wholly) deleted: %s", src, rep.Kept)}
			}
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask (for scripts)")
	cmd.Flags().BoolVar(&force, "force", false, "move a subtree holding ephemeral nodes: they are deleted, not moved")
	return cmd
}

// openCopy opens what cp and mv work over: the writer that recreates
// nodes, and batched readers of the source; done closes them all.
func openCopy(ctx context.Context, g *globalOptions, verb string, timeout time.Duration) (zkview.BulkReader, *zkview.BulkWriter, func(), error) {
	c, bw, err := openWriter(ctx, g, verb)
	if err != nil {
		return nil, nil, nil, timedOut(err, timeout)
	}
	r, err := c.DialBulk(ctx, 4)
	if err != nil {
		bw.Close()
		c.Close()
		return nil, nil, nil, timedOut(err, timeout)
	}
	return r, bw, func() { r.Close(); bw.Close(); c.Close() }, nil
}

// confirmOnTerminal asks a yes/no question on a terminal; without one it
// refuses, naming --yes.
func confirmOnTerminal(cmd *cobra.Command, question string) (bool, error) {
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !cliout.IsTerminal(in) || !isTerminal(cmd.ErrOrStderr()) {
		return false, fmt.Errorf("%s — not on a terminal to ask: pass --yes to go ahead", question)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s [y/N] ", question)
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && err != io.EOF {
		return false, err
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", nil
}

func writeMoveReport(out io.Writer, rep transfer.MoveReport, format cliout.Format) error {
	if format == cliout.JSON {
		rep.Copy.Refusals = nonNil(rep.Copy.Refusals)
		return cliout.WriteJSON(out, rep)
	}
	if err := writeImportReport(out, rep.Copy, format); err != nil {
		return err
	}
	if rep.Kept != "" {
		fmt.Fprintf(out, "deleted %d from the source; the rest is kept: %s\n", rep.Deleted, cliout.Clean(rep.Kept))
		return nil
	}
	fmt.Fprintf(out, "deleted %d from the source\n", rep.Deleted)
	return nil
}
