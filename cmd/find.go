package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// findFlags are zkx find's conditions, as typed.
type findFlags struct {
	name, data, owner string
	ephemeral         bool
	older             time.Duration
}

// query turns the flags into a zkview.FindQuery.
func (f findFlags) query() (zkview.FindQuery, error) {
	var q zkview.FindQuery
	var err error
	if f.name != "" {
		if q.Name, err = zkview.ParseNamePattern(f.name); err != nil {
			return q, fmt.Errorf("--name: %w", err)
		}
	}
	if f.data != "" {
		if q.Data, err = zkview.ParseDataPattern(f.data); err != nil {
			return q, fmt.Errorf("--data: %w", err)
		}
	}
	if f.owner != "" {
		if q.Owner, err = zkview.ParseOwner(f.owner); err != nil {
			return q, fmt.Errorf("--owner: %w", err)
		}
	}
	if f.older < 0 {
		return q, fmt.Errorf("--older must not be negative")
	}
	q.Ephemeral, q.Older = f.ephemeral, f.older
	return q, nil
}

func newFindCommand(g *globalOptions) *cobra.Command {
	var flags walkFlags
	var cond findFlags
	cmd := &cobra.Command{
		Use:   "find PATH",
		Short: "Find nodes under PATH by name, data, owner or age, streaming",
		Long: `find walks PATH and everything below it as zkx tree does (listings in parallel,
output in order as the walk reaches it) and prints each node that meets every
condition given. With no condition every node matches.

  --name GLOB     the node's name matches a shell glob (lock-*, *.json)
  --name /RE/     … or a regular expression between slashes
  --data /RE/     its data matches a regular expression (reads every node's data)
  --ephemeral     a session owns it
  --owner ID      that session owns it (0x… as zkx sessions prints it)
  --older D       last modified more than D ago (90s, 10m, 48h)

Output is one path a line, or with -o json an array of objects (path, depth,
children, data_length, ephemeral_owner, mtime) streamed as found. A node that
could not be read (no READ permission, or another failure) is printed too, marked "(unreadable, WHY)",
or in JSON with its "error": what is below it was not searched. On a terminal,
progress is shown on stderr. Exit status: 0 when something matched, 1 when
nothing did (as grep) or PATH does not exist, 3 when some nodes could not be
read (a partial result), other errors 1 with a message.`,
		Example: `  zkx find / --name 'lock-*'
  zkx find /app --name '/^_c_[0-9a-f-]{36}-lock-/' --older 1h
  zkx find / --ephemeral --owner 0x1000a2b3c4d0001
  zkx find /config --data '/"enabled": *false/' -o json | jq -r '.[].path'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := checkPath(args[0])
			if err != nil {
				return err
			}
			q, err := cond.query()
			if err != nil {
				return err
			}
			c, format, ctx, done, err := flags.open(cmd, g)
			if err != nil {
				return err
			}
			defer done()
			progress := newProgress(cmd.ErrOrStderr())
			out := cmd.OutOrStdout()
			opts := flags.options()
			// A node that could not be read is shown, marked, matched or
			// not: what is below it was not searched.
			var emit func(n zkview.WalkNode) error
			var arr *cliout.JSONArray
			if format == cliout.JSON {
				arr = cliout.NewJSONArray(out)
				emit = func(n zkview.WalkNode) error {
					progress.finish() // a match's line is not drawn over
					row := describeNode(n.Path, n.Stat, n.Err)
					d := n.Depth
					row.Depth = &d
					return arr.Add(row)
				}
			} else {
				warn := cliout.NewStyles(out).Warn
				emit = func(n zkview.WalkNode) error {
					progress.finish()
					line := cliout.Clean(n.Path)
					if n.Err != nil {
						line += " " + warn("(unreadable, not searched below: "+cliout.Clean(n.Err.Error())+")")
					}
					_, err := fmt.Fprintln(out, line)
					return err
				}
			}
			var emitErr error
			visited := func(n zkview.WalkNode) {
				progress.add(n.Path)
				if n.Err != nil && !q.Match(n) && emitErr == nil && zkview.MissingRoot(n) == nil {
					emitErr = emit(n)
				}
			}
			st, err := zkview.Find(ctx, c, root, q, opts, visited, func(n zkview.WalkNode) error {
				if emitErr != nil {
					return emitErr
				}
				return emit(n)
			})
			if err == nil {
				err = emitErr
			}
			progress.finish()
			if arr != nil && (st.Visited > 0 || err == nil) {
				if cerr := arr.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return walkEnded(err, root, st.Matched+st.Unreadable > 0, flags.timeout)
			}
			if isTerminal(cmd.ErrOrStderr()) {
				notef(cmd.ErrOrStderr(), "%s of %s matched (%s)", plural(st.Matched, "node"), plural(st.Visited, "node"), q)
			}
			if st.Unreadable > 0 {
				return &partialError{fmt.Errorf("%s could not be read (marked; %s): what is below them was not searched; %s matched", plural(st.Unreadable, "node"), whyUnreadable(st.Unreadable, st.NoRead, "marked"), plural(st.Matched, "node"))}
			}
			if st.Matched == 0 {
				return exitStatus(1)
			}
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&cond.name, "name", "", "the node's name matches this glob, or /regex/")
	cmd.Flags().StringVar(&cond.data, "data", "", "its data matches this /regex/")
	cmd.Flags().BoolVar(&cond.ephemeral, "ephemeral", false, "only ephemeral nodes")
	cmd.Flags().StringVar(&cond.owner, "owner", "", "only ephemeral nodes of this session (0x…)")
	cmd.Flags().DurationVar(&cond.older, "older", 0, "only nodes last modified more than this long ago")
	return cmd
}
