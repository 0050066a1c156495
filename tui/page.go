package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/tui/widget"
)

// page is one screen below the header: the tree, a recipe list, a
// recipe's chain, the server, the demo. The app keeps them on a stack;
// Esc goes back.
type page interface {
	// Init starts the page's reads.
	Init() tea.Cmd
	// Update handles keys (only the top page gets them) and data messages
	// (every page on the stack gets them, so a page is current when the
	// user comes back to it).
	Update(msg tea.Msg) (page, tea.Cmd)
	// View draws exactly the size last given to SetSize.
	View() string
	SetSize(width, height int)
	// Title is the page's breadcrumb.
	Title() string
	// Keys are the bindings the page adds, for the status bar and `?`.
	Keys() []key.Binding
}

// filterable pages take the `/` filter.
type filterable interface {
	SetFilter(f widget.Filter)
	Filter() widget.Filter
}

// closer pages release what they hold (watches, goroutines) when popped.
type closer interface{ Close() }

// mouseTarget pages take clicks and wheel turns, in page coordinates.
type mouseTarget interface {
	Mouse(msg tea.MouseMsg) tea.Cmd
}
