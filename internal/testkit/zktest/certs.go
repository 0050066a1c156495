package zktest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/zktls"
)

// Certs are PEM files for TLS tests, made fresh for each test: a CA, a
// server certificate for 127.0.0.1 and localhost signed by it, a client
// certificate (clientAuth) signed by it, and what tests of failures want:
// another CA, a server certificate for another name, an expired one.
type Certs struct {
	Dir string
	// CA is the CA's certificate; OtherCA one that signed nothing here.
	CA, OtherCA string
	// ServerCert and ServerKey: for 127.0.0.1 and localhost; ServerPEM
	// holds both (key first), as ZooKeeper's PEM key store wants them.
	ServerCert, ServerKey, ServerPEM string
	// ClientCert, ClientKey: a client certificate; ClientPEM holds both.
	ClientCert, ClientKey, ClientPEM string
	// WrongNameCert and WrongNameKey are a server certificate for
	// zk.example.invalid only; ExpiredCert and ExpiredKey one that expired.
	WrongNameCert, WrongNameKey string
	ExpiredCert, ExpiredKey     string
}

// NewCerts makes the certificates in a temporary directory of the test.
func NewCerts(t testing.TB) *Certs {
	t.Helper()
	dir := t.TempDir()
	c := &Certs{Dir: dir}
	now := time.Now()
	ca, caKey := makeCA(t, "zktest CA")
	other, _ := makeCA(t, "zktest other CA")
	c.CA = writePEM(t, dir, "ca.pem", "CERTIFICATE", ca.Raw)
	c.OtherCA = writePEM(t, dir, "other-ca.pem", "CERTIFICATE", other.Raw)
	leaf := func(name string, client bool, dns []string, ips []net.IP, notAfter time.Time) (certPath, keyPath, both string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		usage := x509.ExtKeyUsageServerAuth
		if client {
			usage = x509.ExtKeyUsageClientAuth
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial(t), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: notAfter,
			KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, DNSNames: dns, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		pkcs8, err := x509.MarshalPKCS8PrivateKey(key) // ZooKeeper reads unencrypted PKCS#8
		if err != nil {
			t.Fatal(err)
		}
		certPath = writePEM(t, dir, name+".pem", "CERTIFICATE", der)
		keyPath = writePEM(t, dir, name+"-key.pem", "PRIVATE KEY", pkcs8)
		both = filepath.Join(dir, name+"-keystore.pem")
		k, _ := os.ReadFile(keyPath)
		cert, _ := os.ReadFile(certPath)
		if err := os.WriteFile(both, append(k, cert...), 0o600); err != nil {
			t.Fatal(err)
		}
		return certPath, keyPath, both
	}
	loopback := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	c.ServerCert, c.ServerKey, c.ServerPEM = leaf("server", false, []string{"localhost"}, loopback, now.Add(24*time.Hour))
	c.ClientCert, c.ClientKey, c.ClientPEM = leaf("client", true, nil, nil, now.Add(24*time.Hour))
	c.WrongNameCert, c.WrongNameKey, _ = leaf("wrong-name", false, []string{"zk.example.invalid"}, nil, now.Add(24*time.Hour))
	c.ExpiredCert, c.ExpiredKey, _ = leaf("expired", false, []string{"localhost"}, loopback, now.Add(-time.Minute))
	return c
}

func makeCA(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func serial(t testing.TB) *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func writePEM(t testing.TB, dir, name, kind string, der []byte) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// ClientConfig is a client's TLS configuration from the certificates: the
// CA, and the client certificate.
func (c *Certs) ClientConfig() (*tls.Config, error) {
	return zktls.Files{CA: c.CA, Cert: c.ClientCert, Key: c.ClientKey}.Config()
}
