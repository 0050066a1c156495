package widget

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/tui/theme"
)

// LineInput is a one-line editor for the command line, the filter and
// dialogs: type, backspace, ctrl+u, ctrl+w, and tab through completions.
// It draws no blinking cursor (the explorer places the terminal's), so an open
// prompt costs no frames.
type LineInput struct {
	Prompt string
	Value  string
	// complete offers completions of the whole value; nil for none.
	Complete func(value string) []string
	choices  []string
	choice   int
	// limit caps the value's length in bytes (0: no cap).
	Limit int
}

// InputResult is what a key did to the input.
type InputResult int

const (
	InputEditing InputResult = iota
	InputSubmit
	InputCancel
)

func (in *LineInput) Update(msg tea.KeyPressMsg) InputResult {
	switch msg.String() {
	case "enter":
		return InputSubmit
	case "esc", "ctrl+c":
		return InputCancel
	case "tab", "shift+tab":
		in.cycle(msg.String() == "tab")
		return InputEditing
	case "backspace", "ctrl+h":
		if in.Value == "" {
			return InputEditing
		}
		_, size := utf8.DecodeLastRuneInString(in.Value)
		in.Value = in.Value[:len(in.Value)-size]
	case "ctrl+u":
		in.Value = ""
	case "ctrl+w":
		v := strings.TrimRight(in.Value, " /")
		if i := strings.LastIndexAny(v, " /"); i >= 0 {
			in.Value = v[:i+1]
		} else {
			in.Value = ""
		}
	default:
		text := msg.Text
		if text == "" || strings.ContainsAny(text, "\x00\r\n") {
			return InputEditing
		}
		if in.Limit > 0 && len(in.Value)+len(text) > in.Limit {
			return InputEditing
		}
		in.Value += text
	}
	in.choices = nil
	return InputEditing
}

// cycle completes the value: the first tab computes the completions and
// takes their common prefix (or the only one); further tabs step through
// them.
func (in *LineInput) cycle(forward bool) {
	if in.Complete == nil {
		return
	}
	if in.choices == nil {
		in.choices = in.Complete(in.Value)
		in.choice = -1
		if len(in.choices) == 0 {
			return
		}
		if len(in.choices) == 1 {
			in.Value = in.choices[0]
			in.choices = nil
			return
		}
		if p := commonPrefix(in.choices); len(p) > len(in.Value) {
			in.Value = p
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
	in.Value = in.choices[in.choice]
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

// View draws the prompt, the value and a block where the cursor is, and
// the completions on offer.
func (in *LineInput) View(st theme.Styles, width int) string {
	// The value may be a path or a name from the server (a default, a
	// completion): shown escaped, kept as it is.
	line := st.Title.Render(in.Prompt) + display.Line(in.Value) + "█"
	if len(in.choices) > 1 {
		line += "  " + st.Dim.Render(display.Line(strings.Join(in.choices, "  ")))
	}
	return Fit(line, width)
}
