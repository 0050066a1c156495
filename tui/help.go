package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/tui/widget"
)

// helpNoter pages add a few lines of explanation below their keys in `?`.
type helpNoter interface{ HelpNotes() []string }

// helpGroup is one column of the `?` screen.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpGroups builds the `?` screen from the keymaps: what works
// everywhere, then what the current page adds. Disabled bindings (the
// actions of a read-only explorer) are left out.
func helpGroups(k keyMap, pageTitle string, pageKeys []key.Binding) []helpGroup {
	g := k.Global
	groups := []helpGroup{
		{title: "Everywhere", keys: []key.Binding{g.Command, g.Filter, g.Help, g.Notices, g.Back, g.Refresh, g.Quit}},
	}
	if len(pageKeys) > 0 {
		groups = append(groups, helpGroup{title: "On this page", keys: pageKeys})
	}
	groups = append(groups, helpGroup{title: "Commands", keys: commandHelp()})
	return groups
}

// commandHelp describes the `:` commands as bindings, so they print like
// keys.
func commandHelp() []key.Binding {
	var out []key.Binding
	for _, c := range commands {
		out = append(out, key.NewBinding(key.WithKeys(c.name), key.WithHelp(":"+c.usage, c.help)))
	}
	return out
}

func enabled(keys []key.Binding) []key.Binding {
	var out []key.Binding
	for _, b := range keys {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// helpView draws the groups in columns as wide as they need, wrapping to
// new rows of columns when the screen is narrow.
func helpView(st theme.Styles, groups []helpGroup, notes []string, width, height int) string {
	var cols []string
	for _, g := range groups {
		keys := enabled(g.keys)
		if len(keys) == 0 {
			continue
		}
		kw := 0
		for _, b := range keys {
			kw = max(kw, lipgloss.Width(b.Help().Key))
		}
		lines := []string{st.Title.Render(g.title)}
		for _, b := range keys {
			h := b.Help()
			lines = append(lines, st.HelpKey.Render(h.Key+strings.Repeat(" ", kw-lipgloss.Width(h.Key)))+"  "+st.HelpDesc.Render(h.Desc))
		}
		cols = append(cols, strings.Join(lines, "\n"))
	}
	if len(notes) > 0 && len(cols) > 0 {
		// Under the first (short) column, as wide as it: the space beside
		// a page's long list of keys is free.
		wrap := lipgloss.NewStyle().Width(max(lipgloss.Width(cols[0]), 30))
		lines := []string{cols[0], "", st.Title.Render("Notes")}
		for i, n := range notes {
			if i > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, st.Dim.Render(wrap.Render(n)))
		}
		cols[0] = strings.Join(lines, "\n")
	}
	var rows []string
	var row []string
	rowW := 0
	for _, c := range cols {
		w := lipgloss.Width(c) + 3
		if rowW > 0 && rowW+w > width-4 {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, rowW = nil, 0
		}
		row = append(row, lipgloss.NewStyle().PaddingRight(3).Render(c))
		rowW += w
	}
	if len(row) > 0 {
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	}
	body := st.Dim.Render("keys — any key closes this help") + "\n\n" + strings.Join(rows, "\n\n")
	return widget.Block(widget.SplitLines(lipgloss.NewStyle().Padding(0, 2).Render(body)), width, height)
}
