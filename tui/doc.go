// Package tui is zkx's terminal explorer, built on Bubble Tea v2.
//
// The root model (app) owns a header, a stack of pages (the tree,
// recipe lists, a recipe's chain, the server view, the demo) with
// breadcrumbs, and one status line that doubles as the `:` command line
// and the `/` filter. Every `:` command is one row of the registry in
// commands.go, which knows how to open its page. Pages share one sharedState
// (shared.go): the zkview client and live tree, styles, keys, the
// read-only switch and the clock. Files are named for what they hold:
// page_* (a screen on the stack), pane_* (a part of a page), demo_*;
// building blocks that need nothing of the app are in package widget,
// styles in package theme.
//
// No ZooKeeper I/O happens in Update: reads and writes run in tea.Cmds,
// and what the watches report (zkview.Tree updates, session events)
// arrives as messages. Actions go through zkview's Writer and the
// recipes package; in read-only mode neither exists, so the action keys
// are absent and refused by construction.
package tui
