package zkserver_test

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/internal/zktls"
)

// TestTLSWithKazoo: Kazoo, a client not written in Go, speaks to the TLS
// port with its client certificate, as to ZooKeeper's secureClientPort.
func TestTLSWithKazoo(t *testing.T) {
	t.Parallel()
	py := zktest.KazooPython(t)
	c := zktest.NewCerts(t)
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	cfg, err := zktls.ServerFiles{Cert: c.ServerCert, Key: c.ServerKey, CA: c.CA}.Config()
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.ListenTLS("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "tls", "kazoo_tls.py")
	p := zktest.RunProgram(t, time.Minute, "", true, py, script, addr.String(), c.CA, c.ClientCert, c.ClientKey, "/kazoo-over-tls")
	if p.Err != nil {
		p.Log(t)
		t.Fatalf("kazoo over TLS: %v", p.Err)
	}
	p.ExpectLine(t, "OK over TLS")
}
