package widget

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Navigate moves a table's cursor for a navigation key; false when the
// key is not one.
func Navigate(t *Table, k NavKeys, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		t.Move(-1)
	case key.Matches(msg, k.Down):
		t.Move(1)
	case key.Matches(msg, k.PageUp):
		t.Move(-t.bodyHeight())
	case key.Matches(msg, k.PageDown):
		t.Move(t.bodyHeight())
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

// MouseTable selects the clicked row of a table drawn top lines below
// the page's first, and scrolls with the wheel. open reports a click on
// the row already selected: a second click opens it, as enter does.
func MouseTable(t *Table, msg tea.MouseMsg, top int) (open bool) {
	m := msg.Mouse()
	switch msg.(type) {
	case tea.MouseClickMsg:
		if m.Button != tea.MouseLeft {
			return false
		}
		before, had := t.Selected()
		if !t.click(m.Y - top) {
			return false
		}
		after, _ := t.Selected()
		return had && after.Key == before.Key
	case tea.MouseWheelMsg:
		switch m.Button {
		case tea.MouseWheelUp:
			t.Move(-wheelStep)
		case tea.MouseWheelDown:
			t.Move(wheelStep)
		}
	}
	return false
}
