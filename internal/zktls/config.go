package zktls

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// Files are the PEM files of a TLS connection. CA verifies the server
// (the system's roots when empty); Cert and Key, given together, are the
// client's certificate; ServerName overrides the name checked in the
// server's certificate (the host dialled, by default).
type Files struct {
	CA, Cert, Key string
	ServerName    string
}

// Enabled reports whether any TLS file was given.
func (f Files) Enabled() bool { return f.CA != "" || f.Cert != "" || f.Key != "" }

// Config loads the files into a client configuration.
func (f Files) Config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName}
	if f.CA != "" {
		pool, err := loadCA(f.CA)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	switch {
	case f.Cert != "" && f.Key != "":
		cert, err := loadKeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	case f.Cert != "" || f.Key != "":
		return nil, errors.New("--tls-cert and --tls-key go together: the client certificate and its key")
	}
	return cfg, nil
}

// ServerFiles are the PEM files of a TLS listener: its certificate and
// key, and the CA that client certificates must be signed by (when given,
// a client certificate is required, as ZooKeeper's secureClientPort does).
type ServerFiles struct {
	Cert, Key, CA string
}

// Config loads the files into a server configuration.
func (f ServerFiles) Config() (*tls.Config, error) {
	if f.Cert == "" || f.Key == "" {
		return nil, errors.New("a TLS listener needs --tls-cert and --tls-key")
	}
	cert, err := loadKeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if f.CA != "" {
		pool, err := loadCA(f.CA)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// loadCA reads the CA certificates of --tls-ca.
func loadCA(path string) (*x509.CertPool, error) {
	pem, err := fileread.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--tls-ca %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// loadKeyPair reads --tls-cert and --tls-key (tls.LoadX509KeyPair, from
// regular files only).
func loadKeyPair(certPath, keyPath string) (tls.Certificate, error) {
	certPEM, err := fileread.ReadFile(certPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-cert: %w", err)
	}
	keyPEM, err := fileread.ReadFile(keyPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", certPath, keyPath, err)
	}
	return cert, nil
}
