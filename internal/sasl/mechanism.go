package sasl

import "errors"

// Client is one client side of one SASL exchange.
type Client interface {
	// Mechanism is the SASL name: "DIGEST-MD5", "GSSAPI".
	Mechanism() string
	// Step takes the server's last token (nil before the first) and
	// returns the token to send. more is false when the exchange is over
	// from the client's side: nothing is sent, no answer awaited.
	Step(challenge []byte) (response []byte, more bool, err error)
}

// ErrRefused is the server's own answer failing a check of the client's
// (a bad rspauth, a bad mutual-authentication token): whoever answered
// does not know the password, or is not the service asked for.
var ErrRefused = errors.New("the server failed authentication")
