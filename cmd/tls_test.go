package cmd

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/internal/zktls"
	"github.com/zkx-dev/zkx/zkview"
)

// tlsServer serves the embedded server's TLS port with a certificate and,
// when clientCA is set, client certificates required.
func tlsServer(t *testing.T, cert, key, clientCA string) (plain, secure string) {
	t.Helper()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	cfg, err := zktls.ServerFiles{Cert: cert, Key: key, CA: clientCA}.Config()
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.ListenTLS("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv.ConnectString(), addr.String()
}

// tlsSession is a session over TLS to secure with the client certificate,
// closed when the test ends.
func tlsSession(t *testing.T, secure string, c *zktest.Certs) *zkview.Client {
	t.Helper()
	cfg, err := c.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	other, err := zkview.Dial(ctx, secure, zkview.WithTLS(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	return other
}

// TestTLS: zkx over TLS, and each certificate problem named in the error
// (the session is given up at once, not at --timeout).
func TestTLS(t *testing.T) {
	t.Parallel()
	c := zktest.NewCerts(t)
	_, secure := tlsServer(t, c.ServerCert, c.ServerKey, c.CA)
	client := []string{"--tls-ca", c.CA, "--tls-cert", c.ClientCert, "--tls-key", c.ClientKey}

	out, errs, err := run(t, append([]string{"--server", secure, "ls", "/"}, client...)...)
	if err != nil || !strings.Contains(out, "zookeeper") {
		t.Fatalf("ls over TLS: %v\n%s%s", err, out, errs)
	}
	// A session over TLS, listed by the four-letter words asked over TLS.
	other := tlsSession(t, secure, c)
	out, _, err = run(t, append([]string{"--server", secure, "sessions", "-o", "json"}, client...)...)
	if err != nil || !strings.Contains(out, display.Hex(other.SessionID())) {
		t.Errorf("sessions over TLS (four-letter words on the secure port): %v, want 0x%x in\n%s", err, other.SessionID(), out)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown authority", []string{"--tls-ca", c.OtherCA, "--tls-cert", c.ClientCert, "--tls-key", c.ClientKey}, "unknown authority"},
		{"no client certificate", []string{"--tls-ca", c.CA}, "refused our client certificate"},
		{"wrong name checked", append([]string{"--tls-server-name", "zk.example.invalid"}, client...), `not for "zk.example.invalid"`},
		{"plain to a TLS port", nil, "requires TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"--server", secure, "--timeout", "20s", "ls", "/"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "--timeout") {
				t.Errorf("ended by --timeout, not by the TLS problem: %v", err)
			}
		})
	}
}

// TestTLSServerCertificates: an expired certificate and one for another
// name, named as such; TLS spoken to a plain port.
func TestTLSServerCertificates(t *testing.T) {
	t.Parallel()
	c := zktest.NewCerts(t)
	client := []string{"--tls-ca", c.CA, "--tls-cert", c.ClientCert, "--tls-key", c.ClientKey}
	_, expired := tlsServer(t, c.ExpiredCert, c.ExpiredKey, "")
	_, wrongName := tlsServer(t, c.WrongNameCert, c.WrongNameKey, "")
	plain, _ := tlsServer(t, c.ServerCert, c.ServerKey, "")
	for _, tc := range []struct{ name, server, want string }{
		{"expired", expired, "expired"},
		{"wrong name", wrongName, `not for "127.0.0.1" (it is for zk.example.invalid`},
		{"TLS to a plain port", plain, "may not speak TLS on this port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"--server", tc.server, "--timeout", "20s", "ls", "/"}, client...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestServeSecureListen: zkx serve's TLS port speaks TLS 1.2, as
// ZooKeeper 3.8's Java client does, and requires client certificates
// when given a CA.
func TestServeSecureListen(t *testing.T) {
	t.Parallel()
	c := zktest.NewCerts(t)
	_, secure := tlsServer(t, c.ServerCert, c.ServerKey, c.CA)
	cfg, err := c.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxVersion = tls.VersionTLS12
	conn, err := tls.Dial("tcp", secure, cfg)
	if err != nil {
		t.Fatalf("TLS 1.2: %v", err)
	}
	conn.Close()
	cfg.Certificates = nil
	if conn, err := tls.Dial("tcp", secure, cfg); err == nil {
		// TLS 1.3 reports a missing client certificate on the first read.
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
		if err == nil {
			t.Error("a client without a certificate was served")
		}
	}
}

// TestTLSRealZooKeeper: zkx against ZooKeeper 3.8's secureClientPort
// (Netty), client certificate required: reads, the four-letter words over
// TLS, and a wrong CA named at once.
func TestTLSRealZooKeeper(t *testing.T) {
	t.Parallel()
	c := zktest.NewCerts(t)
	e := zktest.RealWith(t, zktest.RealOptions{TLS: c})
	secure := e.SecureConnectString()
	client := []string{"--tls-ca", c.CA, "--tls-cert", c.ClientCert, "--tls-key", c.ClientKey}
	out, errs, err := run(t, append([]string{"--server", secure, "ls", "/"}, client...)...)
	if err != nil || !strings.Contains(out, "zookeeper") {
		t.Fatalf("ls over TLS: %v\n%s%s", err, out, errs)
	}
	other := tlsSession(t, secure, c)
	out, errs, err = run(t, append([]string{"--server", secure, patientWithMembers, "sessions", "-o", "json"}, client...)...)
	if err != nil || !strings.Contains(out, display.Hex(other.SessionID())) {
		t.Errorf("sessions over TLS: %v, want 0x%x in\n%s%s", err, other.SessionID(), out, errs)
	}
	_, _, err = run(t, "--server", secure, "--timeout", "20s", "--tls-ca", c.OtherCA, "--tls-cert", c.ClientCert, "--tls-key", c.ClientKey, "ls", "/")
	if err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Errorf("wrong CA: %v", err)
	}
	_, _, err = run(t, "--server", secure, "--timeout", "20s", "ls", "/")
	if err == nil || !strings.Contains(err.Error(), "TLS") || strings.Contains(err.Error(), "--timeout") {
		t.Errorf("plain to the TLS port: %v, want it to name TLS, not the timeout", err)
	}
}

// TestTLSRealAdminServer: a member whose four-letter words are refused
// and whose AdminServer speaks https only (ZooKeeper 3.8, admin.forceHttps)
// is read over https with the CA given for the client port, whether its URL
// is given or discovered: the session's client address comes from it.
func TestTLSRealAdminServer(t *testing.T) {
	t.Parallel()
	c := zktest.NewCerts(t)
	e := zktest.RealWith(t, zktest.RealOptions{TLS: c, AdminServer: true, FourLetterWords: []string{"srvr"}})
	member := e.Members()[0]
	admin := member.AdminURL()
	if !strings.HasPrefix(admin, "https://") {
		t.Fatalf("AdminServer at %q, want https", admin)
	}
	secure := e.SecureConnectString()
	other := tlsSession(t, secure, c)
	adminPort := admin[strings.LastIndex(admin, ":")+1 : strings.LastIndex(admin, "/commands")]
	client := []string{"--server", secure, patientWithMembers, "--tls-ca", c.CA, "--tls-cert", c.ClientCert, "--tls-key", c.ClientKey}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"given", []string{"--admin-url", admin}},
		{"discovered", []string{"--admin-port", adminPort}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sessions []sessionJSON
			out, errs, err := run(t, append(append(append([]string{}, client...), tc.args...), "sessions", "-o", "json")...)
			if err != nil || json.Unmarshal([]byte(out), &sessions) != nil {
				t.Fatalf("zkx sessions: %v\n%s%s", err, out, errs)
			}
			found := false
			for _, s := range sessions {
				if s.Session == display.Hex(other.SessionID()) {
					found = true
					if s.Client == "" {
						t.Errorf("session %s has no client address: the https AdminServer was not read\n%s", s.Session, errs)
					}
				}
			}
			if !found {
				t.Errorf("session %s not listed:\n%s%s", display.Hex(other.SessionID()), out, errs)
			}
			if strings.Contains(errs, "refused") {
				t.Errorf("the member's tables were refused:\n%s", errs)
			}
		})
	}
}
