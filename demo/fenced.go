package demo

import "sync"

// FencedStore is the shared resource a lane's holders write to, and the
// referee of the failure scenarios. It checks fencing tokens as a storage
// service that supports them would: a write whose token is older than one
// already seen is refused (stale_rejected). A write with no token (Redis)
// cannot be checked and is accepted. Independently it knows, from the
// grants, whether the writer still held the lock: a write accepted from a
// holder whose lock had since been granted to another is unsafe.
type FencedStore struct {
	mu      sync.Mutex
	granted uint64 // holdings granted so far; each holder's grant number
	highest int64  // the highest token seen
	writes  uint64
	unsafe  uint64
	stale   uint64
}

// NewFencedStore returns an empty store.
func NewFencedStore() *FencedStore { return &FencedStore{} }

// Grant records a new holding and returns its number, which the holder
// writes with.
func (s *FencedStore) Grant() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.granted++
	return s.granted
}

// WriteOutcome is what became of a write.
type WriteOutcome int

const (
	// Accepted from the current holder.
	Accepted WriteOutcome = iota
	// Unsafe: accepted, though the lock had since been granted to another.
	Unsafe
	// Refused: its token was older than one already seen.
	Refused
)

func (o WriteOutcome) String() string {
	return [...]string{"accepted", "UNSAFE: accepted after the lock passed on", "refused: stale token"}[o]
}

// Write is a holder's write: grant is its Grant number, token its fencing
// token (0: none).
func (s *FencedStore) Write(grant uint64, token int64) WriteOutcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token != 0 {
		if token < s.highest {
			s.stale++
			return Refused
		}
		s.highest = token
	}
	s.writes++
	if grant < s.granted {
		s.unsafe++
		return Unsafe
	}
	return Accepted
}

// FenceCounts are what the store saw.
type FenceCounts struct {
	Writes        uint64
	UnsafeWrites  uint64
	StaleRejected uint64
}

// Counts returns what the store saw since the last Reset.
func (s *FencedStore) Counts() FenceCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return FenceCounts{Writes: s.writes, UnsafeWrites: s.unsafe, StaleRejected: s.stale}
}

// Reset forgets the counts (not the grants or the highest token, which
// the next writes are checked against).
func (s *FencedStore) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes, s.unsafe, s.stale = 0, 0, 0
}
