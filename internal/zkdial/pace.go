package zkdial

import (
	"fmt"
	"net"
	"syscall"
	"time"
)

// readPace is the least time between two reads from the socket while the
// session waits for no answer. A busy ensemble sends a watching session a
// notification every few tens of microseconds, each in a packet of its
// own: read as they come, each costs a read and a wake-up of the reading
// goroutine (the scheduler's netpoll, a futex), and at 16,000 a second
// that was most of the explorer's CPU. Waiting a moment after a read lets
// them gather in the socket's buffer, so that one read takes them all:
// fifty reads a second at most. Only notifications wait: they are unasked,
// and what follows them (a read of the node) is paced slower still
// (zkview.ReadEvery, 100 ms). A request sent ends the wait at once, so an
// answer is never held back, and an idle session, whose last read is long
// past, does not wait.
// (go-zookeeper's conn.go reads as the bytes come, frame by frame; zkx's
// own zkwire does too: both read through this connection.)
const readPace = 20 * time.Millisecond

// paceLowWater is the socket's receive low-water mark while the reader
// waits (Linux). Go's netpoller learns of every packet that reaches a
// socket, whether or not a goroutine waits to read it: without the mark,
// a thread woke at each notification still, only to find no reader. With
// it the kernel wakes no one until this many bytes wait (a burst bigger
// than the pace takes in), or the wait ends and the mark is set back to
// one byte. It stays far below the socket's buffer, so the window the
// server may send in is not narrowed.
const paceLowWater = 16 << 10

// rawSocket is the socket under conn (TCP, under TLS too) whose options
// pace sets, nil when there is none (a Dialer's own connection type).
func rawSocket(conn net.Conn) syscall.RawConn {
	for {
		switch c := conn.(type) {
		case syscall.Conn:
			raw, err := c.SyscallConn()
			if err != nil {
				return nil
			}
			return raw
		case interface{ NetConn() net.Conn }:
			conn = c.NetConn()
		default:
			return nil
		}
	}
}

// pace waits, before a read from the socket (nothing left in the buffer),
// until readPace has passed since the last one brought bytes, while no
// request or ping is waiting for its answer; it runs on the reader's
// goroutine. An error is the socket's low-water mark that could not be
// set back: the connection can no longer be read as the bytes come.
func (c *checkedConn) pace() error {
	wait := c.readPace - time.Since(c.lastFill)
	if c.lastFill.IsZero() || wait <= 0 {
		return nil
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
		return nil
	}
	lowered := c.socket != nil && setLowWater(c.socket, paceLowWater) == nil
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
	if lowered {
		if err := setLowWater(c.socket, 1); err != nil {
			return fmt.Errorf("%s: setting the socket's low-water mark back to one byte: %w", c.attempt.addr, err)
		}
	}
	return nil
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
