// Package tui is zkx's terminal explorer, built on Bubble Tea v2.
//
// The root model (App) owns a header, a stack of pages (the browser,
// recipe lists, a recipe's chain, the server view, the demo) with
// breadcrumbs, and one status line that doubles as the `:` command line
// and the `/` filter. Pages share one Context: the zkview client and live
// tree, styles, keys, the read-only switch and the clock.
//
// No ZooKeeper I/O happens in Update: reads and writes run in tea.Cmds,
// and what the watches report (zkview.Tree updates, session events)
// arrives as messages. Actions go through zkview's Writer and the
// recipes package; in read-only mode neither exists, so the action keys
// are absent and refused by construction.
package tui
