package tui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// ErrConnectCancelled is the user quitting while the explorer connects.
var ErrConnectCancelled = errors.New("quit while connecting")

// Connect runs dial while a screen says what it waits for (status's
// lines, refreshed every quarter second), so that a slow or hostile
// server never leaves a blank terminal that ignores its user: q, esc and
// ctrl+c end the wait at once (ErrConnectCancelled) and cancel dial's
// context. It returns what dial returned.
func Connect(ctx context.Context, target string, status func() []string, dial func(context.Context) (*zkview.Client, error), opts ...tea.ProgramOption) (*zkview.Client, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := &connectModel{target: display.Line(target), status: status, began: time.Now()}
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	go func() {
		c, err := dial(ctx)
		p.Send(dialedMsg{c, err})
	}()
	_, runErr := p.Run()
	switch {
	case m.dialed:
		return m.client, m.err
	case m.quit || errors.Is(runErr, tea.ErrInterrupted):
		return nil, ErrConnectCancelled
	case runErr != nil:
		return nil, runErr
	}
	return nil, ErrConnectCancelled
}

type dialedMsg struct {
	client *zkview.Client
	err    error
}

type connectTick struct{}

// connectModel is the screen shown while the explorer connects.
type connectModel struct {
	target string
	status func() []string
	began  time.Time
	width  int

	dialed bool
	client *zkview.Client
	err    error
	quit   bool
}

func (m *connectModel) Init() tea.Cmd { return connectTicker() }

func connectTicker() tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(time.Time) tea.Msg { return connectTick{} })
}

func (m *connectModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case dialedMsg:
		m.dialed, m.client, m.err = true, msg.client, msg.err
		return m, tea.Quit
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+c":
			m.quit = true
			return m, tea.Quit
		}
	case tea.WindowSizeMsg:
		m.width = msg.Width
	case connectTick:
		return m, connectTicker()
	}
	return m, nil
}

func (m *connectModel) View() tea.View {
	var b strings.Builder
	b.WriteString("zkx — connecting to " + m.target + " (" + time.Since(m.began).Round(time.Second).String() + ")\n\n")
	for _, line := range m.status() {
		line = display.Line(line)
		if m.width > 2 {
			line = ansi.Truncate(line, m.width-2, "…")
		}
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("\nq quits")
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.WindowTitle = "zkx " + m.target
	return v
}
