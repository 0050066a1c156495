package zksasl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/sasl"
	"github.com/zkx-dev/zkx/internal/zkdial"
)

// exchangeTimeout bounds the whole exchange on one connection: a server
// that answers the session but not its SASL packets is not waited for.
const exchangeTimeout = 5 * time.Second

// maxToken bounds a frame of the exchange (a Kerberos AP-REP is a few
// kilobytes at most).
const maxToken = 1 << 20

// conn is a connection whose first Read runs the exchange.
type conn struct {
	net.Conn
	addr      string
	newClient func() (sasl.Client, error)
	describe  string // "DIGEST-MD5 as bob", for messages

	started bool
	held    []byte // the connect response, until read
	err     error
}

func (c *conn) Read(b []byte) (int, error) {
	if !c.started {
		c.started = true
		c.held, c.err = c.authenticate()
	}
	if len(c.held) > 0 {
		n := copy(b, c.held)
		c.held = c.held[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	return c.Conn.Read(b)
}

// authenticate reads the connect response and, when the server gave a
// session, runs the exchange; it returns the response as read, to be
// handed on.
func (c *conn) authenticate() ([]byte, error) {
	frame, err := readFrame(c.Conn, maxToken)
	if err != nil {
		return nil, err // the dial watch below says what it was
	}
	var resp jute.ConnectResponse
	d := jute.NewDecoder(frame[4:])
	resp.Decode(d)
	if d.Err() != nil || resp.SessionID == 0 {
		// Refused (expired, or a member ahead of us): nothing to
		// authenticate; the session's owner reads the refusal.
		return frame, nil
	}
	c.Conn.SetDeadline(time.Now().Add(exchangeTimeout))
	defer c.Conn.SetDeadline(time.Time{})
	if err := c.exchange(); err != nil {
		return nil, err
	}
	return frame, nil
}

func (c *conn) exchange() error {
	client, err := c.newClient()
	if err != nil {
		return &zkdial.FatalError{Err: fmt.Errorf("%s: SASL %s: %w", c.addr, c.describe, err)}
	}
	token, more, err := client.Step(nil)
	for xid := int32(1); more && err == nil; xid++ {
		var answer []byte
		if answer, err = c.roundTrip(xid, token); err != nil {
			return err
		}
		token, more, err = client.Step(answer)
	}
	if err != nil {
		return &zkdial.FatalError{Err: fmt.Errorf("%s: SASL %s: %w", c.addr, c.describe, err)}
	}
	return nil
}

// roundTrip sends one token and returns the server's.
func (c *conn) roundTrip(xid int32, token []byte) ([]byte, error) {
	e := jute.NewFrameEncoder()
	(&jute.RequestHeader{Xid: xid, Type: jute.OpSASL}).Encode(e)
	(&jute.SASLToken{Token: token}).Encode(e)
	if _, err := c.Conn.Write(jute.Frame(e)); err != nil {
		return nil, c.broken(err)
	}
	frame, err := readFrame(c.Conn, maxToken)
	if err != nil {
		return nil, c.broken(err)
	}
	d := jute.NewDecoder(frame[4:])
	var h jute.ReplyHeader
	h.Decode(d)
	var answer jute.SASLToken
	answer.Decode(d)
	switch {
	case d.Err() != nil:
		return nil, fmt.Errorf("%s: SASL %s: malformed answer: %w", c.addr, c.describe, d.Err())
	case h.Err == jute.ErrSessionClosedRequireSASL || h.Err == jute.ErrAuthFailed:
		// ZooKeeper does not negotiate: a mechanism it does not run
		// fails exactly as a wrong password does.
		return nil, &zkdial.FatalError{Err: &RefusedError{Member: c.addr, Describe: c.describe, Code: h.Err}}
	case h.Err != jute.ErrOK:
		return nil, &zkdial.FatalError{Err: fmt.Errorf("%s: SASL %s: the server answered error %d (%s)", c.addr, c.describe, h.Err, h.Err.String())}
	case h.Xid != xid:
		return nil, fmt.Errorf("%s: SASL %s: an answer to request %d where %d was awaited", c.addr, c.describe, h.Xid, xid)
	}
	return answer.Token, nil
}

// broken names a connection that failed mid-exchange; another member
// may do better, so it is not fatal.
func (c *conn) broken(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("closed the connection during SASL %s", c.describe)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("no answer to SASL %s within %v", c.describe, exchangeTimeout)
	}
	return fmt.Errorf("SASL %s: %w", c.describe, err)
}

// RefusedError is a server refusing the credentials.
type RefusedError struct {
	Member, Describe string
	Code             jute.Code
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s refused SASL %s: wrong credentials or mechanism (error %d, %s)", e.Member, e.Describe, e.Code, e.Code.String())
}

// readFrame reads one whole frame, its length prefix included.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(head[:]))
	if n < 0 || int(n) > limit {
		return nil, fmt.Errorf("a frame of %d bytes", n)
	}
	frame := make([]byte, 4+int(n))
	copy(frame, head[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}
