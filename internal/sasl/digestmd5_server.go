package sasl

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
)

// ErrBadCredentials is a DIGEST-MD5 response that does not prove the
// password, or names a user the server does not know: the two look the
// same to the client, as they must.
var ErrBadCredentials = errors.New("wrong user name or password")

// DigestMD5Server is the server side of a DIGEST-MD5 exchange, as
// ZooKeeper's: realm and digest-uri are fixed, qop "auth".
type DigestMD5Server struct {
	realm, digestURI string
	password         func(user string) (string, bool)

	nonce      func() (string, error)
	step       int
	sent       string // the nonce of our challenge
	authorized string
}

// NewDigestMD5Server answers clients whose digest-uri is service/host,
// in realm host; password looks a user's password up.
func NewDigestMD5Server(service, host string, password func(user string) (string, bool)) *DigestMD5Server {
	return &DigestMD5Server{realm: host, digestURI: service + "/" + host, password: password, nonce: randomNonce}
}

// Step takes the client's token and returns the server's answer; done is
// set with the last answer (rspauth), when AuthorizationID is known.
func (s *DigestMD5Server) Step(token []byte) (answer []byte, done bool, err error) {
	s.step++
	switch s.step {
	case 1:
		if len(token) != 0 {
			return nil, false, errors.New("DIGEST-MD5: the client's first token is not empty (another mechanism?)")
		}
		if s.sent, err = s.nonce(); err != nil {
			return nil, false, err
		}
		return fmt.Appendf(nil, `realm=%s,nonce=%s,qop="auth",charset=utf-8,algorithm=md5-sess`, quote(s.realm), quote(s.sent)), false, nil
	case 2:
		answer, err := s.check(token)
		return answer, err == nil, err
	default:
		return nil, false, errors.New("DIGEST-MD5: the client went on after the exchange was over")
	}
}

func (s *DigestMD5Server) check(token []byte) ([]byte, error) {
	ds, err := parseDirectives(string(token))
	if err != nil {
		return nil, fmt.Errorf("DIGEST-MD5 response: %w", err)
	}
	get := func(name string) string { v, _ := lookup(ds, name); return v }
	switch {
	case get("nonce") != s.sent:
		return nil, errors.New("DIGEST-MD5 response: not our nonce")
	case get("nc") != "00000001":
		return nil, fmt.Errorf("DIGEST-MD5 response: nonce count %q, not 00000001", get("nc"))
	case get("qop") != "" && get("qop") != "auth":
		return nil, fmt.Errorf("DIGEST-MD5 response: qop %q; only \"auth\" is offered", get("qop"))
	case get("digest-uri") != s.digestURI:
		return nil, fmt.Errorf("DIGEST-MD5 response: digest-uri %q, not %q", get("digest-uri"), s.digestURI)
	case get("cnonce") == "" || get("username") == "" || get("response") == "":
		return nil, errors.New("DIGEST-MD5 response: cnonce, username or response missing")
	}
	if realm, ok := lookup(ds, "realm"); ok && realm != s.realm {
		return nil, fmt.Errorf("DIGEST-MD5 response: realm %q, not %q", realm, s.realm)
	}
	user := get("username")
	password, known := s.password(user)
	in := digestInput{user: user, realm: get("realm"), password: password, nonce: s.sent, cnonce: get("cnonce"),
		nc: get("nc"), authzID: get("authzid"), digestURI: s.digestURI, utf8: strings.EqualFold(get("charset"), "utf-8")}
	want := in.digest("AUTHENTICATE")
	if subtle.ConstantTimeCompare([]byte(strings.ToLower(get("response"))), []byte(want)) != 1 || !known {
		return nil, fmt.Errorf("DIGEST-MD5: user %q: %w", user, ErrBadCredentials)
	}
	// As ZooKeeper's callback handler: the identity is who proved the
	// password, whatever authzid the client asked to act as.
	s.authorized = user
	return []byte("rspauth=" + in.digest("")), nil
}

// AuthorizationID is who the client authenticated as, once done: its
// user name (an authzid it sent is ignored, as ZooKeeper ignores it).
func (s *DigestMD5Server) AuthorizationID() string { return s.authorized }
