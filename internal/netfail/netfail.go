// Package netfail says in a person's words why a request to a server
// failed — "no answer within 2s", "connection refused" — instead of the
// text Go's network stack gives ("read tcp 127.0.0.1:33228->…: use of
// closed network connection", "context deadline exceeded"), keeping the
// cause for errors.Is and errors.As.
package netfail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// Error is a network failure in plain words.
type Error struct {
	// Text is what happened: "no answer within 2s", "connection refused".
	Text string
	// NoAnswer is set when the server was silent until the deadline (as a
	// stopped or hung process is), rather than refusing or closing.
	NoAnswer bool
	Err      error
}

func (e *Error) Error() string { return e.Text }
func (e *Error) Unwrap() error { return e.Err }

// Within bounds ctx by within, as a request to one server is: Describe
// then tells the server's silence ("no answer within 2s") from the end of
// the caller's own time.
func Within(ctx context.Context, within time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, within, &deadline{within})
}

// deadline is the cause of a context Within made, once it ran out.
type deadline struct{ within time.Duration }

func (d *deadline) Error() string { return fmt.Sprintf("no answer within %v", d.within) }

// Describe returns err in plain words. ctx is the request's (made by
// Within, or any other): when it ended, that is what happened — the server's
// silence past its deadline, or the caller's own time running out — and
// the network error it caused ("use of closed network connection") is
// only its consequence. within names the deadline of a request bounded
// otherwise (a connection's own deadline; 0 when it is the caller's own,
// as a context's DeadlineExceeded is). An error it does not recognise
// is returned as it is; nil stays nil.
func Describe(ctx context.Context, err error, within time.Duration) error {
	var plain *Error
	var dns *net.DNSError
	var alert tls.AlertError
	var ours *deadline
	// Whether and how ctx ended is read once: a connection's deadline is
	// ctx's, so the error and ctx's own timer come at the same moment, and
	// a ctx read twice could be running at the first look and over at the
	// second (a silence of "within" then said as the caller's deadline).
	var cause error
	if ctx != nil {
		cause = context.Cause(ctx) // nil while ctx runs
	}
	switch {
	case err == nil:
		return nil
	case errors.As(err, &plain):
		return err
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Text: "connection refused", Err: err}
	case cause != nil && errors.As(cause, &ours):
		return &Error{Text: ours.Error(), NoAnswer: true, Err: err}
	case cause != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Text: "no answer before the deadline", NoAnswer: true, Err: err}
	case cause != nil, errors.Is(err, context.Canceled):
		return &Error{Text: "stopped before it answered", Err: err}
	case isTimeout(err) && within > 0:
		return &Error{Text: fmt.Sprintf("no answer within %v", within), NoAnswer: true, Err: err}
	case isTimeout(err):
		return &Error{Text: "no answer before the deadline", NoAnswer: true, Err: err}
	case errors.Is(err, syscall.ECONNRESET):
		return &Error{Text: "the connection was reset", Err: err}
	case errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return &Error{Text: "the connection was closed", Err: err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), closedBeforeAsked(err):
		return &Error{Text: "it closed the connection without answering", Err: err}
	case errors.Is(err, syscall.EHOSTUNREACH):
		return &Error{Text: "host unreachable", Err: err}
	case errors.Is(err, syscall.ENETUNREACH):
		return &Error{Text: "network unreachable", Err: err}
	case errors.As(err, &dns) && dns.IsNotFound:
		return &Error{Text: "no such host " + dns.Name, Err: err}
	case errors.As(err, &dns):
		return &Error{Text: fmt.Sprintf("cannot resolve %s: %s", dns.Name, dns.Err), Err: err}
	case errors.As(err, &alert):
		return &Error{Text: "TLS refused: " + alert.Error(), Err: err}
	}
	return err
}

// NoAnswer reports whether err is a server's silence until the deadline.
func NoAnswer(err error) bool {
	var plain *Error
	if errors.As(err, &plain) {
		return plain.NoAnswer
	}
	return isTimeout(err)
}

// httpClosedIdle is the text of net/http's errServerClosedIdle (not
// exported): the transport's words for a server that closed a new
// connection before the request on it was under way, one way a server
// hanging up at once is seen (the others an end of stream or a reset, as
// the race falls).
const httpClosedIdle = "http: server closed idle connection"

// closedBeforeAsked reports whether err, or an error it wraps, is
// net/http's httpClosedIdle.
func closedBeforeAsked(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == httpClosedIdle {
			return true
		}
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}
