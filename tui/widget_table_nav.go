package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// navigate moves a table's cursor for a navigation key; false when the
// key is not one.
func navigate(t *table, k NavKeys, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		t.move(-1)
	case key.Matches(msg, k.Down):
		t.move(1)
	case key.Matches(msg, k.PageUp):
		t.move(-t.bodyHeight())
	case key.Matches(msg, k.PageDown):
		t.move(t.bodyHeight())
	case key.Matches(msg, k.Top):
		t.home()
	case key.Matches(msg, k.Bottom):
		t.end()
	default:
		return false
	}
	return true
}

// wheelStep is how many rows a turn of the wheel scrolls.
const wheelStep = 3

// mouseTable selects the clicked row of a table drawn top lines below
// the page's first, and scrolls with the wheel. open reports a click on
// the row already selected: a second click opens it, as enter does.
func mouseTable(t *table, msg tea.MouseMsg, top int) (open bool) {
	m := msg.Mouse()
	switch msg.(type) {
	case tea.MouseClickMsg:
		if m.Button != tea.MouseLeft {
			return false
		}
		before, had := t.selected()
		if !t.click(m.Y - top) {
			return false
		}
		after, _ := t.selected()
		return had && after.key == before.key
	case tea.MouseWheelMsg:
		switch m.Button {
		case tea.MouseWheelUp:
			t.move(-wheelStep)
		case tea.MouseWheelDown:
			t.move(wheelStep)
		}
	}
	return false
}
