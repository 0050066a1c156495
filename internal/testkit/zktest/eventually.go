package zktest

import (
	"testing"
	"time"
)

// Eventually calls cond every 20 ms until it returns nil, and fails the
// test with what and cond's last error if timeout passes first: for what
// a server does a moment after it is asked, with no event to wait on (a
// closed connection it has yet to see, a process a signal has yet to end).
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, timeout, err)
		}
		time.Sleep(20 * time.Millisecond) // polling, bounded by the deadline
	}
}
