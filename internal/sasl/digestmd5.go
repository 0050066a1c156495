package sasl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DIGEST-MD5 as ZooKeeper's Java server speaks it (javax.security.sasl
// "DIGEST-MD5" created with protocol "zookeeper", server name
// "zk-sasl-md5"): the client's first token is empty, the server
// challenges, the client answers, the server proves it knew the password
// too (rspauth), and the client sends nothing more.

// ZooKeeper's DIGEST-MD5 digest-uri is fixed on both sides, whatever host
// is dialled.
const (
	ZooKeeperDigestService = "zookeeper"
	ZooKeeperDigestHost    = "zk-sasl-md5"
)

// DigestMD5 is the client side of a DIGEST-MD5 exchange (qop "auth").
type DigestMD5 struct {
	user, password string
	authzID        string
	digestURI      string

	// cnonce makes the client nonce; tests replace it.
	cnonce  func() (string, error)
	step    int
	rspauth string // what the server must prove
}

// NewDigestMD5 is the client side for user and password; the digest-uri
// is service/host (ZooKeeper: ZooKeeperDigestService/ZooKeeperDigestHost).
func NewDigestMD5(user, password, service, host string) *DigestMD5 {
	return &DigestMD5{user: user, password: password, digestURI: service + "/" + host, cnonce: randomNonce}
}

// Mechanism implements Client.
func (*DigestMD5) Mechanism() string { return "DIGEST-MD5" }

// Step implements Client.
func (m *DigestMD5) Step(challenge []byte) ([]byte, bool, error) {
	m.step++
	switch m.step {
	case 1:
		// No initial response: DIGEST-MD5 starts with the server's challenge.
		return []byte{}, true, nil
	case 2:
		resp, err := m.respond(challenge)
		return resp, err == nil, err
	case 3:
		return nil, false, m.checkRspauth(challenge)
	default:
		return nil, false, errors.New("DIGEST-MD5: the server went on after the exchange was over")
	}
}

func (m *DigestMD5) respond(challenge []byte) ([]byte, error) {
	if len(challenge) == 0 {
		return nil, errors.New("DIGEST-MD5: the server sent no challenge (is SASL configured on it? ZooKeeper needs a JAAS Server section)")
	}
	ds, err := parseDirectives(string(challenge))
	if err != nil {
		return nil, fmt.Errorf("DIGEST-MD5 challenge: %w", err)
	}
	nonce, ok := lookup(ds, "nonce")
	if !ok || nonce == "" {
		return nil, errors.New("DIGEST-MD5 challenge: no nonce")
	}
	if alg, _ := lookup(ds, "algorithm"); alg != "md5-sess" {
		return nil, fmt.Errorf("DIGEST-MD5 challenge: algorithm %q, not md5-sess", alg)
	}
	if qops, ok := lookup(ds, "qop"); ok && !slices.Contains(splitList(qops), "auth") {
		return nil, fmt.Errorf("DIGEST-MD5 challenge: the server offers qop %q; zkx speaks only \"auth\"", qops)
	}
	charset, _ := lookup(ds, "charset")
	utf8OK := strings.EqualFold(charset, "utf-8")
	realm, _ := lookup(ds, "realm") // the first the server offers
	cnonce, err := m.cnonce()
	if err != nil {
		return nil, fmt.Errorf("DIGEST-MD5: client nonce: %w", err)
	}
	const nc = "00000001"
	in := digestInput{user: m.user, realm: realm, password: m.password, nonce: nonce, cnonce: cnonce,
		authzID: m.authzID, digestURI: m.digestURI, nc: nc, utf8: utf8OK}
	m.rspauth = in.digest("")

	var b strings.Builder
	if utf8OK {
		b.WriteString("charset=utf-8,")
	}
	fmt.Fprintf(&b, "username=%s,", quote(m.user))
	if _, ok := lookup(ds, "realm"); ok {
		fmt.Fprintf(&b, "realm=%s,", quote(realm))
	}
	fmt.Fprintf(&b, "nonce=%s,nc=%s,cnonce=%s,digest-uri=%s,maxbuf=65536,response=%s,qop=auth",
		quote(nonce), nc, quote(cnonce), quote(m.digestURI), in.digest("AUTHENTICATE"))
	if m.authzID != "" {
		fmt.Fprintf(&b, ",authzid=%s", quote(m.authzID))
	}
	return []byte(b.String()), nil
}

func (m *DigestMD5) checkRspauth(token []byte) error {
	ds, err := parseDirectives(string(token))
	if err != nil {
		return fmt.Errorf("DIGEST-MD5 server's final answer: %w", err)
	}
	got, ok := lookup(ds, "rspauth")
	if !ok {
		return errors.New("DIGEST-MD5: the server's final answer has no rspauth")
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(m.rspauth)) != 1 {
		return fmt.Errorf("DIGEST-MD5: %w: its rspauth does not match the password", ErrRefused)
	}
	return nil
}

// digestInput is what RFC 2831 §2.1.2.1 hashes into a response value.
type digestInput struct {
	user, realm, password      string
	nonce, cnonce, nc, authzID string
	digestURI                  string
	utf8                       bool
}

// digest is the response value (prefix "AUTHENTICATE") or the server's
// rspauth (prefix ""), qop "auth", as lower-case hex.
func (in digestInput) digest(prefix string) string {
	secret := md5.Sum(joinBytes(in.encode(in.user), []byte(":"), in.encode(in.realm), []byte(":"), in.encode(in.password)))
	a1 := joinBytes(secret[:], []byte(":"+in.nonce+":"+in.cnonce))
	if in.authzID != "" {
		a1 = append(a1, ":"+in.authzID...)
	}
	ha1 := md5.Sum(a1)
	ha2 := md5.Sum([]byte(prefix + ":" + in.digestURI))
	kd := md5.Sum([]byte(hex.EncodeToString(ha1[:]) + ":" + in.nonce + ":" + in.nc + ":" + in.cnonce + ":auth:" + hex.EncodeToString(ha2[:])))
	return hex.EncodeToString(kd[:])
}

// encode is RFC 2831's rule for user, realm and password: ISO 8859-1 when
// every character fits in it (or when the server did not say utf-8),
// else UTF-8 — as Java's implementation does.
func (in digestInput) encode(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xFF || r == utf8.RuneError {
			return []byte(s)
		}
		out = append(out, byte(r))
	}
	return out
}

func joinBytes(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// splitList splits a comma-separated value (qop-options), trimmed.
func splitList(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// randomNonce is 16 random bytes, base64: enough entropy, no quoting.
func randomNonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(b), nil
}
