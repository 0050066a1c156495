package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are every style the explorer draws with. NewStyles picks a
// palette for the terminal's background; PlainStyles has no colour at all
// (NO_COLOR, and the goldens of tests).
type Styles struct {
	Plain bool

	App         lipgloss.Style
	HeaderLabel lipgloss.Style
	HeaderValue lipgloss.Style
	Badge       lipgloss.Style // READ-ONLY
	Crumb       lipgloss.Style
	CrumbLast   lipgloss.Style

	Connected  lipgloss.Style
	Suspended  lipgloss.Style
	Expired    lipgloss.Style
	Connecting lipgloss.Style

	Title       lipgloss.Style // a pane's or a section's title
	Border      lipgloss.Style // pane borders and separators
	Selected    lipgloss.Style // the cursor row of the focused pane
	SelectedDim lipgloss.Style // the cursor row of a pane without focus
	Flash       lipgloss.Style // a row that just changed
	Dim         lipgloss.Style
	Ephemeral   lipgloss.Style
	Label       lipgloss.Style // recipe labels on tree rows
	TabActive   lipgloss.Style
	TabInactive lipgloss.Style
	Match       lipgloss.Style // filter matches

	Holder  lipgloss.Style
	Waiter  lipgloss.Style
	You     lipgloss.Style
	Leader  lipgloss.Style
	Warning lipgloss.Style
	Error   lipgloss.Style
	Info    lipgloss.Style

	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	Dialog   lipgloss.Style

	// Lanes of the demo: chain, herd, spin.
	LaneChain lipgloss.Style
	LaneHerd  lipgloss.Style
	LaneSpin  lipgloss.Style
	LaneRedis lipgloss.Style
	Spark     lipgloss.Style
}

// palette is one set of colours; the dark and light ones differ only in
// which end of the scale text and highlights take.
type palette struct {
	fg, dim, faint, accent, accentBg, selBg, selDimBg, flashBg color.Color
	green, yellow, red, blue, magenta, cyan, orange            color.Color
}

var darkPalette = palette{
	fg: lipgloss.Color("#d0d0d0"), dim: lipgloss.Color("#8a8a8a"), faint: lipgloss.Color("#4e4e4e"),
	accent: lipgloss.Color("#87afff"), accentBg: lipgloss.Color("#303a50"),
	selBg: lipgloss.Color("#3a4a6a"), selDimBg: lipgloss.Color("#303030"), flashBg: lipgloss.Color("#5f5f00"),
	green: lipgloss.Color("#87d787"), yellow: lipgloss.Color("#ffd75f"), red: lipgloss.Color("#ff6b6b"),
	blue: lipgloss.Color("#87afff"), magenta: lipgloss.Color("#d787d7"), cyan: lipgloss.Color("#5fd7d7"),
	orange: lipgloss.Color("#ffaf5f"),
}

var lightPalette = palette{
	fg: lipgloss.Color("#1c1c1c"), dim: lipgloss.Color("#6c6c6c"), faint: lipgloss.Color("#b2b2b2"),
	accent: lipgloss.Color("#005fd7"), accentBg: lipgloss.Color("#dfe8ff"),
	selBg: lipgloss.Color("#c6d8ff"), selDimBg: lipgloss.Color("#e4e4e4"), flashBg: lipgloss.Color("#ffffaf"),
	green: lipgloss.Color("#008700"), yellow: lipgloss.Color("#af8700"), red: lipgloss.Color("#d70000"),
	blue: lipgloss.Color("#005fd7"), magenta: lipgloss.Color("#af00af"), cyan: lipgloss.Color("#008787"),
	orange: lipgloss.Color("#d75f00"),
}

// NewStyles returns the styles for a dark or a light background.
func NewStyles(dark bool) Styles {
	p := lightPalette
	if dark {
		p = darkPalette
	}
	s := lipgloss.NewStyle
	return Styles{
		App:         s(),
		HeaderLabel: s().Foreground(p.dim),
		HeaderValue: s().Foreground(p.fg).Bold(true),
		Badge:       s().Foreground(lipgloss.Color("#ffffff")).Background(p.red).Bold(true).Padding(0, 1),
		Crumb:       s().Foreground(p.dim),
		CrumbLast:   s().Foreground(p.accent).Bold(true),
		Connected:   s().Foreground(p.green).Bold(true),
		Suspended:   s().Foreground(p.yellow).Bold(true),
		Expired:     s().Foreground(p.red).Bold(true),
		Connecting:  s().Foreground(p.dim).Bold(true),
		Title:       s().Foreground(p.accent).Bold(true),
		Border:      s().Foreground(p.faint),
		Selected:    s().Background(p.selBg).Foreground(p.fg).Bold(true),
		SelectedDim: s().Background(p.selDimBg),
		Flash:       s().Background(p.flashBg),
		Dim:         s().Foreground(p.dim),
		Ephemeral:   s().Foreground(p.cyan),
		Label:       s().Foreground(p.magenta),
		TabActive:   s().Foreground(p.accent).Background(p.accentBg).Bold(true).Padding(0, 1),
		TabInactive: s().Foreground(p.dim).Padding(0, 1),
		Match:       s().Foreground(p.orange).Bold(true),
		Holder:      s().Foreground(p.green).Bold(true),
		Waiter:      s().Foreground(p.yellow),
		You:         s().Foreground(p.blue).Bold(true),
		Leader:      s().Foreground(p.green).Bold(true),
		Warning:     s().Foreground(p.orange),
		Error:       s().Foreground(p.red).Bold(true),
		Info:        s().Foreground(p.green),
		HelpKey:     s().Foreground(p.accent).Bold(true),
		HelpDesc:    s().Foreground(p.dim),
		Dialog:      s().Border(lipgloss.RoundedBorder()).BorderForeground(p.accent).Padding(0, 1),
		LaneChain:   s().Foreground(p.green).Bold(true),
		LaneHerd:    s().Foreground(p.orange).Bold(true),
		LaneSpin:    s().Foreground(p.magenta).Bold(true),
		LaneRedis:   s().Foreground(p.red).Bold(true),
		Spark:       s().Foreground(p.accent),
	}
}

// PlainStyles draws without colour or attributes; the selection is still
// visible through the row marker every list draws.
func PlainStyles() Styles {
	s := lipgloss.NewStyle()
	return Styles{
		Plain: true, App: s, HeaderLabel: s, HeaderValue: s, Badge: s.Padding(0, 1), Crumb: s, CrumbLast: s,
		Connected: s, Suspended: s, Expired: s, Connecting: s, Title: s, Border: s, Selected: s, SelectedDim: s,
		Flash: s, Dim: s, Ephemeral: s, Label: s, TabActive: s.Padding(0, 1), TabInactive: s.Padding(0, 1), Match: s,
		Holder: s, Waiter: s, You: s, Leader: s, Warning: s, Error: s, Info: s, HelpKey: s, HelpDesc: s,
		Dialog: s.Border(lipgloss.NormalBorder()).Padding(0, 1), LaneChain: s, LaneHerd: s, LaneSpin: s, LaneRedis: s, Spark: s,
	}
}
