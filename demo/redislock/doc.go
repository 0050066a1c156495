// Package redislock is the Redis lock people compare ZooKeeper's with, as
// they write it: SET key token NX PX lease, retried every 100 ms while
// someone else holds it; released by a Lua compare-and-delete, so that a
// client never deletes a lock that is no longer its own; kept while held by
// a Redisson-style watchdog that pushes the lease out every lease/3 with a
// Lua compare-and-pexpire. It counts what it does into a lockstats.Stats, so
// zkx demo's Redis lane reports the same figures as its ZooKeeper lanes.
//
// What it cannot do is the point of the comparison: the lease is a timer,
// and a holder that stops (a GC pause, a stalled VM) for longer than the
// lease loses the lock without knowing it. There is no fencing token a
// resource could check.
package redislock
