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

// lsOptions are zkx ls's flags and argument.
type lsOptions struct {
	globals *globalOptions
	read    readOptions
	long    bool
	path    string
}

func newLsCommand(g *globalOptions, run runFunc[*lsOptions]) *cobra.Command {
	opts := &lsOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "ls PATH",
		Short: "List a node's children",
		Example: `  zkx ls /
  zkx ls -l /app/locks
  zkx ls -o json /app | jq '.[].name'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	opts.read.register(cmd)
	cmd.Flags().BoolVarP(&opts.long, "long", "l", false, "show children counts, sizes, owners and times")
	return cmd
}

func (o *lsOptions) complete(args []string) (err error) {
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	return o.read.check()
}

// runLs lists the children of opts.path: their names, or with -l or
// -o json a row each with its stat.
func runLs(ctx context.Context, opts *lsOptions, std streams) error {
	conn, err := opts.read.connect(ctx, opts.globals)
	if err != nil {
		return err
	}
	defer conn.Close()
	children, _, err := conn.client.Children(conn.ctx, opts.path)
	if err != nil {
		return err
	}
	names := sortedNames(children)
	if opts.read.format == cliout.Table && !opts.long {
		for _, name := range names {
			fmt.Fprintln(std.out, cliout.Clean(name))
		}
		return nil
	}
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = zkview.ChildPath(opts.path, name)
	}
	stats, errs := conn.client.StatAll(conn.ctx, paths, 64)
	rows := make([]nodeJSON, len(names))
	for i := range names {
		rows[i] = describeNode(paths[i], stats[i], errs[i])
		rows[i].Name = names[i]
	}
	if opts.read.format == cliout.JSON {
		return cliout.WriteJSON(std.out, rows)
	}
	return writeNodeTable(std.out, rows)
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

// treeOptions are zkx tree's flags and argument.
type treeOptions struct {
	globals *globalOptions
	walk    walkOptions
	depth   int
	path    string
}

func newTreeCommand(g *globalOptions, run runFunc[*treeOptions]) *cobra.Command {
	opts := &treeOptions{globals: g}
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
		RunE: runE(opts, run),
	}
	opts.walk.register(cmd)
	cmd.Flags().IntVar(&opts.depth, "depth", 0, "descend at most this many levels (0: all)")
	return cmd
}

func (o *treeOptions) complete(args []string) (err error) {
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	return o.walk.check()
}

// runTree prints the subtree at opts.path as the walk reads it.
func runTree(ctx context.Context, opts *treeOptions, std streams) error {
	conn, err := opts.walk.connect(ctx, opts.globals)
	if err != nil {
		return err
	}
	defer conn.Close()
	progress := newProgress(std.errOut)
	defer progress.finish()
	walk := opts.walk.options()
	walk.MaxDepth = opts.depth
	timeout := opts.walk.timeout
	var unreadable unreadableNodes
	if opts.walk.format == cliout.JSON {
		arr := cliout.NewJSONArray(std.out)
		err := zkview.Walk(conn.ctx, conn.client, opts.path, walk, func(n zkview.WalkNode) error {
			if err := zkview.MissingRoot(n); err != nil {
				return err
			}
			progress.add(n.Path)
			unreadable.note(n)
			return arr.Add(walkRow(n))
		})
		if progress.nodes() == 0 && err != nil {
			return walkEnded(err, opts.path, false, timeout) // nothing printed, not even the array
		}
		if cerr := arr.Close(); err == nil {
			err = cerr
		}
		return unreadable.result(walkEnded(err, opts.path, progress.nodes() > 0, timeout))
	}
	drawer := newTreeDrawer(std.out)
	err = zkview.Walk(conn.ctx, conn.client, opts.path, walk, func(n zkview.WalkNode) error {
		if err := zkview.MissingRoot(n); err != nil {
			return err
		}
		progress.add(n.Path)
		unreadable.note(n)
		return drawer.draw(n)
	})
	return unreadable.result(walkEnded(err, opts.path, progress.nodes() > 0, timeout))
}

// walkRow is a node a walk read as zkx tree and find print it in JSON:
// with its depth.
func walkRow(n zkview.WalkNode) nodeJSON {
	row := describeNode(n.Path, n.Stat, n.Err)
	d := n.Depth
	row.Depth = &d
	return row
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
