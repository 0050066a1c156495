package widget

import "charm.land/bubbles/v2/key"

// NavKeys move through a list or a tree.
type NavKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right, Enter, Focus key.Binding
}
