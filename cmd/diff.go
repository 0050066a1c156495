package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/fileread"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// Exit statuses of zkx diff, as diff(1)'s.
const (
	diffSame      = 0
	diffDifferent = 1
	diffTrouble   = 2
)

// diffJSON is one difference of zkx diff -o json.
type diffJSON struct {
	Path   string           `json:"path"`
	Change string           `json:"change"`
	What   []string         `json:"what"`
	A      *transfer.Record `json:"a"`
	B      *transfer.Record `json:"b"`
}

// contextSide is CONTEXT:/path.
var contextSide = regexp.MustCompile(`^([^/:]+):(/.*)$`)

// side is one side of a comparison, opened: records in preorder.
type side struct {
	spec  string
	src   transfer.Source
	close func()
	// root is the subtree's path; missing is set when it does not exist
	// (a live side).
	root    string
	missing bool
	// opts are the options of a live side's ensemble (nil for a file and
	// the past).
	opts *globalOptions
	// past is set for DIR@MOMENT:/path.
	past *pastSource
}

// openSide opens a side: /path on --server's ensemble, CONTEXT:/path on a
// named context's, DIR@MOMENT:/path in a data directory's past, or an
// export file (- for stdin).
func openSide(ctx context.Context, cmd *cobra.Command, g *globalOptions, spec string, fileOK bool) (*side, error) {
	s := &side{spec: spec}
	opts, p := g, ""
	past, isPast, err := openPastSource(cmd, spec)
	if err != nil {
		return nil, err
	}
	if isPast {
		s.past = past
		s, err = openTreeSide(ctx, s, past.reader, past.Close, past.path)
		if err != nil {
			past.Close()
		}
		return s, err
	}
	switch m := contextSide.FindStringSubmatch(spec); {
	case strings.HasPrefix(spec, "/") && fileOK && isRegularFile(spec):
		// An absolute file name: a file is what the user has at hand.
	case strings.HasPrefix(spec, "/"):
		p = spec
	case m != nil:
		names, err := g.contextNames()
		if err != nil {
			return nil, err
		}
		if !slices.Contains(names, m[1]) {
			if _, statErr := os.Stat(spec); statErr == nil && fileOK {
				break // a file whose name looks like one
			}
			return nil, fmt.Errorf("%s: no context %q in the contexts file (it has %s)", spec, m[1], orNoneList(names))
		}
		if opts, err = g.forContext(m[1]); err != nil {
			return nil, err
		}
		p = m[2]
	}
	if p == "" {
		if !fileOK {
			return nil, fmt.Errorf("%s: want /path or CONTEXT:/path", spec)
		}
		return openFileSide(cmd, spec)
	}
	clean, err := checkPath(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	r, err := opts.dialBulk(ctx, 4, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	s.opts = opts
	s, err = openTreeSide(ctx, s, r, r.Close, clean)
	if err != nil {
		r.Close()
	}
	return s, err
}

// openTreeSide opens a side walked through r — a live ensemble's reader,
// or the past's — that done closes.
func openTreeSide(ctx context.Context, s *side, r zkview.Reader, done func(), root string) (*side, error) {
	s.root = root
	if _, _, err := r.Children(ctx, root); zkview.IsNoNode(err) {
		s.missing = true
		s.src, s.close = transfer.EmptySource(root), done
		return s, nil
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", s.spec, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	walk := transfer.WalkSource(wctx, r, root)
	s.src = walk
	s.close = func() { cancel(); walk.Close(); done() }
	return s, nil
}

func isRegularFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

func openFileSide(cmd *cobra.Command, name string) (*side, error) {
	var in io.Reader = cmd.InOrStdin()
	closeFile := func() {}
	if name != "-" {
		f, err := openNamedFile(name)
		if fileread.IsNotRegular(err) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s is neither /path, CONTEXT:/path nor a file zkx export wrote: %w", name, err)
		}
		in, closeFile = f, func() { f.Close() }
	}
	src, err := transfer.ReadFile(in)
	if err != nil {
		closeFile()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &side{spec: name, src: src, close: closeFile, root: src.Root()}, nil
}

func orNoneList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// troubleExit ends a command with diff(1)'s "trouble" status, having said
// why on stderr.
func troubleExit(cmd *cobra.Command, err error) error {
	fmt.Fprintln(cmd.ErrOrStderr(), "zkx:", cliout.Clean(err.Error()))
	return exitStatus(diffTrouble)
}

func newDiffCommand(g *globalOptions) *cobra.Command {
	var output string
	var ignore []string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two subtrees: live, on another context, or exported",
		Long: `diff compares two subtrees node by node — their data, ACLs and whether each node
is ephemeral — and prints what differs, as diff does: nodes only in A (-), only
in B (+), and in both but changed (~). Each side is

  /path             a subtree on --server's ensemble
  CONTEXT:/path     a subtree on a named context's ensemble (zkx context list)
  DIR@MOMENT:/path  a subtree as it was at a moment of a ZooKeeper data
                    directory's past (DIR: its dataDir or version-2 folder;
                    MOMENT: a zxid, 0x1f, or a time, as zkx --data-dir --at
                    takes it: 02:45 is on the day the logs begin); zkx
                    rebuilds it from the snapshots and logs, as the explorer
                    on the past does, and reads every node and ACL
  FILE              a file zkx export wrote (- for stdin); an absolute path
                    that names an existing file is read as that file

Paths are shown under the two roots ("/" is the roots themselves). ACLs compare
as sets of entries; null and empty data compare equal; an ephemeral node's
owner differs between any two ensembles, so only whether a node is ephemeral
is compared. --ignore leaves out the nodes a glob matches, with everything below
them: a glob without "/" matches a node's name (lock-*), one with "/" its path
under the root (/app/*/locks, **/leases). ZooKeeper's own /zookeeper is left
out when a root is /.

Both sides are read as streams and merged: each is a walk in preorder with its
children in name order (or a file written so), compared node by node as they
come, so neither tree is held in memory — only what the walks read ahead.

Exit status, as diff's: 0 the same, 1 different, 2 trouble (a side could not be
read, a node could not be read on a side, bad arguments).

-o json streams an array: path (under the roots), change (added, removed,
changed, unreadable), what (for changed: data, acl, ephemeral), a and b (the
node on each side as zkx export writes it; null where it is absent).`,
		Example: `  zkx diff /app prod:/app
  zkx diff staging:/config prod:/config --ignore 'lock-*' --ignore '**/leases/*'
  zkx export /app > before.jsonl; …; zkx diff before.jsonl /app
  zkx diff /var/lib/zookeeper@02:45:/app/config /app/config   # what changed since 02:45
  zkx diff /app dr:/app -o json | jq -r '.[] | select(.change=="changed") | .path'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return troubleExit(cmd, fmt.Errorf("diff takes two sides, A and B (got %d)", len(args)))
			}
			format, err := cliout.ParseFormat(output)
			if err != nil {
				return troubleExit(cmd, err)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			a, err := openSide(ctx, cmd, g, args[0], true)
			if err != nil {
				return troubleExit(cmd, timedOut(err, timeout))
			}
			defer a.close()
			b, err := openSide(ctx, cmd, g, args[1], args[0] != "-")
			if err != nil {
				return troubleExit(cmd, timedOut(err, timeout))
			}
			defer b.close()
			for _, s := range []*side{a, b} {
				if s.missing {
					return troubleExit(cmd, fmt.Errorf("%s: %s does not exist", s.spec, s.root))
				}
			}
			out := cmd.OutOrStdout()
			st := cliout.NewStyles(out)
			var arr *cliout.JSONArray
			if format == cliout.JSON {
				arr = cliout.NewJSONArray(out)
			}
			stats, err := transfer.Diff(ctx, a.src, b.src, transfer.DiffOptions{Ignore: ignore}, func(d transfer.Difference) error {
				if arr != nil {
					return arr.Add(diffJSON{Path: d.Path, Change: string(d.Kind), What: nonNil(d.What), A: d.A, B: d.B})
				}
				_, err := fmt.Fprintln(out, diffLine(st, d))
				return err
			})
			if arr != nil {
				if cerr := arr.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return troubleExit(cmd, timedOut(err, timeout))
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "zkx:", diffSummary(a, b, stats))
			switch {
			case stats.Unreadable > 0:
				return exitStatus(diffTrouble)
			case !stats.Same():
				return exitStatus(diffDifferent)
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return troubleExit(c, err) })
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	cmd.Flags().StringArrayVar(&ignore, "ignore", nil, "leave out nodes matching this glob, with their subtrees (a name glob, or a path glob under the root with ** for any levels); repeatable")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after this long")
	return cmd
}

// diffLine is one difference for people.
func diffLine(st cliout.Styles, d transfer.Difference) string {
	p := cliout.Clean(d.Path)
	switch d.Kind {
	case transfer.Removed:
		return st.Warn("- "+p) + st.Dim("  only in A"+recordNote(d.A))
	case transfer.Added:
		return st.Good("+ "+p) + st.Dim("  only in B"+recordNote(d.B))
	case transfer.Unreadable:
		why := d.A.Error
		where := "A"
		if why == "" {
			why, where = d.B.Error, "B"
		}
		return st.Warn("! "+p) + "  could not be read on " + where + ": " + cliout.Clean(why)
	}
	var parts []string
	for _, w := range d.What {
		switch w {
		case transfer.WhatData:
			parts = append(parts, "data "+cliout.Clean(dataPreview(d.A.Data))+" → "+cliout.Clean(dataPreview(d.B.Data)))
		case transfer.WhatACL:
			parts = append(parts, "acl "+cliout.Clean(aclText(d.A.ACL))+" → "+cliout.Clean(aclText(d.B.ACL)))
		case transfer.WhatEphemeral:
			parts = append(parts, ephemeralText(d.A)+" in A, "+ephemeralText(d.B)+" in B")
		}
	}
	return "~ " + p + "  " + strings.Join(parts, "; ")
}

func recordNote(r *transfer.Record) string {
	s := fmt.Sprintf(" (%s", plural(len(r.Data), "byte"))
	if r.Ephemeral() {
		s += ", ephemeral of " + r.EphemeralOwner
	}
	return s + ")"
}

func ephemeralText(r *transfer.Record) string {
	if r.Ephemeral() {
		return "ephemeral"
	}
	return "persistent"
}

func aclText(acl []transfer.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = a.Scheme + ":" + a.ID + ":" + a.Perms
	}
	return strings.Join(parts, ",")
}

func diffSummary(a, b *side, st transfer.DiffStats) string {
	s := fmt.Sprintf("A = %s (%s), B = %s (%s): ", a.spec, plural(st.NodesA, "node"), b.spec, plural(st.NodesB, "node"))
	if st.Same() {
		s += "the same"
	} else {
		s += fmt.Sprintf("%d only in A, %d only in B, %d changed", st.Removed, st.Added, st.Changed)
		if st.Unreadable > 0 {
			s += fmt.Sprintf(", %d could not be read", st.Unreadable)
		}
	}
	if st.Ignored > 0 {
		s += fmt.Sprintf(" (%d ignored)", st.Ignored)
	}
	return cliout.Clean(s)
}
