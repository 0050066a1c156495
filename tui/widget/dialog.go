package widget

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/zkx-dev/zkx/tui/theme"
)

// Dialog asks before something that changes ZooKeeper: a yes/no question,
// a value to type, or a path that must be typed back exactly (recursive
// delete). It is modal: the explorer gives it every key while it is open.
type Dialog struct {
	title string
	body  []string
	input *LineInput // nil for a yes/no question
	// MustType, when set, is what the input must equal to go ahead.
	MustType string
	problem  string
	submit   func(value string) tea.Cmd
	// choices, when set, make the dialog a question with several answers,
	// one key each; cancel (nil: nothing) runs on esc.
	choices []Choice
	cancel  func() tea.Cmd
	// shown makes the dialog a text to read: any of enter, esc, q closes it.
	shown bool
}

// Choice is one answer of a question: its key, what it says, what it does.
type Choice struct {
	Key, Label string
	Do         func() tea.Cmd
}

// Show shows body to read, wrapped to the dialog's width.
func Show(title string, body []string) *Dialog {
	return &Dialog{title: title, body: body, shown: true, submit: func(string) tea.Cmd { return nil }}
}

// Choose asks a question with several answers; esc runs cancel (may be nil).
func Choose(title string, body []string, choices []Choice, cancel func() tea.Cmd) *Dialog {
	return &Dialog{title: title, body: body, choices: choices, cancel: cancel}
}

// Numbered makes answers of labels, keyed 1 to 9 (at most nine), each
// calling pick with its index.
func Numbered(labels []string, pick func(i int) tea.Cmd) []Choice {
	var out []Choice
	for i, l := range labels[:min(len(labels), 9)] {
		out = append(out, Choice{Key: string(rune('1' + i)), Label: l, Do: func() tea.Cmd { return pick(i) }})
	}
	return out
}

func Confirm(title string, body []string, yes func() tea.Cmd) *Dialog {
	return &Dialog{title: title, body: body, submit: func(string) tea.Cmd { return yes() }}
}

func Ask(title string, body []string, prompt, initial string, submit func(string) tea.Cmd) *Dialog {
	return &Dialog{title: title, body: body, input: &LineInput{Prompt: prompt, Value: initial, Limit: 1 << 20}, submit: submit}
}

// Update handles a key; done reports that the dialog closes.
func (d *Dialog) Update(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	if d.shown {
		switch msg.String() {
		case "enter", "esc", "q", "ctrl+c", "!", "w":
			return nil, true
		}
		return nil, false
	}
	if d.choices != nil {
		k := msg.String()
		for _, c := range d.choices {
			if k == c.Key {
				return c.Do(), true
			}
		}
		if k == "esc" || k == "q" || k == "ctrl+c" {
			if d.cancel != nil {
				return d.cancel(), true
			}
			return nil, true
		}
		return nil, false
	}
	if d.input == nil {
		switch msg.String() {
		case "y", "Y", "enter":
			return d.submit(""), true
		case "n", "N", "esc", "q", "ctrl+c":
			return nil, true
		}
		return nil, false
	}
	switch d.input.Update(msg) {
	case InputCancel:
		return nil, true
	case InputSubmit:
		if d.MustType != "" && d.input.Value != d.MustType {
			d.problem = "type the path exactly to go ahead (esc to cancel)"
			return nil, false
		}
		return d.submit(d.input.Value), true
	}
	d.problem = ""
	return nil, false
}

// View draws the dialog centred in width×height.
func (d *Dialog) View(st theme.Styles, width, height int) string {
	inner := min(max(width-8, 20), 90)
	lines := []string{st.Title.Render(d.title), ""}
	body := WrapAll(d.body, inner)
	// The box must fit the screen: its border, title, gaps and keys take
	// about eight lines.
	if room := height - 9 - len(d.choices); len(body) > room && room > 1 {
		body = append(body[:room-1:room-1], st.Dim.Render(fmt.Sprintf("… %d more lines", len(body)-room+1)))
	}
	lines = append(lines, body...)
	lines = append(lines, "")
	switch {
	case d.shown:
		lines = append(lines, st.HelpKey.Render("enter/esc")+st.HelpDesc.Render(" close"))
	case d.choices != nil:
		lines = append(lines, d.choiceLines(st, inner)...)
	case d.input == nil:
		lines = append(lines, st.HelpKey.Render("y")+st.HelpDesc.Render(" yes   ")+st.HelpKey.Render("n/esc")+st.HelpDesc.Render(" no"))
	default:
		lines = append(lines, d.input.View(st, inner))
		if d.problem != "" {
			lines = append(lines, st.Error.Render(d.problem))
		}
		lines = append(lines, st.HelpKey.Render("enter")+st.HelpDesc.Render(" go ahead   ")+st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"))
	}
	box := st.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(width, height, lipgloss.Center, lipgloss.Center, box)
}

// choiceLines are the answers: on one line when they fit ("e edit again
// d discard   esc cancel"), else one a line, wrapped, with esc below.
func (d *Dialog) choiceLines(st theme.Styles, width int) []string {
	escape := st.HelpKey.Render("esc") + st.HelpDesc.Render(" cancel")
	var hints []string
	for _, c := range d.choices {
		hints = append(hints, st.HelpKey.Render(c.Key)+st.HelpDesc.Render(" "+c.Label))
	}
	if one := strings.Join(append(hints, escape), "   "); lipgloss.Width(one) <= width {
		return []string{one}
	}
	lines := WrapAll(hints, width)
	return append(lines, "", escape)
}
