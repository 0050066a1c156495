package zkdial

import (
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/internal/zktls"
)

// guardConn sees a member's first bytes, under any wrap, and tells a peer
// that is not ZooKeeper from one that is: TLS where plain was expected, an
// HTTP server, noise, a frame no answer to a session request has, silence
// past its answer timeout, or the connection closed instead of an answer. A
// peer found out is named and its connection closed before anything above
// reads what it sent. Once the answer's length is read and plausible the
// guard steps aside.
type guardConn struct {
	net.Conn
	attempt  *attempt
	isTLS    bool
	answerIn time.Duration // how long the peer has to begin its answer
	answerBy time.Time
	// noProbe keeps the guard from asking addr anything over the network
	// (whether it speaks TLS): the connection came from Options.Dialer.
	noProbe bool

	mu           sync.Mutex
	head         [4]byte // the answer's first bytes: its frame length
	headN        int
	settled      bool
	readDeadline time.Time // the reader's own
	err          error
}

func newGuardConn(c net.Conn, a *attempt, isTLS bool, answerIn time.Duration) *guardConn {
	g := &guardConn{Conn: c, attempt: a, isTLS: isTLS, answerIn: answerIn, answerBy: time.Now().Add(answerIn)}
	c.SetReadDeadline(g.answerBy)
	return g
}

func (c *guardConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	settled, failed := c.settled, c.err
	c.mu.Unlock()
	switch {
	case failed != nil:
		return 0, failed
	case settled:
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > 0 {
		k := copy(c.head[c.headN:], b[:n])
		c.headN += k
		if reason := c.judge(b[:n]); reason != nil {
			c.err = reason
			c.attempt.fail(reason)
			c.Conn.Close()
			return 0, reason
		}
		if c.headN == len(c.head) {
			c.settled = true
			c.Conn.SetReadDeadline(c.readDeadline)
		}
		return n, err
	}
	if err != nil {
		c.explain(err)
	}
	return n, err
}

// judge says what is wrong with the first bytes of an answer (got: this
// read's), or nil while they may still be ZooKeeper's.
func (c *guardConn) judge(got []byte) error {
	head := c.head[:c.headN]
	switch {
	case !c.isTLS && isTLSRecord(head):
		return errors.New("it answered with TLS: the port requires TLS (give --tls-ca, and --tls-cert/--tls-key if it wants a client certificate)")
	case c.headN < len(c.head):
		return nil
	case string(head) == "HTTP":
		line, _, _ := strings.Cut(string(got), "\r\n")
		return c.notZooKeeper(fmt.Sprintf("it answered in HTTP (%s): an HTTP server — an AdminServer, a proxy? — not a ZooKeeper client port", quote([]byte(line), 60)))
	}
	n := binary.BigEndian.Uint32(head)
	if n < minConnectResponse || n > maxConnectResponse {
		return c.notZooKeeper(fmt.Sprintf("its answer to the session request announces a frame of %d bytes, where ZooKeeper's is 36 or 37 (it began %s)", n, quote(got, 16)))
	}
	return nil
}

func (c *guardConn) notZooKeeper(reason string) *ProtocolError {
	return &ProtocolError{Member: c.attempt.addr, Kind: NotZooKeeper, Reason: reason}
}

// explain names a read that ended before the answer's length was read.
func (c *guardConn) explain(err error) {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout() && !time.Now().Before(c.answerBy):
		c.err = c.notZooKeeper(fmt.Sprintf("no answer to the session request within %v: a ZooKeeper server answers at once (is this its client port? a stopped or hung process?)", c.answerIn))
		c.attempt.fail(c.err)
	case c.headN > 0 && (errors.Is(err, io.EOF) || isReset(err)):
		c.err = c.notZooKeeper(fmt.Sprintf("it sent %s and closed the connection", quote(c.head[:c.headN], 4)))
		c.attempt.fail(c.err)
	case (errors.Is(err, io.EOF) || isReset(err)) && !c.isTLS && !c.noProbe && speaksTLS(c.attempt.addr):
		c.attempt.fail(errors.New("it speaks TLS on this port: the port requires TLS (give --tls-ca, and --tls-cert/--tls-key if it wants a client certificate)"))
	case errors.Is(err, io.EOF) || isReset(err):
		c.attempt.failSoft(errors.New("it closed the connection without answering the session request (not serving: out of its quorum? at its maxClientCnxns for this address?)"))
	case isTLSAlert(err):
		// TLS 1.3 refuses a client certificate after the handshake,
		// on the first read.
		var te *zktls.Error
		if errors.As(zktls.Explain(err, c.attempt.addr, ""), &te) {
			c.attempt.fail(errors.New(te.Reason))
		}
	}
	if c.err != nil {
		c.Conn.Close()
	}
}

// SetReadDeadline keeps the answer's deadline until the answer begins.
func (c *guardConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDeadline = t
	if !c.settled && (t.IsZero() || t.After(c.answerBy)) {
		t = c.answerBy
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *guardConn) SetDeadline(t time.Time) error {
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

// speaksTLS reports whether addr answers a TLS handshake: asked after a
// plain session request went unanswered, it tells a TLS-only port from a
// member that is not serving. The certificate is not checked (nothing is
// sent over it); any TLS answer, a refusal included, is one.
func speaksTLS(addr string) bool {
	d := &net.Dialer{Timeout: time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}) // #nosec: a probe, no data
	if err == nil {
		conn.Close()
		return true
	}
	return isTLSAlert(err)
}

// isTLSRecord reports whether b starts like a TLS record (an alert or a
// handshake, version 3.x): a TLS port answering a plain request.
func isTLSRecord(b []byte) bool {
	return len(b) >= 3 && (b[0] == 0x15 || b[0] == 0x16) && b[1] == 0x03 && b[2] <= 0x04
}

// isTLSAlert reports whether err is the server's TLS alert.
func isTLSAlert(err error) bool {
	var alert tls.AlertError
	return errors.As(err, &alert) || (err != nil && strings.Contains(err.Error(), "remote error: tls:"))
}

func isReset(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe"))
}
