package widget

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/tui/theme"
)

// dialog asks before something that changes ZooKeeper: a yes/no question,
// a value to type, or a path that must be typed back exactly (recursive
// delete). It is modal: App gives it every key while it is open.
type Dialog struct {
	Title string
	Body  []string
	Input *LineInput // nil for a yes/no question
	// mustType, when set, is what the input must equal to go ahead.
	MustType string
	// Choices, when set, make the dialog a choice: keys 1… pick one, and
	// Submit gets its index as text.
	Choices []string
	Problem string
	Submit  func(value string) tea.Cmd
	// Shown makes the dialog a text to read: any of enter, esc, q closes it.
	Shown bool
}

// Show shows body to read, wrapped to the dialog's width.
func Show(title string, body []string) *Dialog {
	return &Dialog{Title: title, Body: body, Shown: true, Submit: func(string) tea.Cmd { return nil }}
}

// Choose asks which of choices (at most nine) to go ahead with.
func Choose(title string, body, choices []string, pick func(i int) tea.Cmd) *Dialog {
	return &Dialog{Title: title, Body: body, Choices: choices, Submit: func(v string) tea.Cmd {
		i := int(v[0] - '1')
		return pick(i)
	}}
}

func Confirm(title string, body []string, yes func() tea.Cmd) *Dialog {
	return &Dialog{Title: title, Body: body, Submit: func(string) tea.Cmd { return yes() }}
}

func Ask(title string, body []string, prompt, initial string, submit func(string) tea.Cmd) *Dialog {
	return &Dialog{Title: title, Body: body, Input: &LineInput{Prompt: prompt, Value: initial, Limit: 1 << 20}, Submit: submit}
}

// update handles a key; done reports that the dialog closes.
func (d *Dialog) Update(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	if d.Shown {
		switch msg.String() {
		case "enter", "esc", "q", "ctrl+c", "!", "w":
			return nil, true
		}
		return nil, false
	}
	if len(d.Choices) > 0 {
		k := msg.String()
		switch {
		case len(k) == 1 && k[0] >= '1' && int(k[0]-'1') < min(len(d.Choices), 9):
			return d.Submit(k), true
		case k == "n", k == "N", k == "esc", k == "q", k == "ctrl+c":
			return nil, true
		}
		return nil, false
	}
	if d.Input == nil {
		switch msg.String() {
		case "y", "Y", "enter":
			return d.Submit(""), true
		case "n", "N", "esc", "q", "ctrl+c":
			return nil, true
		}
		return nil, false
	}
	switch d.Input.Update(msg) {
	case InputCancel:
		return nil, true
	case InputSubmit:
		if d.MustType != "" && d.Input.Value != d.MustType {
			d.Problem = "type the path exactly to go ahead (esc to cancel)"
			return nil, false
		}
		return d.Submit(d.Input.Value), true
	}
	d.Problem = ""
	return nil, false
}

// view draws the dialog centred in width×height.
func (d *Dialog) View(st theme.Styles, width, height int) string {
	inner := min(max(width-8, 20), 90)
	lines := []string{st.Title.Render(d.Title), ""}
	body := WrapAll(d.Body, inner)
	// The box must fit the screen: its border, title, gaps and keys take
	// about eight lines.
	if room := height - 8 - len(d.Choices); len(body) > room && room > 1 {
		body = append(body[:room-1:room-1], st.Dim.Render(fmt.Sprintf("… %d more lines", len(body)-room+1)))
	}
	lines = append(lines, body...)
	lines = append(lines, "")
	switch {
	case d.Shown:
		lines = append(lines, st.HelpKey.Render("enter/esc")+st.HelpDesc.Render(" close"))
	case len(d.Choices) > 0:
		for i, c := range d.Choices[:min(len(d.Choices), 9)] {
			lines = append(lines, WrapAll([]string{st.HelpKey.Render(string(rune('1'+i))) + " " + c}, inner)...)
		}
		lines = append(lines, "", st.HelpKey.Render("1…")+st.HelpDesc.Render(" choose   ")+st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	case d.Input == nil:
		lines = append(lines, st.HelpKey.Render("y")+st.HelpDesc.Render(" yes   ")+st.HelpKey.Render("n/esc")+st.HelpDesc.Render(" no"))
	default:
		lines = append(lines, d.Input.View(st, inner))
		if d.Problem != "" {
			lines = append(lines, st.Error.Render(d.Problem))
		}
		lines = append(lines, st.HelpKey.Render("enter")+st.HelpDesc.Render(" go ahead   ")+st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	}
	box := st.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}

// clipStyled cuts a styled line to width cells.
func ClipStyled(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	return Fit(s, width)
}
