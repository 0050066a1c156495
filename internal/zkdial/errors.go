package zkdial

import (
	"strings"

	"github.com/zkx-dev/zkx/internal/display"
)

// ProtocolError is a peer that does not behave as ZooKeeper does: its
// answer to the session request, a reply, or its pace. The connection is
// closed when one is found, before go-zookeeper (or zkwire) reads a byte
// of what was wrong.
type ProtocolError struct {
	Member string
	Kind   ProtocolErrorKind
	Reason string // what was wrong, in words: "vector length 2147483647 in a 20-byte getChildren2 reply"
}

// ProtocolErrorKind says where a ProtocolError was found.
type ProtocolErrorKind int

const (
	// NotZooKeeper: the answer to the session request is not ZooKeeper's
	// (or there was none in time).
	NotZooKeeper ProtocolErrorKind = iota
	// BadReply: a session's reply or notification is not ZooKeeper's.
	BadReply
	// Stalled: the server kept the connection alive (pings, notifications)
	// but left a request unanswered for a whole session timeout, which
	// ZooKeeper, answering a session's requests in order, never does.
	Stalled
)

func (e *ProtocolError) Error() string { return display.Line(e.Member) + " " + e.withoutMember() }

// withoutMember is the error as a line under its member's name.
func (e *ProtocolError) withoutMember() string {
	switch e.Kind {
	case NotZooKeeper:
		return "does not speak ZooKeeper: " + e.Reason
	case Stalled:
		return "stopped answering requests: " + e.Reason
	}
	return "sent a reply that is not ZooKeeper's: " + e.Reason
}

// memberLine is how an error reads on a line that starts with its
// member's name.
func memberLine(err error) string {
	if pe, ok := err.(*ProtocolError); ok {
		return pe.withoutMember()
	}
	return err.Error()
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

// FatalError is a failure that going round the members again cannot
// mend — credentials the servers refuse, a mechanism they do not speak, a
// server that sent what ZooKeeper never sends — so the watch gives up at
// once, even after a session was answered: retrying would only hammer
// every member with the same refusal, or trust a server that lied.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// AllFailedError is every member failing, one line each.
type AllFailedError struct {
	Lines []string
	Errs  []error // each member's, in the order of Lines
}

func (e *AllFailedError) Unwrap() []error { return e.Errs }

func (e *AllFailedError) Error() string {
	return "no member of the ensemble answered:\n  " + strings.Join(e.Lines, "\n  ")
}

// quote shows at most n bytes of what a peer sent, escaped as zkx shows
// anything that may hold what a terminal would obey.
func quote(b []byte, n int) string {
	cut := ""
	if len(b) > n {
		b, cut = b[:n], "…"
	}
	return `"` + display.Line(string(b)) + cut + `"`
}
