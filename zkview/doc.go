// Package zkview is the live model of ZooKeeper coordination state behind
// both the explorer and the scriptable commands: what the TUI shows and what
// `zkx locks -o json` prints come from here and its sub-packages.
//
//   - Client: a connection with the connect string's chroot applied, session
//     changes as events, errors that name the path and the server, and
//     writes only through a Writer, which a read-only client never hands out.
//   - Tree: a lazy mirror of what is shown or expanded, kept current by
//     persistent watches (one-shot ones on servers before 3.6), a busy
//     node read at most once per ReadEvery, its updates coalesced.
//   - Walk and Pool: pipelined, bounded reads of a whole subtree over one
//     connection or several.
//   - Node details: data (through zkview/decode), stats with human times
//     and hex zxids, ACLs.
//
// Beside it: zkview/decode (data decoders, a leaf), zkview/introspect (the
// servers' own tables: four-letter words and AdminServer on every member)
// zkview/recognize (recipes and systems recognised from the nodes,
// reading through this package's Reader) and zkview/live (recipes kept
// current from a Tree).
//
// zkview knows nothing of the TUI; it never watches a whole tree.
package zkview
