package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview"
)

// The History tab: what the live tree's watches saw change of the node
// (zkview.Tree keeps it, bounded), newest first. The pane adds no watch of
// its own: the selected node's data is watched anyway, and while the tab
// shows the pane also follows the node's children through the same Tree.

// followHistoryChildren keeps the node's children followed while the
// History tab shows, so their changes join the timeline. A node with more
// children than maxLabelChildren is not listed for it, and neither is one
// whose child count is not read yet (it is checked again as it arrives).
func (d *detailPane) followHistoryChildren() {
	want := d.tab == tabHistory && d.path != "" && d.childrenFollowable() == nil
	if d.historyChildren != "" && (!want || d.historyChildren != d.path) {
		d.shared.collapse(d.historyChildren)
		d.historyChildren = ""
	}
	if want && d.historyChildren == "" {
		d.historyChildren = d.path
		d.shared.expand(d.path)
	}
}

// errCountUnread: the child count, which decides, is on its way.
var errCountUnread = errors.New("its child count is not read yet")

// childrenFollowable says why the node's children are not followed for
// its history, or nil when they may be.
func (d *detailPane) childrenFollowable() error {
	if d.shared.Tree == nil {
		return fmt.Errorf("no live tree")
	}
	n, _ := d.shared.Tree.Get(d.path)
	switch {
	case n.Stat == nil:
		return errCountUnread
	case n.Stat.NumChildren > maxLabelChildren:
		return fmt.Errorf("%s children are more than zkx lists to follow them (%s)",
			display.Count(n.Stat.NumChildren), display.Count(maxLabelChildren))
	}
	return nil
}

// historyLines draws the tab: what is followed since when, then each change
// in two lines, newest first.
func (d *detailPane) historyLines() []string {
	st := d.shared.Styles
	if d.shared.Tree == nil {
		return []string{st.Dim.Render("no live tree")}
	}
	h := d.shared.Tree.History(d.path)
	var lines []string
	// The pane watches the selected node's data: until the first read,
	// it is on its way, unless it cannot be read.
	switch n, _ := d.shared.Tree.Get(d.path); {
	case !h.DataSince.IsZero():
		lines = append(lines, st.Dim.Render("data followed since "+clock(h.DataSince)))
	case n.Err != nil && !zkview.IsNoNode(n.Err):
		lines = append(lines, st.Dim.Render("data: not followed: "+shortErr(n.Err)))
	default:
		lines = append(lines, st.Dim.Render("data: reading…"))
	}
	switch {
	case !h.ChildrenSince.IsZero():
		lines = append(lines, st.Dim.Render("children followed since "+clock(h.ChildrenSince)))
	case d.childrenFollowable() != nil && !errors.Is(d.childrenFollowable(), errCountUnread):
		lines = append(lines, st.Dim.Render("children: not followed: "+firstLine(d.childrenFollowable().Error())))
	default:
		lines = append(lines, st.Dim.Render("children: reading…"))
	}
	if persistent, why := d.shared.Tree.WatchMode(); persistent {
		lines = append(lines, st.Dim.Render("by a persistent watch: no re-arming, read at most every "+zkview.ReadEvery.String()))
	} else if why != nil {
		lines = append(lines, st.Dim.Render("by one-shot watches, set again after each event: "+firstLine(why.Error())))
	}
	changes := h.DroppedChanges
	for _, e := range h.Entries {
		changes += e.Changes
	}
	kept := fmt.Sprintf("%d %s kept, newest first (at most %d a node", len(h.Entries), plural(len(h.Entries), "change", "changes"), zkview.HistoryPerNode)
	if changes > len(h.Entries)+h.Dropped {
		kept = fmt.Sprintf("%s %s in %d %s kept, newest first (at most %d a node", display.Count(int64(changes)), plural(changes, "change", "changes"),
			len(h.Entries), plural(len(h.Entries), "read", "reads"), zkview.HistoryPerNode)
	}
	if h.Dropped > 0 {
		kept += fmt.Sprintf("; %d older let go", h.Dropped)
	}
	for _, l := range widget.Wrap(kept+")", max(d.width, 20)) { // the totals are read whole, not cut
		lines = append(lines, st.Dim.Render(l))
	}
	lines = append(lines, "")
	if len(h.Entries) == 0 {
		return append(lines, st.Dim.Render("no change seen yet: changes appear here as the watches see them"))
	}
	// Only what the pane can show is drawn: a busy node's 200 entries of
	// 50 names each are not formatted at every frame.
	for i := len(h.Entries) - 1; i >= 0 && len(lines) < d.scroll+d.height; i-- {
		lines = append(lines, d.historyEntry(h.Entries[i])...)
	}
	return lines
}

