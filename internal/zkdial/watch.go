package zkdial

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zktls"
)

// Options say how to reach the members.
type Options struct {
	// TLS, when set, makes every connection TLS.
	TLS *tls.Config
	// Wrap, when set, takes each connection once open (after TLS) and
	// returns the one the session uses: an authentication that runs on
	// the connection, as SASL's does, goes there. Its error fails the dial.
	Wrap func(conn net.Conn, addr string) (net.Conn, error)
}

// Watch records how each dial to each member went until a session is
// answered, and gives up when every member has failed.
type Watch struct {
	opts    Options
	members []string

	mu       sync.Mutex
	failed   map[string]failure // member → its last failure
	answered bool
	abort    chan error
	aborted  bool
}

// failure is how a member last failed. A soft one (it closed the
// connection without answering: electing a leader, out of its quorum)
// may pass; it counts once it has lasted notServingGrace.
type failure struct {
	err   error
	soft  bool
	since time.Time // of the soft failures in a row
}

// notServingGrace is how long a member may keep closing connections
// unanswered before it counts as failed: a leader election is over well
// within it.
const notServingGrace = 3 * time.Second

// NewWatch watches dials to members (the connect string's host:port
// entries).
func NewWatch(members []string, o Options) *Watch {
	return &Watch{opts: o, members: members, failed: map[string]failure{}, abort: make(chan error, 1)}
}

// Abort delivers an error, once: when every member has failed with no
// session answered (one line per member says how), or at any time when a
// member's answer shows that no member will do (a FatalError: SASL
// refused, or required and not given).
func (w *Watch) Abort() <-chan error { return w.abort }

// Dial opens one connection to addr as the options say: plain or TLS,
// then wrapped.
func (o Options) Dial(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	var conn net.Conn
	var err error
	if o.TLS != nil {
		conn, err = zktls.Dial(ctx, o.TLS, addr, timeout)
	} else {
		conn, err = (&net.Dialer{Timeout: timeout}).DialContext(ctx, "tcp", addr)
	}
	if err != nil || o.Wrap == nil {
		return conn, err
	}
	wrapped, err := o.Wrap(conn, addr)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return wrapped, nil
}

// Dialer is the zk.Dialer to hand go-zookeeper: Options.Dial, watched.
func (w *Watch) Dialer() zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), max(timeout, time.Second)+5*time.Second)
		defer cancel()
		// The watch sits under the wrap, which may speak first (SASL).
		o := w.opts
		wrap := o.Wrap
		o.Wrap = func(conn net.Conn, addr string) (net.Conn, error) {
			watched := &watchedConn{Conn: conn, w: w, addr: addr}
			if wrap == nil {
				return watched, nil
			}
			return wrap(watched, addr)
		}
		conn, err := o.Dial(ctx, addr, timeout)
		if err != nil {
			w.fail(addr, dialFailure(err))
			return nil, err
		}
		// ...and over it, where the session's own answer shows.
		return &sessionConn{Conn: conn, w: w, addr: addr, wrapped: wrap != nil}, nil
	}
}

// FatalError is a failure that going round the members again cannot
// mend — credentials the servers refuse, a mechanism they do not speak —
// so the watch gives up at once, even after a session was answered:
// retrying would only hammer every member with the same refusal.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// giveUp delivers err on Abort at once, whatever else was seen.
func (w *Watch) giveUp(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted {
		return
	}
	w.aborted = true
	w.abort <- err
}

// fail records a member's failure; when every member has one that counts
// and no session was answered, Abort fires.
func (w *Watch) fail(addr string, err error) { w.record(addr, err, false) }

// failSoft records a member closing the connection without answering.
func (w *Watch) failSoft(addr string, err error) { w.record(addr, err, true) }

func (w *Watch) record(addr string, err error, soft bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	f := failure{err: err, soft: soft, since: now}
	if prev, ok := w.failed[addr]; ok && soft && prev.soft {
		f.since = prev.since
	}
	w.failed[addr] = f
	if w.answered || w.aborted {
		return
	}
	for _, m := range w.members {
		f, ok := w.failed[m]
		if !ok || (f.soft && now.Sub(f.since) < notServingGrace) {
			return
		}
	}
	w.aborted = true
	lines := make([]string, 0, len(w.members))
	for _, m := range w.members {
		lines = append(lines, m+": "+w.failed[m].err.Error())
	}
	w.abort <- &AllFailedError{Lines: lines}
}

// answer records that a member answered the session request.
func (w *Watch) answer(addr string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.answered = true
	delete(w.failed, addr)
}

// AllFailedError is every member failing, one line each.
type AllFailedError struct{ Lines []string }

func (e *AllFailedError) Error() string {
	return "no member of the ensemble answered:\n  " + strings.Join(e.Lines, "\n  ")
}

// dialFailure says in a few words why a dial failed.
func dialFailure(err error) error {
	var te *zktls.Error
	var ne net.Error
	switch {
	case errors.As(err, &te):
		return errors.New(te.Reason)
	case strings.Contains(err.Error(), "connection refused"):
		return errors.New("connection refused (is ZooKeeper running there, on this port?)")
	case errors.As(err, &ne) && ne.Timeout():
		return errors.New("no answer to the connection (down, or a firewall drops it)")
	}
	return err
}

// watchedConn sees the member's first bytes, under any wrap: TLS where
// plain was expected, or the connection closed instead of an answer.
type watchedConn struct {
	net.Conn
	w    *Watch
	addr string
	once sync.Once
}

func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.once.Do(func() {
		switch {
		case n > 0 && isTLSRecord(b[:n]):
			c.w.fail(c.addr, errors.New("it answered with TLS: the port requires TLS (give --tls-ca, and --tls-cert/--tls-key if it wants a client certificate)"))
		case n > 0:
			// An answer; whether it is a session's, sessionConn says.
		case (errors.Is(err, io.EOF) || isReset(err)) && c.w.opts.TLS == nil && speaksTLS(c.addr):
			c.w.fail(c.addr, errors.New("it speaks TLS on this port: the port requires TLS (give --tls-ca, and --tls-cert/--tls-key if it wants a client certificate)"))
		case errors.Is(err, io.EOF) || isReset(err):
			c.w.failSoft(c.addr, fmt.Errorf("it closed the connection without answering the session request (not serving: out of its quorum? at its maxClientCnxns for this address?)"))
		case isTLSAlert(err):
			// TLS 1.3 refuses a client certificate after the handshake,
			// on the first read.
			var te *zktls.Error
			if errors.As(zktls.Explain(err, c.addr, ""), &te) {
				c.w.fail(c.addr, errors.New(te.Reason))
			}
		}
	})
	return n, err
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

// Probe asks the new session one cheap question (does / exist?). A
// server that requires SASL of every session answers an unauthenticated
// one with error -124 and closes it, which go-zookeeper reports as an
// unknown error and answers by reconnecting forever; the watch saw the
// -124 first, so the probe returns its named error instead.
func Probe(conn *zk.Conn, w *Watch) error {
	if _, _, err := conn.Exists("/"); err != nil {
		select {
		case abort := <-w.Abort():
			return abort
		default: // a passing trouble: go-zookeeper reconnects
		}
	}
	return nil
}
