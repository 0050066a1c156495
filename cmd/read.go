package cmd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// readFlags are the flags of every scriptable read command.
type readFlags struct {
	output  string
	timeout time.Duration
}

func (f *readFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.output, "output", "o", "table", "output format: table or json")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 30*time.Second, "give up after this long")
}

// open checks the flags and connects; the context ends at --timeout.
func (f *readFlags) open(cmd *cobra.Command, g *globalOptions) (*zkview.Client, cliout.Format, context.Context, context.CancelFunc, error) {
	format, err := cliout.ParseFormat(f.output)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if f.timeout <= 0 {
		return nil, "", nil, nil, fmt.Errorf("--timeout must be positive")
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	c, err := g.dial(ctx)
	if err != nil {
		cancel()
		return nil, "", nil, nil, timedOut(err, f.timeout)
	}
	return c, format, ctx, func() { c.Close(); cancel() }, nil
}

// walkFlags are the flags of the commands that walk a subtree (tree,
// find): the read flags, and how the walk reads.
type walkFlags struct {
	readFlags
	concurrency, connections int
	batch                    bool
}

func (f *walkFlags) register(cmd *cobra.Command) {
	f.readFlags.register(cmd)
	cmd.Flags().IntVar(&f.concurrency, "concurrency", 192, "listings in flight")
	cmd.Flags().IntVar(&f.connections, "connections", 12, "sessions to read over (a server works through each connection in order)")
	cmd.Flags().BoolVar(&f.batch, "batch", true, batchFlagHelp)
}

// open checks the flags and opens the sessions the walk reads over; the
// context ends at --timeout.
func (f *walkFlags) open(cmd *cobra.Command, g *globalOptions) (zkview.BulkReader, cliout.Format, context.Context, context.CancelFunc, error) {
	if f.concurrency < 1 || f.connections < 1 {
		return nil, "", nil, nil, fmt.Errorf("--concurrency and --connections must be at least 1")
	}
	format, err := cliout.ParseFormat(f.output)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if f.timeout <= 0 {
		return nil, "", nil, nil, fmt.Errorf("--timeout must be positive")
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	c, err := g.dialBulk(ctx, f.connections, f.batch)
	if err != nil {
		cancel()
		return nil, "", nil, nil, timedOut(err, f.timeout)
	}
	return c, format, ctx, func() { c.Close(); cancel() }, nil
}

// options are the walk's options.
func (f *walkFlags) options() zkview.WalkOptions {
	return zkview.WalkOptions{Concurrency: f.concurrency}
}

// nodeJSON is the JSON of one node in ls and tree output.
type nodeJSON struct {
	Path           string `json:"path"`
	Name           string `json:"name,omitempty"`
	Depth          *int   `json:"depth,omitempty"`
	Children       int32  `json:"children"`
	DataLength     int32  `json:"data_length"`
	EphemeralOwner string `json:"ephemeral_owner,omitempty"`
	Mtime          string `json:"mtime,omitempty"`
	Error          string `json:"error,omitempty"`
}

func describeNode(path string, st *zk.Stat, err error) nodeJSON {
	n := nodeJSON{Path: path}
	if err != nil {
		n.Error = err.Error()
		return n
	}
	n.Children, n.DataLength = st.NumChildren, st.DataLength
	if st.EphemeralOwner != 0 {
		n.EphemeralOwner = display.Hex(st.EphemeralOwner)
	}
	if st.Mtime > 0 {
		n.Mtime = time.UnixMilli(st.Mtime).UTC().Format(time.RFC3339)
	}
	return n
}

func newLsCommand(g *globalOptions) *cobra.Command {
	var flags readFlags
	var long bool
	cmd := &cobra.Command{
		Use:   "ls PATH",
		Short: "List a node's children",
		Example: `  zkx ls /
  zkx ls -l /app/locks
  zkx ls -o json /app | jq '.[].name'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := checkPath(args[0])
			if err != nil {
				return err
			}
			c, format, ctx, done, err := flags.open(cmd, g)
			if err != nil {
				return err
			}
			defer done()
			children, _, err := c.Children(ctx, path)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == cliout.Table && !long {
				for _, name := range sortedNames(children) {
					fmt.Fprintln(out, cliout.Clean(name))
				}
				return nil
			}
			names := sortedNames(children)
			paths := make([]string, len(names))
			for i, name := range names {
				paths[i] = zkview.ChildPath(path, name)
			}
			stats, errs := c.StatAll(ctx, paths, 64)
			rows := make([]nodeJSON, len(names))
			for i := range names {
				rows[i] = describeNode(paths[i], stats[i], errs[i])
				rows[i].Name = names[i]
			}
			if format == cliout.JSON {
				return cliout.WriteJSON(out, rows)
			}
			return writeNodeTable(out, rows)
		},
	}
	flags.register(cmd)
	cmd.Flags().BoolVarP(&long, "long", "l", false, "show children counts, sizes, owners and times")
	return cmd
}

func writeNodeTable(out io.Writer, rows []nodeJSON) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("NAME"), st.Header("CHILDREN"), st.Header("BYTES"), st.Header("OWNER"), st.Header("MODIFIED"))
	for _, r := range rows {
		if r.Error != "" {
			t.Row(cliout.Clean(r.Name), "-", "-", "-", st.Warn(cliout.Clean(r.Error)))
			continue
		}
		owner := st.Dim("persistent")
		if r.EphemeralOwner != "" {
			owner = r.EphemeralOwner
		}
		t.Row(cliout.Clean(r.Name), strconv.Itoa(int(r.Children)), strconv.Itoa(int(r.DataLength)), owner, r.Mtime)
	}
	return t.Flush()
}

func newTreeCommand(g *globalOptions) *cobra.Command {
	var flags walkFlags
	var depth int
	cmd := &cobra.Command{
		Use:   "tree PATH",
		Short: "Print a subtree, streaming, with reads in parallel",
		Long: `tree prints PATH and everything below it as it is read: listings run ahead in
parallel (--concurrency at a time) while output streams in order, so even trees of
millions of nodes print without being held in memory. Nodes that cannot be read
(no permission) are marked, in JSON with their "error", and the walk goes on. On
a terminal, progress is shown on stderr. Exit status: 0 when every node was
read, 3 when some could not be (a partial result: what is below them is
missing) or --timeout ended the walk after it printed part of the tree, 1 on
failure (PATH does not exist, no session).`,
		Example: `  zkx tree /app
  zkx tree --depth 2 /
  zkx tree -o json /app/locks > locks.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := checkPath(args[0])
			if err != nil {
				return err
			}
			c, format, ctx, done, err := flags.open(cmd, g)
			if err != nil {
				return err
			}
			defer done()
			progress := newProgress(cmd.ErrOrStderr())
			defer progress.finish()
			opts := flags.options()
			opts.MaxDepth = depth
			out := cmd.OutOrStdout()
			var unreadable unreadableNodes
			if format == cliout.JSON {
				arr := cliout.NewJSONArray(out)
				err := zkview.Walk(ctx, c, path, opts, func(n zkview.WalkNode) error {
					if err := zkview.MissingRoot(n); err != nil {
						return err
					}
					progress.add(n.Path)
					unreadable.note(n)
					row := describeNode(n.Path, n.Stat, n.Err)
					d := n.Depth
					row.Depth = &d
					return arr.Add(row)
				})
				if progress.nodes() == 0 && err != nil {
					return walkEnded(err, path, false, flags.timeout) // nothing printed, not even the array
				}
				if cerr := arr.Close(); err == nil {
					err = cerr
				}
				return unreadable.result(walkEnded(err, path, progress.nodes() > 0, flags.timeout))
			}
			drawer := newTreeDrawer(out)
			err = zkview.Walk(ctx, c, path, opts, func(n zkview.WalkNode) error {
				if err := zkview.MissingRoot(n); err != nil {
					return err
				}
				progress.add(n.Path)
				unreadable.note(n)
				return drawer.draw(n)
			})
			return unreadable.result(walkEnded(err, path, progress.nodes() > 0, flags.timeout))
		},
	}
	flags.register(cmd)
	cmd.Flags().IntVar(&depth, "depth", 0, "descend at most this many levels (0: all)")
	return cmd
}

// treeDrawer draws tree(1)-style branches while nodes stream in preorder.
type treeDrawer struct {
	out    io.Writer
	st     cliout.Styles
	frames []treeFrame // per depth: the children being drawn
}

type treeFrame struct {
	count, next int  // the node's children, and how many were drawn
	last        bool // the node was the last of its siblings
}

func newTreeDrawer(w io.Writer) *treeDrawer { return &treeDrawer{out: w, st: cliout.NewStyles(w)} }

func (d *treeDrawer) draw(n zkview.WalkNode) error {
	if len(d.frames) > n.Depth {
		d.frames = d.frames[:n.Depth]
	}
	var line strings.Builder
	name := n.Path
	last := false
	if n.Depth > 0 {
		parent := &d.frames[n.Depth-1]
		last = parent.next == parent.count-1
		parent.next++
		for _, f := range d.frames[1:n.Depth] {
			if f.last {
				line.WriteString("    ")
			} else {
				line.WriteString("│   ")
			}
		}
		if last {
			line.WriteString("└── ")
		} else {
			line.WriteString("├── ")
		}
		name = n.Path[strings.LastIndexByte(n.Path, '/')+1:]
	}
	line.WriteString(cliout.Clean(name))
	switch {
	case n.Err != nil:
		line.WriteString(" " + d.st.Warn("("+n.Err.Error()+")"))
	case n.Stat.EphemeralOwner != 0:
		line.WriteString(" " + d.st.Dim("[ephemeral "+display.Hex(n.Stat.EphemeralOwner)+"]"))
	}
	d.frames = append(d.frames, treeFrame{count: len(n.Children), last: last})
	_, err := fmt.Fprintln(d.out, line.String())
	return err
}

func sortedNames(names []string) []string {
	out := append([]string{}, names...)
	sort.Strings(out)
	return out
}
