package cmd

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// announcer records what zkx serve writes and says when it has announced
// where it listens.
type announcer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	ready  chan struct{}
	closed bool
}

func (a *announcer) Write(b []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, _ := a.buf.Write(b)
	if !a.closed && strings.Contains(a.buf.String(), "listening on ") {
		a.closed = true
		close(a.ready)
	}
	return n, nil
}

func (a *announcer) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

// serveUntilListening runs zkx serve ARGS in process; once it says where
// it listens, look runs (with stdout so far), then the server is stopped.
// It returns stdout, stderr and the command's error.
func serveUntilListening(t *testing.T, look func(stdout string), args ...string) (string, string, error) {
	t.Helper()
	out := &announcer{ready: make(chan struct{})}
	var errs bytes.Buffer
	var errMu sync.Mutex
	root := newRootCommand()
	root.SetOut(out)
	root.SetErr(writerFunc(func(b []byte) (int, error) { errMu.Lock(); defer errMu.Unlock(); return errs.Write(b) }))
	root.SetArgs(append([]string{"serve"}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	select {
	case <-out.ready:
		if look != nil {
			look(out.String())
		}
		cancel()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("zkx serve %v: still serving 10s after its context ended", args)
		}
		errMu.Lock()
		defer errMu.Unlock()
		return out.String(), errs.String(), err
	case err := <-done:
		errMu.Lock()
		defer errMu.Unlock()
		return out.String(), errs.String(), err
	case <-time.After(30 * time.Second):
		t.Fatalf("zkx serve %v: nothing said within 30s", args)
		return "", "", nil
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

var listeningOn = regexp.MustCompile(`listening on (\S+)`)

// TestServeWarnsOffLoopback: any listen address that is not loopback —
// every interface written as "", ":port", 0.0.0.0 or [::] — is warned of.
func TestServeWarnsOffLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		listen string
		warn   bool
	}{
		{"127.0.0.1:0", false},
		{"localhost:0", false},
		{"", true},
		{":0", true},
		{"0.0.0.0:0", true},
		{"[::]:0", true},
	} {
		_, errOut, err := serveUntilListening(t, nil, "--listen", tc.listen)
		if err != nil && strings.Contains(err.Error(), "address") && tc.listen == "[::]:0" {
			t.Logf("SKIPPING [::]: no IPv6 here: %v", err)
			continue
		}
		if err != nil {
			t.Errorf("--listen %q: %v", tc.listen, err)
			continue
		}
		if warned := strings.Contains(errOut, "accepts connections from other hosts"); warned != tc.warn {
			t.Errorf("--listen %q: warned %v, want %v:\n%s", tc.listen, warned, tc.warn, errOut)
		}
	}
}

// TestServeLimitsByDefault: as ZooKeeper by default, zkx serve answers
// only srvr of the four-letter words and takes 60 connections from one
// address; --4lw-whitelist and --max-client-cnxns change that, and the
// tree and the watches are bounded.
func TestServeLimitsByDefault(t *testing.T) {
	t.Parallel()
	serveUntilListening(t, func(stdout string) {
		addr := listeningOn.FindStringSubmatch(stdout)[1]
		if srvr, _ := zktest.FourLetter(addr, "srvr", 5*time.Second); !strings.Contains(srvr, "Zookeeper version") {
			t.Errorf("srvr by default: %q", srvr)
		}
		if cons, _ := zktest.FourLetter(addr, "cons", 5*time.Second); !strings.Contains(cons, "not in the whitelist") {
			t.Errorf("cons by default: %q, want it refused", cons)
		}
	}, "--listen", "127.0.0.1:0")
	serveUntilListening(t, func(stdout string) {
		addr := listeningOn.FindStringSubmatch(stdout)[1]
		if cons, _ := zktest.FourLetter(addr, "cons", 5*time.Second); strings.Contains(cons, "not in the whitelist") {
			t.Errorf("cons with --4lw-whitelist '*': %q", cons)
		}
		if conf, _ := zktest.FourLetter(addr, "conf", 5*time.Second); !strings.Contains(conf, "maxClientCnxns=60") {
			t.Errorf("conf: %q, want maxClientCnxns=60 by default", conf)
		}
	}, "--listen", "127.0.0.1:0", "--4lw-whitelist", "*")
	serveUntilListening(t, func(stdout string) {
		addr := listeningOn.FindStringSubmatch(stdout)[1]
		if conf, _ := zktest.FourLetter(addr, "conf", 5*time.Second); !strings.Contains(conf, "maxClientCnxns=7") {
			t.Errorf("conf with --max-client-cnxns 7: %q", conf)
		}
	}, "--listen", "127.0.0.1:0", "--4lw-whitelist", "conf,srvr", "--max-client-cnxns", "7")
	help, _, err := run(t, "serve", "--help")
	for _, want := range []string{"--max-client-cnxns int", "(default 60)", "--max-tree-size", "(default 256MiB)", "--max-watches", "--4lw-whitelist", `(default "srvr")`, "--listen none"} {
		if err != nil || !strings.Contains(help, want) {
			t.Errorf("zkx serve --help lacks %q (%v)", want, err)
		}
	}
}

// TestServeTLSOnly: --listen none with --secure-listen serves TLS alone:
// no plain port, as a ZooKeeper with a secureClientPort and no
// clientPort.
func TestServeTLSOnly(t *testing.T) {
	t.Parallel()
	certs := zktest.NewCerts(t)
	stdout, errOut, err := serveUntilListening(t, func(stdout string) {
		addr := listeningOn.FindStringSubmatch(stdout)[1]
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if _, _, err := run(t, "--server", addr, "--tls-ca", certs.CA, "--tls-cert", certs.ClientCert, "--tls-key", certs.ClientKey, "ls", "/"); err != nil {
			t.Errorf("ls over TLS: %v", err)
		}
	}, "--listen", "none", "--secure-listen", "127.0.0.1:0", "--tls-cert", certs.ServerCert, "--tls-key", certs.ServerKey, "--tls-ca", certs.CA)
	if err != nil || !strings.Contains(stdout, "TLS only") || strings.Count(stdout, "listening on") != 1 {
		t.Errorf("TLS only: %v\n%s%s", err, stdout, errOut)
	}
	if _, _, err := run(t, "serve", "--listen", "none"); err == nil || !strings.Contains(err.Error(), "--secure-listen") {
		t.Errorf("--listen none alone: %v, want it to ask for --secure-listen", err)
	}
}
