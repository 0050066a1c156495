package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// changeJSON is one line of zkx watch -o json.
type changeJSON struct {
	Path    string   `json:"path"`
	Kind    string   `json:"kind"` // created, deleted, data, children
	Zxid    string   `json:"zxid,omitempty"`
	Time    string   `json:"time"`
	Seen    string   `json:"seen"`
	Version *int32   `json:"version,omitempty"`
	OldSize *int     `json:"old_size,omitempty"`
	NewSize *int     `json:"new_size,omitempty"`
	Old     []byte   `json:"old,omitempty"` // base64
	New     []byte   `json:"new,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Owner   string   `json:"owner,omitempty"`
	NotRead string   `json:"not_read,omitempty"`
}

func describeChange(c zkview.Change) changeJSON {
	j := changeJSON{Path: c.Path, Kind: string(c.Kind), Time: c.Time.UTC().Format(statMillisFormat),
		Seen: c.Seen.UTC().Format(statMillisFormat), Old: c.Old, New: c.New, Added: c.Added, Removed: c.Removed,
		NotRead: c.NotRead}
	if c.Zxid != 0 {
		j.Zxid = display.Hex(c.Zxid)
	}
	if c.Owner != 0 {
		j.Owner = display.Hex(c.Owner)
	}
	if (c.Kind == zkview.ChangeData || c.Kind == zkview.ChangeCreated) && c.NotRead == "" {
		v, o, n := c.Version, len(c.Old), len(c.New)
		j.Version, j.NewSize = &v, &n
		if c.Kind == zkview.ChangeData && !c.NoOld {
			j.OldSize = &o
		}
	}
	return j
}

// changeLine is a change in one line for people: time, zxid, what.
func changeLine(c zkview.Change, withPath bool) string {
	head := c.Time.Local().Format("15:04:05.000") + "  " + display.Hex(c.Zxid)
	seen := c.Seen.Local().Format("15:04:05.000") + "  -"
	path := ""
	if withPath {
		path = "  " + display.Line(c.Path)
	}
	switch {
	case c.Kind == zkview.ChangeGap:
		return fmt.Sprintf("%s  gap%s  changes until now are not known (%s)", seen, path, c.NotRead)
	case c.NotRead != "":
		return fmt.Sprintf("%s  %s%s  (%s)", seen, kindWord(c.Kind), path, c.NotRead)
	}
	head += path
	switch c.Kind {
	case zkview.ChangeCreated:
		s := fmt.Sprintf("%s  created  %s", head, dataPreview(c.New))
		if c.Owner != 0 {
			s += "  ephemeral of " + display.Hex(c.Owner)
		}
		return s
	case zkview.ChangeDeleted:
		was := "was " + dataPreview(c.Old)
		if withPath && c.Old == nil && c.Owner == 0 {
			was = "not read before"
		}
		s := fmt.Sprintf("%s%s  deleted  (%s)", seen, path, was)
		if c.Owner != 0 {
			s += "  was ephemeral of " + display.Hex(c.Owner)
		}
		return s
	case zkview.ChangeData:
		if c.NoOld {
			return fmt.Sprintf("%s  data v%d  → %s", head, c.Version, dataPreview(c.New))
		}
		return fmt.Sprintf("%s  data v%d  %s → %s", head, c.Version, dataPreview(c.Old), dataPreview(c.New))
	}
	var parts []string
	for _, n := range c.Added {
		parts = append(parts, "+"+display.Line(n))
	}
	for _, n := range c.Removed {
		parts = append(parts, "-"+display.Line(n))
	}
	return fmt.Sprintf("%s  children  %s", head, strings.Join(parts, " "))
}

// kindWord names a change kind in a line.
func kindWord(k zkview.ChangeKind) string {
	if k == zkview.ChangeData {
		return "data"
	}
	return string(k)
}

// dataPreview is data as a short quoted line with its size.
func dataPreview(b []byte) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprintf("%q (%s)", truncate(string(b), 40), plural(len(b), "byte"))
}

// watchOptions are zkx watch's flags and argument.
type watchOptions struct {
	globals             *globalOptions
	output              string        // -o as given
	format              cliout.Format // -o, once checked
	children, recursive bool
	path                string
}

// watchDialTimeout bounds zkx watch's dial; the watch itself runs until
// interrupted.
const watchDialTimeout = 30 * time.Second

func newWatchCommand(g *globalOptions, run runFunc[*watchOptions]) *cobra.Command {
	opts := &watchOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "watch PATH",
		Short: "Print each change of a node, or of a whole subtree, as it happens, until interrupted",
		Long: `watch follows PATH with ZooKeeper watches and prints each change as it is seen:
its data (zxid, time, version, old → new and sizes), its creation and deletion,
and with --children the children added and removed. It runs until interrupted
(ctrl+c). ZooKeeper does not say who made a change; a created ephemeral node
names its session. These watches fire once and are set again on each read, so
changes made in the moment between are seen together, as one.

--recursive follows PATH and every node below it with one persistent recursive
watch (ZooKeeper 3.6+ addWatch): every creation, deletion and data change is
reported, one line each, in the server's order, however close together they come
— none is merged or lost. Each line names the node. zkx reads each changed node
after its notification: a change shows its data when the node had not changed
again by then, else the line says "the node changed again before zkx could read
it" (its data is gone from the server). Old data is shown once zkx has read the
node (a node's first change shows only the new data). A server before 3.6 is
followed with one-shot watches on every node instead (at most 10,000), with a
note; if the watch's connection ends, a "gap" line says so and the watch is set
again.

-o json prints one object a line (JSON Lines): path, kind (created, deleted, data,
children, gap), zxid, time (the server's), seen (when zkx saw it), version,
old_size, new_size, old and new (base64), added, removed, owner (the session of an
ephemeral node created or deleted: its owner, not necessarily who deleted it),
not_read (why a change's data is not shown; version and sizes are then absent).`,
		Example: `  zkx watch /app/config
  zkx watch /app/locks/orders --children
  zkx watch --recursive /app
  zkx watch /app/config -o json | jq -r '.new | @base64d'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(opts, run),
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table or json (one object a line)")
	cmd.Flags().BoolVar(&opts.children, "children", false, "also print the children added and removed")
	cmd.Flags().BoolVar(&opts.recursive, "recursive", false, "follow PATH and everything below it with one persistent recursive watch (ZooKeeper 3.6+): every change, none merged")
	return cmd
}

func (o *watchOptions) complete(args []string) (err error) {
	if o.path, err = checkPath(args[0]); err != nil {
		return err
	}
	if o.format, err = cliout.ParseFormat(o.output); err != nil {
		return err
	}
	if o.recursive && o.children {
		return fmt.Errorf("--recursive already reports every node created and deleted below PATH: leave out --children")
	}
	return nil
}

// runWatch prints each change of opts.path (and below it, or of its
// children) until interrupted.
func runWatch(ctx context.Context, opts *watchOptions, std streams) error {
	dialCtx, cancel := context.WithTimeout(ctx, watchDialTimeout)
	c, err := opts.globals.dial(dialCtx)
	cancel()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, format := opts.path, opts.format
	if opts.recursive {
		err = c.FollowRecursive(ctx, p, zkview.FollowOptions{
			Note: func(s string) { notef(std.errOut, "%s", s) },
			Watching: func() {
				if isTerminal(std.errOut) {
					notef(std.errOut, "watching %s and everything below it (ctrl+c ends)", p)
				}
			},
		}, func(ch zkview.Change) error {
			return writeChange(std.out, ch, format, true)
		})
	} else {
		if isTerminal(std.errOut) {
			notef(std.errOut, "watching %s%s (ctrl+c ends)", p, map[bool]string{true: " and its children"}[opts.children])
		}
		err = c.Follow(ctx, p, opts.children, func(ch zkview.Change) error {
			return writeChange(std.out, ch, format, false)
		})
	}
	if errors.Is(err, context.Canceled) {
		return nil // interrupted: the normal end
	}
	return err
}

// writeChange prints one change; withPath names the node in a table line
// (a recursive watch's changes are of many nodes).
func writeChange(out io.Writer, ch zkview.Change, format cliout.Format, withPath bool) error {
	if format == cliout.JSON {
		b, err := json.Marshal(describeChange(ch))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", display.JSON(b))
		return err
	}
	_, err := fmt.Fprintln(out, cliout.Clean(changeLine(ch, withPath)))
	return err
}
