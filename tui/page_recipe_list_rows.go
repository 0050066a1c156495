package tui

import (
	"github.com/zkx-dev/zkx/zkview/recognize"

	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// recipeColumns are the columns of each kind of list.
func recipeColumns(k recipeKind) []listColumn {
	switch k {
	case kindSystems:
		return []listColumn{
			{title: "SYSTEM", fit: true, most: 17},
			{title: "ROLE", fit: true, most: 22},
			{title: "LEADER / STATE", weight: 5, min: 20},
			{title: "SESSION", fit: true, most: 18, hide: 2},
			{title: "FOR", fit: true, most: 6, hide: 3},
			{title: "PATH", weight: 4, min: 16, tail: true, hide: 1},
			{title: "WARNINGS", weight: 3, min: 8},
		}
	case kindQueues:
		return []listColumn{
			{title: "PATH", weight: 4, min: 16, tail: true},
			{title: "FORMAT", fit: true, most: 17, hide: 1},
			{title: "LENGTH", fit: true, most: 9, right: true},
			{title: "HEAD", weight: 4, min: 12},
			{title: "WARNINGS", weight: 2, min: 8},
		}
	case kindElections:
		return []listColumn{
			{title: "PATH", weight: 4, min: 16, tail: true},
			{title: "FORMAT", fit: true, most: 17, hide: 2},
			{title: "LEADER", weight: 5, min: 20},
			{title: "CLIENT", fit: true, most: 21, hide: 1},
			{title: "LEADS", fit: true, most: 6, hide: 3},
			{title: "CANDIDATES", fit: true, most: 10, right: true},
			{title: "WARNINGS", weight: 1, min: 8},
		}
	}
	return []listColumn{
		{title: "PATH", weight: 4, min: 16, tail: true},
		{title: "RECIPE", fit: true, most: 13, hide: 3},
		{title: "FORMAT", fit: true, most: 17, hide: 2},
		{title: "HOLDER", weight: 5, min: 20},
		{title: "CLIENT", fit: true, most: 21, hide: 1},
		{title: "HELD", fit: true, most: 6, hide: 4},
		{title: "WAITERS", fit: true, most: 7, right: true},
		{title: "WARNINGS", weight: 1, min: 8},
	}
}

// recipeRow draws one recipe of the list. The row's signature leaves out
// how long the holder has held, which changes every second on its own.
func (p *recipeListPage) recipeRow(v recognize.Recipe, now time.Time) tableRow {
	st := p.ctx.Styles
	key := v.Info().Path
	var cells []string
	var sig []string
	warns := v.Info().Warnings
	if p.kind == kindSystems {
		cells = p.systemCells(v, now)
		sig = append(append([]string{}, cells[:4]...), cells[5:]...)
		v = nil
	}
	switch r := v.(type) {
	case *recognize.Lock:
		holder, client, held := st.Dim.Render("(free)"), "", ""
		if len(r.Holders) > 0 {
			h := r.Holders[0]
			holder = p.who(h)
			if more := len(r.Holders) - 1; more > 0 {
				holder += fmt.Sprintf(" +%d", more)
			}
			client = display.Line(h.ClientText())
			held = since(h.Created, now)
		}
		recipe := r.Recipe
		if r.MaxLeases > 0 {
			recipe += fmt.Sprintf(" %d/%d", len(r.Holders), r.MaxLeases)
		}
		cells = []string{p.pathCell(r.Path), recipe, r.Format, holder, client, held, strconv.Itoa(len(r.Waiters)), p.warnCell(warns)}
		sig = append(append([]string{}, cells[:5]...), cells[6:]...)
	case *recognize.Queue:
		head := st.Dim.Render("(empty)")
		if len(r.Items) > 0 {
			it := r.Items[0]
			head = display.Line(recognize.BareName(path.Base(it.Node)))
			if it.Data != "" {
				head += ": " + display.Line(it.Data)
			}
			if it.Taken {
				head += " (taken)"
			}
		}
		cells = []string{p.pathCell(r.Path), r.Format, strconv.Itoa(r.Length), head, p.warnCell(warns)}
		sig = append([]string{}, cells...)
	case *recognize.Election:
		leader, client, leads := st.Dim.Render("(none)"), "", ""
		if r.Leader != nil {
			leader = p.who(*r.Leader)
			client = display.Line(r.Leader.ClientText())
			leads = since(r.Leader.Created, now)
		}
		cells = []string{p.pathCell(r.Path), r.Format, leader, client, leads, strconv.Itoa(len(r.Candidates)), p.warnCell(warns)}
		sig = append(append([]string{}, cells[:4]...), cells[5:]...)
	}
	if err := p.errs[key]; err != nil && len(cells) > 0 {
		// The last read of a listed recipe failed: say so where its
		// warnings go, and keep what was read before.
		cells[len(cells)-1] = st.Error.Render("✗ " + firstLine(err.Error()))
		sig = append(sig, err.Error())
	}
	return tableRow{key: key, cells: cells, sig: strings.Join(sig, "\x00")}
}

// systemCells draws one object of a system: who leads it (or how many
// members, how many items wait), the leader's session and how long it
// has led.
func (p *recipeListPage) systemCells(v recognize.Recipe, now time.Time) []string {
	st := p.ctx.Styles
	info := v.Info()
	state, session, held := "", "", ""
	leader := func(c *recognize.Contender, inLine int) {
		if c == nil {
			state = st.Dim.Render("(nobody)")
			return
		}
		state = display.Line(c.Data)
		if state == "" {
			state = nodeLabel(*c)
		}
		if inLine > 0 {
			state += st.Dim.Render(fmt.Sprintf(" · %d in line", inLine))
		}
		session, held = c.Session, since(c.Created, now)
		if p.ctx.you(c.SessionID) {
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

// pathCell shows a recipe's path, escaped.
func (p *recipeListPage) pathCell(full string) string {
	return display.Line(full)
}

// who names a contender: its node's sequence number, and its session or
// "you" when it is the explorer's.
func (p *recipeListPage) who(c recognize.Contender) string {
	st := p.ctx.Styles
	s := nodeLabel(c)
	switch {
	case c.Session == "":
		s += " " + st.Dim.Render("persistent")
	case p.ctx.you(c.SessionID):
		s += " " + st.You.Render("you")
	default:
		s += " " + c.Session
	}
	return s
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
	return p.ctx.Styles.Warning.Render(s)
}

// nodeLabel names a contender's node in a row: "#3" when its name ends
// in its sequence number (the order is what the name says; the session
// says who), the bare name otherwise.
func nodeLabel(c recognize.Contender) string {
	base := path.Base(c.Node)
	if strings.HasSuffix(base, fmt.Sprintf("%010d", c.Seq)) {
		return fmt.Sprintf("#%d", c.Seq)
	}
	return display.Line(recognize.BareName(base))
}
