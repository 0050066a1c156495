package zkdial

import (
	"encoding/binary"
	"errors"
	"net"
	"sync"

	"github.com/zkx-dev/zkx/internal/jute"
)

// sessionConn sits over the wrap, where the session itself reads: its
// first bytes are the session's answer (after any SASL exchange the wrap
// ran), an error there may be fatal, and the first reply after it tells
// whether the server requires SASL of a session that did not do it.
type sessionConn struct {
	net.Conn
	w       *Watch
	addr    string
	wrapped bool

	mu       sync.Mutex
	answered bool
	sniff    replySniffer
}

func (c *sessionConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	var fatal *FatalError
	switch {
	case errors.As(err, &fatal):
		c.w.giveUp(fatal)
	case err != nil && n == 0 && !c.answered && c.wrapped:
		// The wrap's exchange failed in a way another member may not.
		c.w.fail(c.addr, err)
	}
	if n > 0 && !c.answered {
		c.answered = true
		c.w.answer(c.addr)
	}
	if code, known := c.sniff.feed(b[:n]); known && code == jute.ErrSessionClosedRequireSASL {
		c.w.giveUp(&FatalError{Err: &SASLRequiredError{Member: c.addr, Authenticated: c.wrapped}})
	}
	return n, err
}

// SASLRequiredError is a server closing the session because it requires
// SASL authentication (ZooKeeper's error -124 on the first request).
type SASLRequiredError struct {
	Member string
	// Authenticated is set when the connection did run an exchange.
	Authenticated bool
}

func (e *SASLRequiredError) Error() string {
	if e.Authenticated {
		return e.Member + ": the server closed the session: it requires SASL authentication and does not count ours (error -124)"
	}
	return e.Member + ": the server requires SASL authentication of every session (it answered error -124 and closed the connection): give --sasl DIGEST-MD5 --sasl-user NAME (password in $ZKX_SASL_PASSWORD), or --sasl GSSAPI --principal NAME@REALM"
}

// replySniffer follows the frames a session reads until it has the reply
// header of the first frame after the connect response.
type replySniffer struct {
	frames int // frames read whole
	head   [4]byte
	headN  int
	remain int // body bytes of the current frame still to come
	reply  [16]byte
	replyN int
	done   bool
}

// feed takes the next bytes read; once the first reply's header is whole
// it returns its error code, and then nothing more.
func (s *replySniffer) feed(b []byte) (code int32, known bool) {
	for len(b) > 0 && !s.done {
		if s.remain == 0 && s.headN < 4 {
			k := copy(s.head[s.headN:], b)
			s.headN += k
			b = b[k:]
			if s.headN == 4 {
				s.remain = int(int32(binary.BigEndian.Uint32(s.head[:])))
				if s.remain <= 0 { // an empty or nonsensical frame: stop looking
					s.done = true
				}
			}
			continue
		}
		k := min(s.remain, len(b))
		if s.frames == 1 {
			s.replyN += copy(s.reply[s.replyN:], b[:k])
			if s.replyN == len(s.reply) {
				s.done = true
				return int32(binary.BigEndian.Uint32(s.reply[12:])), true // xid, zxid, err
			}
		}
		s.remain -= k
		b = b[k:]
		if s.remain == 0 {
			s.frames++
			s.headN = 0
			if s.frames > 1 { // a reply shorter than its header
				s.done = true
			}
		}
	}
	return 0, false
}
