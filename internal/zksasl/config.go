package zksasl

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/zkx-dev/zkx/internal/sasl"
)

// Mechanisms zkx speaks.
const (
	DigestMD5 = "DIGEST-MD5"
	GSSAPI    = "GSSAPI"
)

// Config says how every connection authenticates.
type Config struct {
	// Mechanism is DigestMD5 or GSSAPI.
	Mechanism string
	// User and Password are DIGEST-MD5's.
	User, Password string
	// Kerberos is GSSAPI's login: its client principal and credentials.
	Kerberos *sasl.Kerberos
	// Service is the first part of the server principal,
	// service/host@REALM, host being the member as the connect string
	// writes it (default "zookeeper"). GSSAPI only: DIGEST-MD5's
	// digest-uri is fixed.
	Service string
}

// Check reports what is missing or contradictory.
func (c *Config) Check() error {
	switch strings.ToUpper(c.Mechanism) {
	case DigestMD5:
		if c.User == "" {
			return errors.New("SASL DIGEST-MD5 needs a user name (--sasl-user)")
		}
	case GSSAPI:
		if c.Kerberos == nil {
			return errors.New("SASL GSSAPI needs a Kerberos login (--principal with --keytab, or a credential cache)")
		}
	default:
		return fmt.Errorf("SASL mechanism %q: zkx speaks DIGEST-MD5 and GSSAPI", c.Mechanism)
	}
	return nil
}

// Wrap returns the zkdial.Options.Wrap that authenticates each new
// connection.
func (c *Config) Wrap() func(net.Conn, string) (net.Conn, error) {
	mech := strings.ToUpper(c.Mechanism)
	return func(nc net.Conn, addr string) (net.Conn, error) {
		wrapped := &conn{Conn: nc, addr: addr}
		switch mech {
		case DigestMD5:
			wrapped.describe = "DIGEST-MD5 as " + c.User
			wrapped.newClient = func() (sasl.Client, error) {
				return sasl.NewDigestMD5(c.User, c.Password, sasl.ZooKeeperDigestService, sasl.ZooKeeperDigestHost), nil
			}
		case GSSAPI:
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				host = addr
			}
			service := c.Service
			if service == "" {
				service = "zookeeper"
			}
			wrapped.describe = "GSSAPI as " + c.Kerberos.Principal() + " to " + service + "/" + host
			wrapped.newClient = func() (sasl.Client, error) { return c.Kerberos.NewGSSAPI(service, host) }
		default:
			return nil, fmt.Errorf("SASL mechanism %q: zkx speaks DIGEST-MD5 and GSSAPI", c.Mechanism)
		}
		return wrapped, nil
	}
}
