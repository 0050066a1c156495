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
}

func describeChange(c zkview.Change) changeJSON {
	j := changeJSON{Path: c.Path, Kind: string(c.Kind), Time: c.Time.UTC().Format(statMillisFormat),
		Seen: c.Seen.UTC().Format(statMillisFormat), Old: c.Old, New: c.New, Added: c.Added, Removed: c.Removed}
	if c.Zxid != 0 {
		j.Zxid = display.Hex(c.Zxid)
	}
	if c.Owner != 0 {
		j.Owner = display.Hex(c.Owner)
	}
	if c.Kind == zkview.ChangeData || c.Kind == zkview.ChangeCreated {
		v, o, n := c.Version, len(c.Old), len(c.New)
		j.Version, j.NewSize = &v, &n
		if c.Kind == zkview.ChangeData {
			j.OldSize = &o
		}
	}
	return j
}

// ChangeLine is a change in one line for people: time, zxid, what.
func changeLine(c zkview.Change) string {
	head := c.Time.Local().Format("15:04:05.000") + "  " + display.Hex(c.Zxid)
	switch c.Kind {
	case zkview.ChangeCreated:
		s := fmt.Sprintf("%s  created  %s", head, dataPreview(c.New))
		if c.Owner != 0 {
			s += "  ephemeral of " + display.Hex(c.Owner)
		}
		return s
	case zkview.ChangeDeleted:
		s := fmt.Sprintf("%s  deleted  (was %s)", c.Seen.Local().Format("15:04:05.000")+"  -", dataPreview(c.Old))
		if c.Owner != 0 {
			s += "  was ephemeral of " + display.Hex(c.Owner)
		}
		return s
	case zkview.ChangeData:
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

// dataPreview is data as a short quoted line with its size.
func dataPreview(b []byte) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprintf("%q (%s)", truncate(string(b), 40), plural(len(b), "byte"))
}

func newWatchCommand(g *globalOptions) *cobra.Command {
	var output string
	var children bool
	cmd := &cobra.Command{
		Use:   "watch PATH",
		Short: "Print each change of a node as it happens, until interrupted",
		Long: `watch follows PATH with ZooKeeper watches and prints each change as it is seen:
its data (zxid, time, version, old → new and sizes), its creation and deletion,
and with --children the children added and removed. It runs until interrupted
(ctrl+c). ZooKeeper does not say who made a change; a created ephemeral node
names its session. Watches fire once and are set again on each read, so changes
made in the moment between are seen together, as one.

-o json prints one object a line (JSON Lines): path, kind (created, deleted, data,
children), zxid, time (the server's), seen (when zkx saw it), version, old_size,
new_size, old and new (base64), added, removed, owner (the session of an
ephemeral node created or deleted: its owner, not necessarily who deleted it).`,
		Example: `  zkx watch /app/config
  zkx watch /app/locks/orders --children
  zkx watch /app/config -o json | jq -r '.new | @base64d'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := checkPath(args[0])
			if err != nil {
				return err
			}
			format, err := cliout.ParseFormat(output)
			if err != nil {
				return err
			}
			dialCtx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			c, err := g.dial(dialCtx)
			cancel()
			if err != nil {
				return err
			}
			defer c.Close()
			out := cmd.OutOrStdout()
			if isTerminal(cmd.ErrOrStderr()) {
				notef(cmd.ErrOrStderr(), "watching %s%s (ctrl+c ends)", p, map[bool]string{true: " and its children"}[children])
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = c.Follow(ctx, p, children, func(ch zkview.Change) error {
				return writeChange(out, ch, format)
			})
			if errors.Is(err, context.Canceled) {
				return nil // interrupted: the normal end
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json (one object a line)")
	cmd.Flags().BoolVar(&children, "children", false, "also print the children added and removed")
	return cmd
}

func writeChange(out io.Writer, ch zkview.Change, format cliout.Format) error {
	if format == cliout.JSON {
		b, err := json.Marshal(describeChange(ch))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", display.JSON(b))
		return err
	}
	_, err := fmt.Fprintln(out, cliout.Clean(changeLine(ch)))
	return err
}