// clock is a time of day to the millisecond.
func clock(t time.Time) string { return t.Format("15:04:05.000") }

// historyEntry is one change: when, its zxid and what changed; then the
// data or the names.
func (d *detailPane) historyEntry(e zkview.HistoryEntry) []string {
	st := d.shared.Styles
	// The server stamps data changes and creations (mtime, ctime); a child
	// change or a deletion carries only when zkx saw it: marked ≈.
	when := " " + clock(e.Time)
	if e.Kind == zkview.ChangeChildren || e.Kind == zkview.ChangeDeleted {
		when = "≈" + clock(e.Seen)
	}
	zxid := "-"
	if e.Zxid != 0 {
		zxid = display.Hex(e.Zxid)
	}
	zxid = fmt.Sprintf("%-6s", zxid)
	plainHead := when + "  " + zxid + "  " + string(e.Kind) // its width, read without the styles' escapes
	head := st.Dim.Render(when+"  "+zxid) + "  " + st.Label.Render(string(e.Kind))
	var what, detail, who string
	width := max(d.width-6, 10)
	if e.Owner != 0 {
		// The only "who" ZooKeeper tells: the session owning an ephemeral.
		who = "ephemeral of " + st.Ephemeral.Render(display.Hex(e.Owner))
		width = max(width-lipgloss.Width(who)-3, 10)
	}
	// An entry that stands for several changes (a burst read together,
	// counted from the versions) says how many, and shows the two reads
	// it compares: what came and went between them is gone.
	many, count := "", ""
	if e.Unseen > 0 {
		count = fmt.Sprintf("%d changes", e.Changes)
		many = " " + st.Warning.Render(count) + st.Dim.Render(" between two reads:")
	}
	switch e.Kind {
	case zkview.ChangeData:
		what = fmt.Sprintf(" v%d · %s → %s", e.Version, byteSize(e.OldSize), byteSize(e.NewSize))
		half := max((width-3)/2, 5)
		detail = preview(e.Old, e.OldSize, half) + " → " + preview(e.New, e.NewSize, half)
	case zkview.ChangeCreated:
		if e.HasData {
			what = fmt.Sprintf(" v%d · %s", e.Version, byteSize(e.NewSize))
			detail = preview(e.New, e.NewSize, width)
		} else {
			detail = st.Dim.Render("(data not read: only the children were followed)")
		}
	case zkview.ChangeDeleted:
		if e.HasData {
			what = " · was " + byteSize(e.OldSize)
			detail = "was " + preview(e.Old, e.OldSize, width-4)
		}
	case zkview.ChangeChildren:
		what = fmt.Sprintf(" +%d −%d", len(e.Added)+e.MoreAdded, len(e.Removed)+e.MoreRem)
		detail = names(e, width)
	}
	if who != "" {
		if detail != "" {
			detail += st.Dim.Render(" · ")
		}
		detail += who
	}
	if e.Unseen > 0 && utf8.RuneCountInString(plainHead+" "+count+" between two reads:"+what) > d.width {
		many = " " + st.Warning.Render(count) + st.Dim.Render(":") // the whole count, not cut
	}
	out := []string{head + many + what}
	if detail != "" {
		out = append(out, "    "+detail)
	}
	return out
}

// preview is data quoted on one line, cut to width; … marks data left out
// (by the cut, or by the history's own preview limit).
func preview(data []byte, size, width int) string {
	var b strings.Builder
	esc := display.AppendEscaped(&b, data, false, max(width-3, 1))
	s := `"` + b.String()
	if esc.Cut > 0 || size > len(data) {
		return s + `"…`
	}
	return s + `"`
}

// names lists the children added and removed.
//
// Only the names that can show in width columns are drawn (the line is
// cut there): under churn each entry holds up to 50 names, and every frame
// draws every entry on screen.
func names(e zkview.HistoryEntry, width int) string {
	var b strings.Builder
	add := func(part string) bool {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(part)
		return utf8.RuneCountInString(b.String()) <= width
	}
	for _, n := range e.Added {
		if !add("+" + display.Line(n)) {
			return b.String()
		}
	}
	if e.MoreAdded > 0 && !add(fmt.Sprintf("+%d more", e.MoreAdded)) {
		return b.String()
	}
	for _, n := range e.Removed {
		if !add("−" + display.Line(n)) {
			return b.String()
		}
	}
	if e.MoreRem > 0 {
		add(fmt.Sprintf("−%d more", e.MoreRem))
	}
	return b.String()
}
