package zktls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// handshakeTimeout bounds a handshake at least this long, whatever the
// dial timeout (go-zookeeper gives a dial 1 s).
const handshakeTimeout = 5 * time.Second

// Dial connects to addr and completes the TLS handshake, giving up at
// ctx's end or after the timeout. The server name checked is cfg's, else
// addr's host. Its error names the certificate problem (see Explain).
func Dial(ctx context.Context, cfg *tls.Config, addr string, timeout time.Duration) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	c := cfg.Clone()
	if c.ServerName == "" {
		c.ServerName = host
	}
	d := &net.Dialer{Timeout: timeout}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	conn := tls.Client(raw, c)
	hctx, cancel := context.WithTimeout(ctx, max(timeout, handshakeTimeout))
	defer cancel()
	if err := conn.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, Explain(err, addr, c.ServerName)
	}
	return conn, nil
}

// Error is a TLS connection that could not be made, with what went wrong
// in words a user can act on.
type Error struct {
	Addr   string
	Reason string
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("TLS to %s: %s", e.Addr, e.Reason) }
func (e *Error) Unwrap() error { return e.Err }

// Explain names the certificate problem behind a handshake error.
func Explain(err error, addr, serverName string) error {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	msg := err.Error()
	reason := ""
	switch {
	case errors.As(err, &unknown):
		reason = "the server's certificate is signed by an unknown authority (is --tls-ca the CA that signed it?)"
	case errors.As(err, &host):
		reason = fmt.Sprintf("the server's certificate is not for %q (it is for %s; --tls-server-name sets the name checked)",
			serverName, certNames(host.Certificate))
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		reason = fmt.Sprintf("the server's certificate has expired (%s)", invalid.Detail)
	case errors.As(err, &invalid):
		reason = "the server's certificate is not valid: " + invalid.Error()
	case errors.As(err, &verify):
		reason = "the server's certificate could not be verified: " + verify.Err.Error()
	case errors.As(err, &record):
		reason = "the server does not speak TLS on this port (is it the plain client port?)"
	case strings.Contains(msg, "certificate required") || strings.Contains(msg, "bad certificate") ||
		strings.Contains(msg, "unknown certificate authority") || strings.Contains(msg, "certificate unknown"):
		reason = "the server refused our client certificate (give one it trusts with --tls-cert and --tls-key): " + msg
	case strings.Contains(msg, "protocol version"):
		reason = "no TLS version both sides speak: " + msg
	case errors.Is(err, io.EOF) || strings.Contains(msg, "connection reset"):
		reason = "the server closed the connection during the TLS handshake: it may not speak TLS on this port (a plain client port?), or want a client certificate"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		reason = "no answer to the TLS handshake (is this a TLS port?)"
	default:
		reason = msg
	}
	return &Error{Addr: addr, Reason: reason, Err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// certNames lists the names a certificate is for.
func certNames(c *x509.Certificate) string {
	if c == nil {
		return "no name"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName)
	}
	// The names are the server's to choose: shown, not obeyed.
	return display.Line(strings.Join(names, ", "))
}
