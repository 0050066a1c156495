package zkdial

import "time"

// readPace is the least time between two reads from the socket while the
// session waits for no answer. A busy ensemble sends a watching session a
// notification every few tens of microseconds, each in a packet of its
// own: read as they come, each costs a read and a wake-up of the reading
// goroutine (the scheduler's netpoll, a futex), and at 16,000 a second
// that was most of the explorer's CPU. Waiting a few milliseconds after a
// read lets them gather in the socket's buffer, so that one read takes
// them all. Only notifications wait: they are unasked, and what follows
// them (a read of the node) is paced far slower (zkview.ReadEvery). A
// request sent ends the wait at once, so an answer is never held back,
// and an idle session, whose last read is long past, does not wait.
// (go-zookeeper's conn.go reads as the bytes come, frame by frame; zkx's
// own zkwire does too: both read through this connection.)
const readPace = 5 * time.Millisecond

// pace waits, before a read from the socket (nothing left in the buffer),
// until readPace has passed since the last one brought bytes, while no
// request or ping is waiting for its answer; it runs on the reader's
// goroutine.
func (c *checkedConn) pace() {
	wait := c.readPace - time.Since(c.lastFill)
	if c.lastFill.IsZero() || wait <= 0 {
		return
	}
	// A request noted after the check below signals sent: drain it first.
	select {
	case <-c.sent:
	default:
	}
	c.mu.Lock()
	awaited := !c.session || len(c.pending) > 0 || c.pingsSent > c.pingsBack
	c.mu.Unlock()
	if awaited {
		return
	}
	if c.paceTimer == nil {
		c.paceTimer = time.NewTimer(wait)
	} else {
		c.paceTimer.Reset(wait)
	}
	select {
	case <-c.paceTimer.C:
	case <-c.sent:
		c.paceTimer.Stop()
	}
}

// wake ends the reader's wait (pace): a request went out, whose answer
// is on its way, or the connection is closing.
func (c *checkedConn) wake() {
	select {
	case c.sent <- struct{}{}:
	default:
	}
}

// Close closes the connection and ends the reader's wait, so that it sees
// the close at once.
func (c *checkedConn) Close() error {
	err := c.Conn.Close()
	c.wake()
	return err
}
