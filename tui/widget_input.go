package tui

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// lineInput is a one-line editor for the command line, the filter and
// dialogs: type, backspace, ctrl+u, ctrl+w, and tab through completions.
// It draws no blinking cursor (App places the terminal's), so an open
// prompt costs no frames.
type lineInput struct {
	prompt string
	value  string
	// complete offers completions of the whole value; nil for none.
	complete func(value string) []string
	choices  []string
	choice   int
	// limit caps the value's length in bytes (0: no cap).
	limit int
}

// inputResult is what a key did to the input.
type inputResult int

const (
	inputEditing inputResult = iota
	inputSubmit
	inputCancel
)

func (in *lineInput) update(msg tea.KeyPressMsg) inputResult {
	switch msg.String() {
	case "enter":
		return inputSubmit
	case "esc", "ctrl+c":
		return inputCancel
	case "tab", "shift+tab":
		in.cycle(msg.String() == "tab")
		return inputEditing
	case "backspace", "ctrl+h":
		if in.value == "" {
			return inputEditing
		}
		_, size := utf8.DecodeLastRuneInString(in.value)
		in.value = in.value[:len(in.value)-size]
	case "ctrl+u":
		in.value = ""
	case "ctrl+w":
		v := strings.TrimRight(in.value, " /")
		if i := strings.LastIndexAny(v, " /"); i >= 0 {
			in.value = v[:i+1]
		} else {
			in.value = ""
		}
	default:
		text := msg.Text
		if text == "" || strings.ContainsAny(text, "\x00\r\n") {
			return inputEditing
		}
		if in.limit > 0 && len(in.value)+len(text) > in.limit {
			return inputEditing
		}
		in.value += text
	}
	in.choices = nil
	return inputEditing
}

// cycle completes the value: the first tab computes the completions and
// takes their common prefix (or the only one); further tabs step through
// them.
func (in *lineInput) cycle(forward bool) {
	if in.complete == nil {
		return
	}
	if in.choices == nil {
		in.choices = in.complete(in.value)
		in.choice = -1
		if len(in.choices) == 0 {
			return
		}
		if len(in.choices) == 1 {
			in.value = in.choices[0]
			in.choices = nil
			return
		}
		if p := commonPrefix(in.choices); len(p) > len(in.value) {
			in.value = p
			return
		}
	}
	if len(in.choices) == 0 {
		return
	}
	if forward {
		in.choice = (in.choice + 1) % len(in.choices)
	} else {
		in.choice = (in.choice - 1 + len(in.choices)) % len(in.choices)
	}
	in.value = in.choices[in.choice]
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// view draws the prompt, the value and a block where the cursor is, and
// the completions on offer.
func (in *lineInput) view(st Styles, width int) string {
	line := st.Title.Render(in.prompt) + in.value + "█"
	if len(in.choices) > 1 {
		line += "  " + st.Dim.Render(strings.Join(in.choices, "  "))
	}
	return fit(line, width)
}
