package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
)

// create asks for a new node's name, its mode (persistent, sequential,
// container, TTL with its duration, ephemeral after a warning) and data,
// then creates it.
func (tp *treePage) create() tea.Cmd {
	dir := tp.tree.selectedPath()
	return openDialog(widget.Ask("New node under "+display.Line(dir), []string{
		"Name of the new node (its kind and data are asked next):"}, "name> ", "", func(name string) tea.Cmd {
		p, err := zkview.CheckPath(zkview.ChildPath(dir, name))
		if err != nil || strings.Contains(name, "/") {
			return failure(fmt.Errorf("node name %q: a name is one path component, e.g. config", name))
		}
		if err := protected(p); err != nil {
			return failure(err)
		}
		return tp.askMode(p)
	}))
}

// askMode asks which kind of node p is.
func (tp *treePage) askMode(p string) tea.Cmd {
	st := tp.shared.Styles
	body := []string{
		st.HeaderLabel.Render("p") + "  persistent: stays until deleted",
		st.HeaderLabel.Render("s") + "  sequential: persistent, named " + display.Line(p) + "0000000042 (the parent's next number)",
		st.HeaderLabel.Render("c") + "  container: the server deletes it once it had children and has none left",
		st.HeaderLabel.Render("t") + "  TTL: the server deletes it once childless and unchanged for a time you give",
		st.HeaderLabel.Render("e") + "  ephemeral: dies with zkx's own session",
	}
	choice := func(m zkview.CreateMode) func() tea.Cmd {
		return func() tea.Cmd { return tp.askData(p, m, 0) }
	}
	return openDialog(widget.Choose("Kind of "+display.Line(p), body, []widget.Choice{
		{Key: "p", Label: "persistent", Do: choice(zkview.Persistent)},
		{Key: "s", Label: "sequential", Do: choice(zkview.Sequential)},
		{Key: "c", Label: "container", Do: choice(zkview.Container)},
		{Key: "t", Label: "TTL", Do: func() tea.Cmd { return tp.askTTL(p) }},
		{Key: "e", Label: "ephemeral", Do: func() tea.Cmd { return tp.warnEphemeral(p) }},
	}, nil))
}

func (tp *treePage) askTTL(p string) tea.Cmd {
	return openDialog(widget.Ask("TTL of "+display.Line(p), []string{
		"How long it may stay childless and unchanged before the server deletes it (90s, 10m, 24h):",
		tp.shared.Styles.Dim.Render("Servers create TTL nodes only with zookeeper.extendedTypesEnabled=true."),
	}, "ttl> ", "", func(text string) tea.Cmd {
		ttl, err := time.ParseDuration(strings.TrimSpace(text))
		if err != nil || ttl < time.Millisecond || ttl > zkview.MaxTTL {
			return failure(fmt.Errorf("TTL %q: write a duration from 1ms up, as 90s, 10m or 24h", text))
		}
		return tp.askData(p, zkview.TTL, ttl)
	}))
}

func (tp *treePage) warnEphemeral(p string) tea.Cmd {
	st := tp.shared.Styles
	return openDialog(widget.Confirm("An ephemeral node", []string{
		st.Warning.Render("An ephemeral node belongs to the session that creates it: zkx's own."),
		st.Warning.Render("It is deleted when you quit the explorer, switch context, or the session expires."),
		"Create " + display.Line(p) + " as an ephemeral node anyway?",
	}, func() tea.Cmd { return tp.askData(p, zkview.Ephemeral, 0) }))
}

func (tp *treePage) askData(p string, mode zkview.CreateMode, ttl time.Duration) tea.Cmd {
	w, ctx := tp.shared.Writer, tp.shared.Ctx
	kind := mode.String()
	if mode == zkview.TTL {
		kind += " " + ttl.String()
	}
	return openDialog(widget.Ask("Data for "+display.Line(p)+" ("+kind+")", []string{"Text to store (may be empty):"}, "data> ", "", func(data string) tea.Cmd {
		return act(ctx, requestTimeout, func(ctx context.Context) (string, error) {
			created, err := w.CreateAs(ctx, p, []byte(data), mode, ttl)
			return "created " + created + " (" + kind + ")", err
		})
	}))
}
