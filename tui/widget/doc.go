// Package widget holds the explorer's building blocks that know nothing of
// ZooKeeper or of the app: a scrolling, filterable table (and its
// column-fitting wrapper for lists), the one-line input with completion,
// the modal dialog, the / filter, navigation keys and text fitting. Pages
// in package tui compose them; the styles come from package theme.
package widget
