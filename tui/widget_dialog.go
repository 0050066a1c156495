package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// dialog asks before something that changes ZooKeeper: a yes/no question,
// a value to type, or a path that must be typed back exactly (recursive
// delete). It is modal: App gives it every key while it is open.
type dialog struct {
	title string
	body  []string
	input *lineInput // nil for a yes/no question
	// mustType, when set, is what the input must equal to go ahead.
	mustType string
	problem  string
	submit   func(value string) tea.Cmd
}

func openDialog(d *dialog) tea.Cmd { return func() tea.Msg { return openDialogMsg{d: d} } }

func confirm(title string, body []string, yes func() tea.Cmd) *dialog {
	return &dialog{title: title, body: body, submit: func(string) tea.Cmd { return yes() }}
}

func ask(title string, body []string, prompt, initial string, submit func(string) tea.Cmd) *dialog {
	return &dialog{title: title, body: body, input: &lineInput{prompt: prompt, value: initial, limit: 1 << 20}, submit: submit}
}

// update handles a key; done reports that the dialog closes.
func (d *dialog) update(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	if d.input == nil {
		switch msg.String() {
		case "y", "Y", "enter":
			return d.submit(""), true
		case "n", "N", "esc", "q", "ctrl+c":
			return nil, true
		}
		return nil, false
	}
	switch d.input.update(msg) {
	case inputCancel:
		return nil, true
	case inputSubmit:
		if d.mustType != "" && d.input.value != d.mustType {
			d.problem = "type the path exactly to go ahead (esc to cancel)"
			return nil, false
		}
		return d.submit(d.input.value), true
	}
	d.problem = ""
	return nil, false
}

// view draws the dialog centred in width×height.
func (d *dialog) view(st Styles, width, height int) string {
	inner := min(max(width-8, 20), 90)
	lines := []string{st.Title.Render(d.title), ""}
	for _, l := range d.body {
		lines = append(lines, clipStyled(l, inner))
	}
	lines = append(lines, "")
	if d.input == nil {
		lines = append(lines, st.HelpKey.Render("y")+st.HelpDesc.Render(" yes   ")+st.HelpKey.Render("n/esc")+st.HelpDesc.Render(" no"))
	} else {
		lines = append(lines, d.input.view(st, inner))
		if d.problem != "" {
			lines = append(lines, st.Error.Render(d.problem))
		}
		lines = append(lines, st.HelpKey.Render("enter")+st.HelpDesc.Render(" go ahead   ")+st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	}
	box := st.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}

// clipStyled cuts a styled line to width cells.
func clipStyled(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	return fit(s, width)
}
