// Package zkserver is an embedded, in-memory, single-node server that speaks
// ZooKeeper's client wire protocol well enough for go-zookeeper, zkCli.sh,
// Curator and Kazoo to use it unchanged. It exists so that `zkx demo` and the
// tests run on any machine with Go; production means a real ensemble.
//
// One mutex orders everything: each request is decoded by its connection's
// reader goroutine, then applied under the lock, and its reply and every
// notification it causes are queued to the connections' outboxes before the
// lock is released. That gives one total order of writes, FIFO order per
// client, and ZooKeeper's guarantee that a client sees a watch event before
// the data that follows it. A writer goroutine per connection drains its
// outbox to the socket, so a slow client never holds the lock.
//
// The behaviour follows ZooKeeper 3.8's request processors: the order of
// validation (and so which error wins), stat bookkeeping (cversion, pzxid),
// watch semantics (one-shot, persistent, recursive), multi results and the
// four-letter words' text. The conformance suite in this package runs the
// same cases against this server and a real ZooKeeper and requires the same
// answers.
//
// For tests it injects faults on demand: drop a session's connection, delay
// replies, expire a session, pause the whole server, or drop a connection
// right before or after a chosen request is applied.
package zkserver
