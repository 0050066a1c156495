package recipes

import "errors"

var (
	// ErrLocked is returned by TryLock, TryRLock and TryAcquire when they
	// would have to wait: the lock is held, or every lease is taken.
	ErrLocked = errors.New("recipes: held by another session")
	// ErrNotLocked is returned by Unlock, RUnlock, Lease.Release and
	// Election.Resign when there is nothing of ours to release, or when our
	// node was deleted by someone else.
	ErrNotLocked = errors.New("recipes: not locked")
	// ErrDeadlock is returned by Lock when the Mutex already holds the lock
	// or is already waiting for it.
	ErrDeadlock = errors.New("recipes: already locked or locking")
	// ErrSessionLost is returned once the session is gone (expired, closed,
	// or disconnected for longer than its timeout): whatever it held is
	// released by the server.
	ErrSessionLost = errors.New("recipes: session lost")
	// ErrNoLeader is returned by Election.Leader when nobody campaigns.
	ErrNoLeader = errors.New("recipes: no leader")
	// ErrEmpty is returned by Queue.Poll and Queue.Peek when the queue holds
	// no item.
	ErrEmpty = errors.New("recipes: queue empty")
	// ErrUncertain is returned when a change was sent and its answer was
	// lost (the connection or the session went, or the caller's context
	// ended while it was in flight), so the recipe cannot tell whether the
	// server applied it. See Queue.Put and Queue.Take for what it means
	// there.
	ErrUncertain = errors.New("recipes: outcome unknown, the answer was lost")
	// ErrNotEntered is returned by DoubleBarrier.Leave when the DoubleBarrier
	// has not entered the barrier, and by Party.Leave and GroupMember.Leave
	// when they have not joined.
	ErrNotEntered = errors.New("recipes: not entered")
)
