package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipeColumns are the columns of each kind of list.
func recipeColumns(k recipeKind) []widget.ListColumn {
	switch k {
	case kindSystems:
		return []widget.ListColumn{
			{Title: "SYSTEM", Fit: true, Most: 17},
			{Title: "ROLE", Fit: true, Most: 22},
			{Title: "LEADER / STATE", Weight: 5, Min: 20},
			{Title: "SESSION", Fit: true, Most: 18, Hide: 2},
			{Title: "FOR", Fit: true, Most: 6, Hide: 3},
			{Title: "PATH", Weight: 4, Min: 16, Tail: true, Hide: 1},
			{Title: "WARNINGS", Weight: 3, Min: 8},
		}
	case kindQueues:
		return []widget.ListColumn{
			{Title: "PATH", Weight: 4, Min: 16, Tail: true},
			{Title: "FORMAT", Fit: true, Most: 17, Hide: 2},
			{Title: "LENGTH", Fit: true, Most: 9, Right: true},
			{Title: "OLDEST", Fit: true, Most: 7, Right: true},
			{Title: "IN FLIGHT", Fit: true, Most: 9, Right: true, Hide: 1},
			{Title: "WARNINGS", Fit: true, Most: 28, Words: true},
			{Title: "HEAD", Weight: 1, Min: 14, Words: true},
		}
	case kindRecipes:
		return otherRecipeColumns()
	case kindAlarms:
		return alarmColumns()
	case kindElections:
		return []widget.ListColumn{
			{Title: "PATH", Weight: 4, Min: 16, Tail: true},
			{Title: "FORMAT", Fit: true, Most: 17, Hide: 2},
			{Title: "LEADER", Weight: 5, Min: 20},
			{Title: "CLIENT", Fit: true, Most: 21, Hide: 4},
			{Title: "HEARD", Fit: true, Most: 12, Right: true, Hide: 3},
			{Title: "LEADS", Fit: true, Most: 7, Right: true, Hide: 1},
			{Title: "CANDIDATES", Fit: true, Most: 10, Right: true},
			{Title: "WARNINGS", Weight: 1, Min: 8},
		}
	}
	return []widget.ListColumn{
		{Title: "PATH", Weight: 4, Min: 20, Tail: true},
		{Title: "RECIPE", Fit: true, Most: 13, Hide: 1},
		{Title: "FORMAT", Fit: true, Most: 17, Hide: 3},
		{Title: "HOLDER", Weight: 5, Min: 20},
		{Title: "CLIENT", Fit: true, Most: 21, Hide: 5},
		{Title: "HEARD", Fit: true, Most: 12, Right: true, Hide: 4},
		{Title: "HELD", Fit: true, Most: 7, Right: true, Hide: 2},
		{Title: "WAITERS", Fit: true, Most: 7, Right: true},
		{Title: "WARNINGS", Weight: 1, Min: 12},
	}
}

// heldCell draws present.HeldOf in a cell: dimmed when it is a bound
// (the node's age), not the time zkx saw the holding begin.
func heldCell(st theme.Styles, c recognize.Contender, now time.Time) string {
	h := present.HeldOf(c, now)
	if h.Known || h.Cell == "?" {
		return h.Cell
	}
	return st.Dim.Render(h.Cell)
}

// recipeRow draws one recipe of the list. The row's signature leaves out
// how long the holder has held, which changes every second on its own.
func (p *recipeListPage) recipeRow(v recognize.Recipe, now time.Time) widget.TableRow {
	st := p.shared.Styles
	key := v.Info().Path
	var cells []string
	var sig []string
	warns := v.Info().Warnings
	switch p.kind {
	case kindSystems:
		cells = p.systemCells(v, now)
		sig = append(append([]string{}, cells[:4]...), cells[5:]...)
		v = nil
	case kindRecipes:
		cells = p.otherRecipeCells(v, now)
		sig = append([]string{}, cells...)
		v = nil
	}
	switch r := v.(type) {
	case *recognize.Lock:
		holder, client, heard, held, heardSig := st.Dim.Render("(free)"), "", "", "", ""
		if len(r.Holders) > 0 {
			h := r.Holders[0]
			holder = p.who(h)
			if more := len(r.Holders) - 1; more > 0 {
				holder += fmt.Sprintf(" +%d", more)
			}
			switch {
			case r.Broken:
				holder = st.Error.Render(fmt.Sprintf("✗ %d HOLDERS: %s", len(r.Holders), holderLabels(r.Holders)))
			case r.MaybeBroken:
				holder = st.Warning.Render(fmt.Sprintf("%s · %s?", holderLabels(r.Holders), holderLabels(mayHoldersOf(r))))
			}
			client = display.Line(h.ClientText())
			heard, heardSig = heardCell(st, h, now)
			held = heldCell(st, h, now)
		}
		recipe := r.Recipe
		if r.MaxLeases > 0 {
			recipe += fmt.Sprintf(" %d/%d", len(r.Holders), r.MaxLeases)
		}
		cells = []string{p.pathCell(r.Path), recipe, r.Format, holder, client, heard, held, strconv.Itoa(len(r.Waiters)), p.lockWarnCell(r)}
		sig = append(append(append([]string{}, cells[:5]...), heardSig), cells[7:]...)
	case *recognize.Queue:
		cells = p.queueCells(r, now)
		sig = append([]string{}, cells...)
	case *recognize.Election:
		leader, client, heard, leads, heardSig := st.Dim.Render("(none)"), "", "", "", ""
		if r.Leader != nil {
			leader = p.who(*r.Leader)
			client = display.Line(r.Leader.ClientText())
			heard, heardSig = heardCell(st, *r.Leader, now)
			leads = heldCell(st, *r.Leader, now)
		}
		cells = []string{p.pathCell(r.Path), r.Format, leader, client, heard, leads, strconv.Itoa(len(r.Candidates)), p.warnCell(warns)}
		sig = append(append(append([]string{}, cells[:4]...), heardSig), cells[6:]...)
	}
	if err := p.errs[key]; err != nil && len(cells) > 0 {
		// The last read of a listed recipe failed: say so where its
		// warnings go, and keep what was read before.
		cells[len(cells)-1] = st.Error.Render("✗ " + firstLine(err.Error()))
		sig = append(sig, err.Error())
	}
	return widget.TableRow{Key: key, Cells: cells, Signature: strings.Join(sig, "\x00")}
}

