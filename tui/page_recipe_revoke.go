package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// revoke asks a lock's holder to release, as Curator's Revoker does (zkx
// revoke): only a holder that would hear it is asked, after a
// confirmation; the others are refused with the reason. With several
// holders the user picks, as for F.
func (p *recipePage) revoke() tea.Cmd {
	l, ok := p.view.recipe.(*recognize.Lock)
	if !ok {
		return failure(fmt.Errorf("%s is not a lock: only a lock's holder can be asked to release", p.view.path))
	}
	holders := p.holding()
	switch len(holders) {
	case 0:
		return failure(fmt.Errorf("nobody holds %s: nobody to ask", p.view.path))
	case 1:
		return p.confirmRevoke(l, holders[0].Contender)
	}
	now := p.shared.Now()
	choices := make([]string, len(holders))
	for i, h := range holders {
		choices[i] = p.view.holderLine(h, now)
	}
	body := []string{fmt.Sprintf("%d hold at once. Which one is to be asked to release?", len(holders))}
	return openDialog(widget.Choose("Revoke: which holder?", body, widget.Numbered(choices, func(i int) tea.Cmd {
		return p.confirmRevoke(l, holders[i].Contender)
	}), nil))
}

// confirmRevoke says why the holder would hear the request and who is
// next, asks, and writes __REVOKE__ into its node while it is still the
// holder's at the version just read.
func (p *recipePage) confirmRevoke(l *recognize.Lock, c recognize.Contender) tea.Cmd {
	var tables recognize.ServerTables
	if p.view.tables != nil {
		tables = p.view.tables.Tables()
	}
	node := recognize.ContenderPath(p.view.path, c.Node)
	evidence, err := l.Revocable(c, tables)
	if err != nil {
		return openDialog(widget.Show("Revoke: not asked", []string{
			"Not asked: " + display.Line(err.Error()) + ".", "", "F deletes the holder's node instead.",
		}))
	}
	st := p.shared.Styles
	who := present.Label(c) + " · " + c.Format
	if c.View != "" {
		who += " (" + c.View + ")"
	}
	next := l.Handover(c.Node)
	if next == "" {
		next = "not known"
	}
	body := []string{
		"Ask the holder of " + display.Line(p.view.path) + " to release?",
		"",
		"holder   " + who,
		"session  " + c.Session,
		"hears    " + display.Line(evidence),
		"next     " + display.Line(next),
		"",
		st.Warning.Render("It writes __REVOKE__ into the holder's node, as Curator's Revoker does. Nothing is forced: if it never releases, F deletes its node."),
	}
	w, ctx, session := p.shared.Writer, p.shared.Ctx, c.SessionID
	return openDialog(widget.Confirm("Revoke", body, func() tea.Cmd {
		return act(ctx, requestTimeout, func(ctx context.Context) (string, error) {
			stat, err := w.SetOwned(ctx, node, []byte(recognize.RevokeMarker), session)
			if err != nil {
				return "", err
			}
			return "asked " + present.Label(c) + " to release (__REVOKE__ at " + time.UnixMilli(stat.Mtime).Format("15:04:05") + "); F forces it if it never does", nil
		})
	}))
}
