// Package demo runs zkx demo: three lanes of lock contenders, one per
// waiting strategy (chain, herd, spin), side by side on one server, with
// counters that are measured, never derived: notifications are watch events
// delivered to contenders, reads are the getChildren/getData calls they
// made, and violations are overlaps seen by an independent checker. It also
// seeds realistic state for the explorer: services with JSON config, locks
// laid out as zkx, Curator and Kazoo lay them out, a queue, an election and
// a stuck lock.
//
// Lanes use the textbook chain (recipes.WithLookahead(false)) so that the
// lesson reads plainly: one notification per release, against the herd's
// N−1.
package demo
