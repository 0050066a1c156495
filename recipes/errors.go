package recipes

import "errors"

var (
	// ErrLocked is returned by TryLock and TryAcquire when another session
	// holds the lock or the leases.
	ErrLocked = errors.New("recipes: held by another session")
	// ErrNotLocked is returned by Unlock when this Mutex does not hold the
	// lock, or when its lock node was deleted by someone else.
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
)
