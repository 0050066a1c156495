// Package zkview is the live model of ZooKeeper coordination state behind
// both the explorer and the scriptable commands: what the TUI shows and what
// `zkx locks -o json` prints come from here.
//
//   - Client: a connection with the connect string's chroot applied, session
//     changes as events, errors that name the path and the server, and
//     writes only through a Writer, which a read-only client never hands out.
//   - Tree: a lazy mirror of what is shown or expanded, kept current by
//     one-shot watches re-armed on every event, its updates coalesced.
//   - Decoders and node details: text, JSON, hex, gzip, Curator queue items,
//     counters; stats with human times and hex zxids; ACLs.
//   - Recognisers: locks, read-write locks, semaphores, elections, queues and
//     barriers as Curator, Kazoo, ZooKeeper's own recipes, go-zookeeper and
//     zkx write them, with who holds, who waits for whom, and diagnostics.
//   - Introspection: four-letter words (and the AdminServer) on every member:
//     sessions, client addresses, ephemerals, watches.
//
// zkview knows nothing of the TUI; it never watches a whole tree.
package zkview
