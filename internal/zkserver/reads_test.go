package zkserver

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/jute"
)

// TestReadHandlersTakeTheirRecords: every read's handler takes the record
// jute.RequestRecord gives its op; one that did not would answer every
// such request with a system error.
func TestReadHandlersTakeTheirRecords(t *testing.T) {
	t.Parallel()
	s, c := newTestConn(t)
	for op := range readHandlers {
		e := jute.NewEncoder(nil)
		if req := jute.RequestRecord(op); req != nil {
			req.Encode(e)
		}
		s.mu.Lock()
		_, code := s.read(c, op, jute.NewDecoder(e.Bytes()))
		s.mu.Unlock()
		if code == jute.ErrSystemError {
			t.Errorf("%s: its handler does not take the record jute.RequestRecord gives it", op)
		}
	}
}
