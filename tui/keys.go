package tui

import (
	"charm.land/bubbles/v2/key"

	"github.com/zkx-dev/zkx/tui/widget"
)

// globalKeys work on every page.
type globalKeys struct {
	Quit, Back, Help, Command, Filter, Refresh key.Binding
	// Notices opens the last status message and the page's notices in
	// full; Warnings a recipe's warnings.
	Notices, Warnings key.Binding
}

// detailKeys switch the detail pane's tabs and decoders.
type detailKeys struct {
	NextTab, PrevTab, Hex, Decoder, History key.Binding
}

// actionKeys change ZooKeeper. A read-only explorer has none: newKeyMap
// leaves them disabled, so they neither match nor show in help.
type actionKeys struct {
	Create, Edit, Delete, DeleteTree    key.Binding
	Acquire, Release, ForceRelease      key.Binding
	Enqueue, Dequeue, Volunteer, Resign key.Binding
	// Revoke asks a Curator lock's holder to release (__REVOKE__).
	Revoke key.Binding
}

// treeKeys are the tree page's tools: find and export read, the rest
// write (newKeyMap disables those when read-only, as actionKeys).
type treeKeys struct {
	Find, Export               key.Binding
	Import, Copy, Move, SetACL key.Binding
}

// demoKeys drive the demo's lanes.
type demoKeys struct {
	More, Fewer, Pause, Crash, Close, Stall, HoldLonger, HoldShorter, Reset, Lane key.Binding
}

// keyMap is the whole keymap; `?` builds its help from it.
type keyMap struct {
	Global globalKeys
	Nav    widget.NavKeys
	Detail detailKeys
	Action actionKeys
	Tree   treeKeys
	Demo   demoKeys
}

func bind(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// newKeyMap returns the keymap; readOnly disables every action key.
func newKeyMap(readOnly bool) keyMap {
	k := keyMap{
		Global: globalKeys{
			Quit:     bind([]string{"ctrl+c"}, "ctrl+c", "quit"),
			Back:     bind([]string{"esc", "q"}, "esc/q", "back (quit on the first page)"),
			Help:     bind([]string{"?"}, "?", "help"),
			Command:  bind([]string{":"}, ":", "command (:locks, :cd /path …)"),
			Filter:   bind([]string{"/"}, "/", "filter (substring, or /regex/)"),
			Refresh:  bind([]string{"ctrl+r"}, "ctrl+r", "read everything again"),
			Notices:  bind([]string{"!"}, "!", "the last message and the page's notes in full"),
			Warnings: bind([]string{"w"}, "w", "every warning in full"),
		},
		Nav: widget.NavKeys{
			Up:       bind([]string{"up", "k"}, "↑/k", "up"),
			Down:     bind([]string{"down", "j"}, "↓/j", "down"),
			PageUp:   bind([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
			PageDown: bind([]string{"pgdown", "ctrl+f", "space"}, "pgdn", "page down"),
			Top:      bind([]string{"home", "g"}, "g", "top"),
			Bottom:   bind([]string{"end", "G"}, "G", "bottom"),
			Left:     bind([]string{"left", "h"}, "←/h", "collapse / parent"),
			Right:    bind([]string{"right", "l"}, "→/l", "expand"),
			Enter:    bind([]string{"enter"}, "enter", "open"),
			Focus:    bind([]string{"tab"}, "tab", "switch pane"),
		},
		Detail: detailKeys{
			NextTab: bind([]string{"]"}, "]", "next tab"),
			PrevTab: bind([]string{"["}, "[", "previous tab"),
			Hex:     bind([]string{"x"}, "x", "hex on/off"),
			Decoder: bind([]string{"t"}, "t", "next decoder"),
			History: bind([]string{"H"}, "H", "history tab (H again: data)"),
		},
		Action: actionKeys{
			Create:       bind([]string{"n"}, "n", "new child (persistent, TTL…)"),
			Edit:         bind([]string{"e"}, "e", "edit data in $EDITOR"),
			Delete:       bind([]string{"d"}, "d", "delete node"),
			DeleteTree:   bind([]string{"D"}, "D", "delete node and children"),
			Acquire:      bind([]string{"a"}, "a", "acquire the lock"),
			Release:      bind([]string{"u"}, "u", "release our lock"),
			ForceRelease: bind([]string{"F"}, "F", "force-release the holder"),
			Enqueue:      bind([]string{"+"}, "+", "enqueue an item"),
			Dequeue:      bind([]string{"-"}, "-", "dequeue the head"),
			Volunteer:    bind([]string{"v"}, "v", "volunteer as candidate"),
			Resign:       bind([]string{"R"}, "R", "resign"),
			Revoke:       bind([]string{"r"}, "r", "ask the holder to release (Curator revocation)"),
		},
		Tree: treeKeys{
			Find:   bind([]string{"F"}, "F", "find under the node (name, data, owner, age)"),
			Export: bind([]string{"X"}, "X", "export the subtree to a file (JSON Lines)"),
			Import: bind([]string{"I"}, "I", "import a file under the node"),
			Copy:   bind([]string{"c"}, "c", "copy the subtree to…"),
			Move:   bind([]string{"m"}, "m", "move the subtree to…"),
			SetACL: bind([]string{"A"}, "A", "set the node's ACL"),
		},
		Demo: demoKeys{
			More:        bind([]string{"+", "="}, "+", "one more contender per lane"),
			Fewer:       bind([]string{"-"}, "-", "one fewer contender per lane"),
			Pause:       bind([]string{"p"}, "p", "pause / resume"),
			Crash:       bind([]string{"k"}, "k", "crash a holder (node goes at expiry)"),
			Stall:       bind([]string{"z"}, "z", "stall the next holder (a stop-the-world pause)"),
			Close:       bind([]string{"K"}, "K", "close a holder (node goes at once)"),
			HoldLonger:  bind([]string{"H"}, "H", "hold longer"),
			HoldShorter: bind([]string{"h"}, "h", "hold shorter"),
			Reset:       bind([]string{"r"}, "r", "reset counters"),
			Lane:        bind([]string{"tab"}, "tab", "next lane (k/K act on it)"),
		},
	}
	if readOnly {
		for _, b := range []*key.Binding{&k.Action.Create, &k.Action.Edit, &k.Action.Delete, &k.Action.DeleteTree,
			&k.Action.Acquire, &k.Action.Release, &k.Action.ForceRelease, &k.Action.Enqueue, &k.Action.Dequeue,
			&k.Action.Volunteer, &k.Action.Resign, &k.Action.Revoke, &k.Tree.Import, &k.Tree.Copy, &k.Tree.Move, &k.Tree.SetACL} {
			b.SetEnabled(false)
		}
	}
	return k
}
