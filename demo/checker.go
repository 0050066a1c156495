package demo

import "sync"

// Checker is the independent referee of a lane: a fenced resource that
// contenders enter while they hold the lock. It counts a violation when
// someone enters while another is inside, and when a fencing token does not
// grow (a stale holder reaching the resource after a newer one). A lock
// with no token (Redis) is checked for overlaps only.
type Checker struct {
	mu         sync.Mutex
	inside     map[int]bool
	lastZxid   int64
	violations uint64
	entries    uint64
}

// NewChecker returns an empty checker.
func NewChecker() *Checker { return &Checker{inside: map[int]bool{}} }

// Enter records contender id entering with its fencing token (0: none).
func (c *Checker) Enter(id int, token int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.inside) > 0 {
		c.violations++
	}
	if token != 0 {
		if token <= c.lastZxid {
			c.violations++
		}
		c.lastZxid = token
	}
	c.inside[id] = true
	c.entries++
}

// Exit records contender id leaving.
func (c *Checker) Exit(id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inside, id)
}

// Violations returns how many violations the checker saw.
func (c *Checker) Violations() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.violations
}

// Reset forgets the counts (not who is inside).
func (c *Checker) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations, c.entries = 0, 0
}
