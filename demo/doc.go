// Package demo runs zkx demo: four lanes of lock contenders side by side,
// one per ZooKeeper waiting strategy (chain, herd, spin) and a Redis lock
// (package redislock), with counters that are measured, never derived:
// notifications are watch events delivered to contenders, reads are the
// getChildren/getData calls they made, and violations are overlaps seen by
// an independent checker. Failure scenarios crash holders or freeze them in
// a stop-the-world pause (gate.go), and every holder writes to a fenced
// store (fenced.go) that refuses stale fencing tokens and counts the unsafe
// writes a lock without one lets through. Sweep runs the lanes at growing
// contender counts (package sweepchart draws it). It also
// seeds realistic state for the explorer: services with JSON config, locks
// laid out as zkx, Curator and Kazoo lay them out, a queue, an election and
// a stuck lock.
//
// Lanes use the textbook chain (recipes.WithLookahead(false)) so that the
// lesson reads plainly: one notification per release, against the herd's
// N−1.
package demo