// systemCells draws one object of a system: who leads it (or how many
// members, how many items wait), the leader's session and how long it
// has led.
func (p *recipeListPage) systemCells(v recognize.Recipe, now time.Time) []string {
	st := p.shared.Styles
	info := v.Info()
	state, session, held := "", "", ""
	leader := func(c *recognize.Contender, inLine int) {
		if c == nil {
			state = st.Dim.Render("(nobody)")
			return
		}
		state = display.Line(c.Data)
		if state == "" {
			state = present.Label(*c)
		}
		if inLine > 0 {
			state += st.Dim.Render(fmt.Sprintf(" · %d in line", inLine))
		}
		session, held = c.Session, heldCell(st, *c, now)
		if p.shared.isOwnSession(c.SessionID) {
			session = st.You.Render("you")
		}
	}
	switch r := v.(type) {
	case *recognize.Election:
		leader(r.Leader, len(r.Candidates))
	case *recognize.Lock:
		var h *recognize.Contender
		if len(r.Holders) > 0 {
			h = &r.Holders[0]
		}
		leader(h, len(r.Waiters))
	case *recognize.Group:
		var names []string
		for _, m := range r.Members {
			name := recognize.BareName(m.Node)
			if len(name) == 36 && m.Data != "" {
				name = m.Data // a random instance id says less than what it is
			}
			names = append(names, name)
		}
		state = fmt.Sprintf("%d live: %s", len(r.Members), display.Line(strings.Join(names, ", ")))
	case *recognize.Queue:
		state = fmt.Sprintf("%d pending", r.Length)
		if len(r.Items) > 0 {
			state += ": " + display.Line(r.Items[0].Data)
		}
	case *recognize.Barrier:
		state = r.Kind
	}
	return []string{info.System, info.Role, state, session, held, p.pathCell(info.Path), p.warnCell(info.Warnings)}
}

// mayHoldersOf are the waiters of a lock that may hold.
func mayHoldersOf(l *recognize.Lock) []recognize.Contender {
	var out []recognize.Contender
	for _, w := range l.Waiters {
		if w.MayHold {
			out = append(out, w)
		}
	}
	return out
}

// holderLabels names holders by their nodes: "#3 #4".
func holderLabels(hs []recognize.Contender) string {
	labels := make([]string, len(hs))
	for i, h := range hs {
		labels[i] = present.Label(h)
	}
	return strings.Join(labels, " ")
}

// pathCell shows a recipe's path, escaped.
func (p *recipeListPage) pathCell(full string) string {
	return display.Line(full)
}

// who names a contender: its node's sequence number, and its session or
// "you" when it is the explorer's.
func (p *recipeListPage) who(c recognize.Contender) string {
	st := p.shared.Styles
	s := present.Label(c)
	switch {
	case c.Session == "":
		s += " " + st.Dim.Render("persistent")
	case p.shared.isOwnSession(c.SessionID):
		s += " " + st.You.Render("you")
	default:
		s += " " + c.Session
	}
	return s
}

// lockWarnCell names a lock's alarms (DEADLOCK, 2 HOLDERS, SILENT…) in
// the presenter's words when it has any, with how many warnings it has in
// all, rather than the start of a long sentence the column would cut; else
// as warnCell.
func (p *recipeListPage) lockWarnCell(l *recognize.Lock) string {
	words, sev := present.Alarms(l)
	if words == "" {
		return p.warnCell(l.Warnings)
	}
	if sev == present.Bad {
		return p.shared.Styles.Error.Render(words)
	}
	return p.shared.Styles.Warning.Render(words)
}

// warnCell is the first warning and how many more there are.
func (p *recipeListPage) warnCell(warns []string) string {
	if len(warns) == 0 {
		return ""
	}
	s := display.Line(warns[0])
	if len(warns) > 1 {
		s = fmt.Sprintf("(%d) %s", len(warns), s)
	}
	return p.shared.Styles.Warning.Render(s)
}
