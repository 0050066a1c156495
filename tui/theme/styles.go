package theme

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are every style the explorer draws with. New picks a
// palette for the terminal's background; Plain has no colour at all
// (NO_COLOR, and the goldens of tests).
type Styles struct {
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
}

// palette is one set of colours; the dark and light ones differ only in
// which end of the scale text and highlights take.
type palette struct {
	Fg, Dim, Faint, Accent, AccentBg, SelBg, SelDimBg, FlashBg color.Color
	Green, Yellow, Red, Blue, Magenta, Cyan, Orange            color.Color
}

var darkPalette = palette{
	Fg: lipgloss.Color("#d0d0d0"), Dim: lipgloss.Color("#8a8a8a"), Faint: lipgloss.Color("#4e4e4e"),
	Accent: lipgloss.Color("#87afff"), AccentBg: lipgloss.Color("#303a50"),
	SelBg: lipgloss.Color("#3a4a6a"), SelDimBg: lipgloss.Color("#303030"), FlashBg: lipgloss.Color("#5f5f00"),
	Green: lipgloss.Color("#87d787"), Yellow: lipgloss.Color("#ffd75f"), Red: lipgloss.Color("#ff6b6b"),
	Blue: lipgloss.Color("#87afff"), Magenta: lipgloss.Color("#d787d7"), Cyan: lipgloss.Color("#5fd7d7"),
	Orange: lipgloss.Color("#ffaf5f"),
}

var lightPalette = palette{
	Fg: lipgloss.Color("#1c1c1c"), Dim: lipgloss.Color("#6c6c6c"), Faint: lipgloss.Color("#b2b2b2"),
	Accent: lipgloss.Color("#005fd7"), AccentBg: lipgloss.Color("#dfe8ff"),
	SelBg: lipgloss.Color("#c6d8ff"), SelDimBg: lipgloss.Color("#e4e4e4"), FlashBg: lipgloss.Color("#ffffaf"),
	Green: lipgloss.Color("#008700"), Yellow: lipgloss.Color("#af8700"), Red: lipgloss.Color("#d70000"),
	Blue: lipgloss.Color("#005fd7"), Magenta: lipgloss.Color("#af00af"), Cyan: lipgloss.Color("#008787"),
	Orange: lipgloss.Color("#d75f00"),
}

// New returns the styles for a dark or a light background.
func New(dark bool) Styles {
	p := lightPalette
	if dark {
		p = darkPalette
	}
	s := lipgloss.NewStyle
	return Styles{
		HeaderLabel: s().Foreground(p.Dim),
		HeaderValue: s().Foreground(p.Fg).Bold(true),
		Badge:       s().Foreground(lipgloss.Color("#ffffff")).Background(p.Red).Bold(true).Padding(0, 1),
		Crumb:       s().Foreground(p.Dim),
		CrumbLast:   s().Foreground(p.Accent).Bold(true),
		Connected:   s().Foreground(p.Green).Bold(true),
		Suspended:   s().Foreground(p.Yellow).Bold(true),
		Expired:     s().Foreground(p.Red).Bold(true),
		Connecting:  s().Foreground(p.Dim).Bold(true),
		Title:       s().Foreground(p.Accent).Bold(true),
		Border:      s().Foreground(p.Faint),
		Selected:    s().Background(p.SelBg).Foreground(p.Fg).Bold(true),
		SelectedDim: s().Background(p.SelDimBg),
		Flash:       s().Background(p.FlashBg),
		Dim:         s().Foreground(p.Dim),
		Ephemeral:   s().Foreground(p.Cyan),
		Label:       s().Foreground(p.Magenta),
		TabActive:   s().Foreground(p.Accent).Background(p.AccentBg).Bold(true).Padding(0, 1),
		TabInactive: s().Foreground(p.Dim).Padding(0, 1),
		Match:       s().Foreground(p.Orange).Bold(true),
		Holder:      s().Foreground(p.Green).Bold(true),
		Waiter:      s().Foreground(p.Yellow),
		You:         s().Foreground(p.Blue).Bold(true),
		Leader:      s().Foreground(p.Green).Bold(true),
		Warning:     s().Foreground(p.Orange),
		Error:       s().Foreground(p.Red).Bold(true),
		Info:        s().Foreground(p.Green),
		HelpKey:     s().Foreground(p.Accent).Bold(true),
		HelpDesc:    s().Foreground(p.Dim),
		Dialog:      s().Border(lipgloss.RoundedBorder()).BorderForeground(p.Accent).Padding(0, 1),
		LaneChain:   s().Foreground(p.Green).Bold(true),
		LaneHerd:    s().Foreground(p.Orange).Bold(true),
		LaneSpin:    s().Foreground(p.Magenta).Bold(true),
		LaneRedis:   s().Foreground(p.Red).Bold(true),
	}
}

// Plain draws without colour or attributes; the selection is still
// visible through the row marker every list draws.
func Plain() Styles {
	s := lipgloss.NewStyle()
	return Styles{
		HeaderLabel: s, HeaderValue: s, Badge: s.Padding(0, 1), Crumb: s, CrumbLast: s,
		Connected: s, Suspended: s, Expired: s, Connecting: s, Title: s, Border: s, Selected: s, SelectedDim: s,
		Flash: s, Dim: s, Ephemeral: s, Label: s, TabActive: s.Padding(0, 1), TabInactive: s.Padding(0, 1), Match: s,
		Holder: s, Waiter: s, You: s, Leader: s, Warning: s, Error: s, Info: s, HelpKey: s, HelpDesc: s,
		Dialog: s.Border(lipgloss.NormalBorder()).Padding(0, 1), LaneChain: s, LaneHerd: s, LaneSpin: s, LaneRedis: s,
	}
}
