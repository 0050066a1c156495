package recipes

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// RWMutex is a distributed readers-writer lock in one directory, laid out as
// Curator's InterProcessReadWriteLock ("_c_<uuid>-__READ__SEQ" and
// "_c_<uuid>-__WRIT__SEQ") or, with WithFormat(Kazoo), as Kazoo's ReadLock
// and WriteLock ("<hex32>__rlock__SEQ" and "<hex32>__lock__SEQ"), so it
// shares the lock with those libraries.
//
// Readers and writers queue together in sequence order. A writer holds the
// lock when no node of either kind is below its own, and waits for its
// immediate predecessor; a reader holds it when no writer is below, and
// waits for the lowest writer below (it would have to go first anyway).
// Readers share the lock; a writer excludes readers and writers. A reader
// arriving while a writer waits queues behind that writer, so writers are
// not starved.
//
// Kazoo 2.8 (Debian's) has a ReadLock bug (python-zk/kazoo#649, fixed by
// #650 in a later release): its reader waits for the highest writer in the
// directory, even one queued after it, and so deadlocks with that writer,
// whoever's it is. Kazoo writers are safe to mix with RWMutex.
//
// The read side and the write side are independent contenders that happen
// to share a directory: one goroutine may use the read side (RLock,
// TryRLock, RUnlock) while another uses the write side (Lock, TryLock,
// Unlock), but each side is used by one goroutine at a time and holds at
// most one lock (a second RLock while reading returns ErrDeadlock, as a
// second Lock while writing does). There is no downgrade: RLock while this
// RWMutex holds the write lock waits for Unlock, like any other reader.
type RWMutex struct {
	reader, writer *Mutex
}

// NewRWMutex returns an RWMutex on directory dir (created on demand, as
// containers). Options: WithData, WithACL, WithFormat, WithLookahead (for
// writers). Both sides wait in the chained way described on RWMutex.
func NewRWMutex(s *Session, dir string, opts ...Option) *RWMutex {
	o := buildOptions(opts)
	read, write := curatorRead, curatorWrite
	if o.format == Kazoo {
		read, write = kazooRead, kazooLock
	}
	markers := []string{read, write}
	side := func(marker string, rule func([]contender) position) *Mutex {
		return &Mutex{session: s, dir: dir, opts: o, marker: marker,
			line: &waitingLine{session: s, dir: dir, opts: o, markers: markers, rule: rule}}
	}
	return &RWMutex{
		reader: side(read, readerRule(write)),
		writer: side(write, chainRule(o.lookahead)),
	}
}

// readerRule decides for a reader: it holds when no writer is below it, and
// otherwise waits for the lowest writer below, as Curator's ReadLock does.
// Nodes between that writer and us need not be watched: readers do not
// block us, and later writers cannot hold before the lowest one has gone.
func readerRule(writeMarker string) func(below []contender) position {
	return func(below []contender) position {
		for _, c := range below {
			if c.marker == writeMarker {
				return position{watch: c.name}
			}
		}
		return position{holds: true}
	}
}

// RLock blocks until a read lock is held, ctx ends, or the session is lost.
// On failure nothing of the attempt is left on the server.
func (rw *RWMutex) RLock(ctx context.Context) error { return rw.reader.Lock(ctx) }

// TryRLock takes a read lock if no writer holds or waits for the lock
// ahead of us, else returns ErrLocked at once, leaving no node behind.
func (rw *RWMutex) TryRLock(ctx context.Context) error { return rw.reader.TryLock(ctx) }

// RUnlock releases the read lock. It returns ErrSessionLost when the
// session (and with it the lock) is already gone, and ErrNotLocked when no
// read lock is held or its node was deleted by someone else.
func (rw *RWMutex) RUnlock(ctx context.Context) error { return rw.reader.Unlock(ctx) }

// Lock blocks until the write lock is held, ctx ends, or the session is
// lost. On failure nothing of the attempt is left on the server.
func (rw *RWMutex) Lock(ctx context.Context) error { return rw.writer.Lock(ctx) }

// TryLock takes the write lock if nobody holds or waits for the lock (of
// either kind), else returns ErrLocked at once, leaving no node behind.
func (rw *RWMutex) TryLock(ctx context.Context) error { return rw.writer.TryLock(ctx) }

// Unlock releases the write lock. It returns ErrSessionLost when the
// session (and with it the lock) is already gone, and ErrNotLocked when the
// write lock is not held or its node was deleted by someone else.
func (rw *RWMutex) Unlock(ctx context.Context) error { return rw.writer.Unlock(ctx) }

// Token returns the fencing token of the write lock held (zero when not
// held). The Zxids of both sides follow the order of the holdings: a
// write token is above those of every holding (read or write) before it
// and below those of every holding after it, so a resource that remembers
// the highest Zxid it has seen can refuse a stale writer.
func (rw *RWMutex) Token() Token { return rw.writer.Token() }

// ReadToken returns the fencing token of the read lock held (zero when not
// held). Readers that hold at once have different tokens in no particular
// order; each is above the token of the last writer before it.
func (rw *RWMutex) ReadToken() Token { return rw.reader.Token() }

// Done is closed when the write lock held is lost: the session ended, or
// the node was deleted by someone else. It is nil when the write lock is
// not held, and is not closed by Unlock.
func (rw *RWMutex) Done() <-chan struct{} { return rw.writer.Done() }

// ReadDone is Done for the read lock held.
func (rw *RWMutex) ReadDone() <-chan struct{} { return rw.reader.Done() }

// IsOwner returns a check for conn.Multi that succeeds only while our write
// lock node exists, so a transaction commits only under the write lock.
func (rw *RWMutex) IsOwner() zk.CheckVersionRequest { return rw.writer.IsOwner() }

// IsReadOwner is IsOwner for the read lock.
func (rw *RWMutex) IsReadOwner() zk.CheckVersionRequest { return rw.reader.IsOwner() }
