// Package recipes implements ZooKeeper coordination recipes on
// go-zookeeper: Mutex, RWMutex, Semaphore, Queue, Election, Barrier and
// DoubleBarrier, over a Session that knows when it is lost.
//
// The recipes write the node layouts of Apache Curator by default (and
// Kazoo's with WithFormat(Kazoo)), so a zkx Mutex and a Curator
// InterProcessMutex on the same path exclude each other. A few write one
// library's layout only, for a Go service among Python and Java ones:
// Party (Kazoo's Party), GroupMember (Curator's GroupMember), SharedCount
// (Curator's SharedCount, which Kazoo's Counter also writes with
// support_curator) and CuratorQueue (Curator's DistributedQueue items).
//
// The API follows etcd's concurrency package: every wait takes a context;
// sentinel errors (ErrLocked, ErrNotLocked, ErrDeadlock, ErrSessionLost,
// ErrNoLeader, ErrEmpty, ErrUncertain, ErrNotEntered) say what happened.
// Options: WithData, WithACL, WithFormat and WithLookahead for the recipes,
// the Session's own for the connection.
//
// The rules every lock-like recipe keeps:
//
//   - Protected creates: node names carry a random prefix, so after a
//     connection loss during the create the recipe finds its node by the
//     prefix (and checks its ephemeralOwner is our session) instead of
//     leaving an orphan behind.
//   - A waiter watches its predecessor with getData (not exists, which would
//     leave a watch on a missing node), and only the node it must wait for,
//     so a release wakes one waiter, not the herd.
//   - Handoff fast path: sequence numbers under a parent only grow, so when
//     the predecessor we watch goes and it was the only node below ours, we
//     hold the lock without listing the children again.
//   - A cancelled or failed wait deletes its node, on a fresh context.
//   - Parent directories are container nodes, which the server removes once
//     they have emptied (persistent nodes in Kazoo's format: Kazoo assumes
//     its directories stay); children that do not match the format are
//     ignored. A Queue's directory is persistent: a remade one would start
//     its sequence again, and a consumer could delete a newer item under an
//     older one's name (see NewQueue).
//   - A held lock is lost when the session is: Done closes and Unlock
//     returns ErrSessionLost. go-zookeeper quietly opens a new session after
//     an expiry; Session notices and reports the old one lost.
package recipes
