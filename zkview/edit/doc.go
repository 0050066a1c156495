// Package edit edits a node's data in the user's editor, for zkx edit and
// the explorer's e: which data may be edited (text; JSON is checked on
// save; binary data is refused, with a note), the editor to run
// ($ZKX_EDITOR, $EDITOR, vi), and the write, conditional on the version
// read, which on a conflict shows what changed meanwhile. The caller runs
// the editor (a terminal program for the CLI, suspended for the
// explorer) and asks the user what to do; this package decides nothing
// on its own.
package edit
