package zktest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// shared is the real single-node server of the test binary.
var shared struct {
	mu  sync.Mutex
	e   *Ensemble
	dir string
	err error // a failed start is not retried
}

// mainRunning is set by Main; Shared warns when it is not.
var mainRunning atomic.Bool

// Shared returns the connect string of one real single-node ZooKeeper
// shared by all tests of the test binary, started on first use. Tests using
// it must work under their own paths (see Path). It is stopped by Main, and
// is also killed if the test process dies. Like Real, it skips the test
// when java or the zookeeper jar is missing (fails it under
// ZKX_REAL_ZK=required).
func Shared(t testing.TB) string {
	t.Helper()
	rt := requireRuntime(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.e == nil && shared.err == nil {
		shared.err = startShared(t, rt)
	}
	if shared.err != nil {
		t.Fatalf("zktest: shared real ZooKeeper: %v", shared.err)
	}
	e := shared.e
	m := e.members[0]
	if st, p := m.state(); st == stateExited {
		t.Fatalf("zktest: shared real ZooKeeper %v %s; log tail:\n%s", m, p.describeExit(), m.logTail())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("zktest: tail of shared server log %s:\n%s", m.logPath, m.logTail())
		}
	})
	return e.ConnectString()
}

// startShared starts the shared server; the caller holds shared.mu.
func startShared(t testing.TB, rt runtimePaths) error {
	t.Helper()
	if !mainRunning.Load() {
		t.Logf("zktest: Shared without zktest.Main in TestMain: the shared server is only killed when the test process exits")
	}
	var err error
	for attempt := 1; ; attempt++ {
		err = startSharedOnce(t, rt)
		if err == nil || !errors.Is(err, errPortTaken) || attempt == 3 {
			return err
		}
		t.Logf("zktest: shared real ZooKeeper: %v; again on other ports", err)
	}
}

// errPortTaken: a member could not bind a port: another process took it
// between freePorts' close and the JVM's bind.
var errPortTaken = errors.New("a port it was given was taken meanwhile (BindException)")

// startSharedOnce starts the shared server on ports of its own; the
// caller holds shared.mu.
func startSharedOnce(t testing.TB, rt runtimePaths) error {
	t.Helper()
	dir, err := os.MkdirTemp("", "zktest-shared-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	e, err := newEnsemble(dir, 1, rt)
	if err == nil {
		begin := time.Now()
		err = e.start()
		if err == nil {
			err = e.waitServing(startTimeout)
		}
		if err == nil {
			// What answered may be another process's server on a port
			// ours could not bind: serving counts only while ours runs.
			err = e.exitedMember()
		}
		if err == nil {
			t.Logf("zktest: shared real ZooKeeper serving at %s after %v", e.ConnectString(), time.Since(begin).Round(time.Millisecond))
			shared.e, shared.dir = e, dir
			return nil
		}
		err = fmt.Errorf("%w; log tail:\n%s", err, e.members[0].logTail())
		e.stop()
	}
	os.RemoveAll(dir)
	return err
}

// stopShared kills the shared server, if one was started, and removes its
// directory.
func stopShared() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.e == nil {
		return nil
	}
	err := shared.e.stop()
	if rmErr := os.RemoveAll(shared.dir); err == nil {
		err = rmErr
	}
	shared.e, shared.dir = nil, ""
	return err
}

// Main runs the package's tests, minParallel at a time unless -parallel
// says otherwise (see waitingParallel), and then stops shared servers and
// removes the peers compiled outside the cache (compileJava); use it from
// TestMain:
//
//	func TestMain(m *testing.M) { zktest.Main(m) }
//
// after are called once the tests have run and the shared server is
// stopped, for what the package's tests share (a TMPDIR of their own,
// which may hold the shared server's directory).
func Main(m *testing.M, after ...func()) {
	waitingParallel()
	cleanup := isolate()
	mainRunning.Store(true)
	code := m.Run()
	cleanup()
	if err := stopShared(); err != nil {
		fmt.Fprintf(os.Stderr, "zktest: stop shared real ZooKeeper: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if err := removeCompiledJava(); err != nil {
		fmt.Fprintf(os.Stderr, "zktest: remove the peers' classes compiled outside the cache: %v\n", err)
	}
	if err := removeZkxBinary(); err != nil {
		fmt.Fprintf(os.Stderr, "zktest: remove the zkx binary built outside the cache: %v\n", err)
	}
	for _, f := range after {
		f()
	}
	os.Exit(code)
}

// minParallel is how many tests of a package Main lets run at once when
// the command line does not say (-parallel), if GOMAXPROCS is fewer.
const minParallel = 6

// waitingParallel raises -parallel to minParallel unless it was given.
// go test's default, GOMAXPROCS, suits tests that compute; these mostly
// wait — for JVMs to start, sessions to expire, peers to answer, a
// deadline to pass — so on a 2-core machine two at a time left the cores
// idle while the slowest tests ran one after another, and at four the
// waits that started last (an expiry, a TTL, an election) still ended
// packages with the cores idle. Every test that calls t.Parallel owns its
// servers, subtree and ports; a test that waits on a deadline allows for
// a loaded machine (CONTRIBUTING.md).
func waitingParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given || runtime.GOMAXPROCS(0) >= minParallel {
		return
	}
	if err := flag.Set("test.parallel", strconv.Itoa(minParallel)); err != nil {
		fmt.Fprintf(os.Stderr, "zktest: -parallel %d: %v\n", minParallel, err)
	}
}

// isolate keeps the developer's own zkx settings out of the tests: their
// contexts file (a current context pointing at a real ensemble) and the
// environment's connect string and credentials.
func isolate() (cleanup func()) {
	for _, v := range []string{"ZK_SERVERS", "ZKX_AUTH", "ZKX_ADMIN_URL"} {
		os.Unsetenv(v)
	}
	dir, err := os.MkdirTemp("", "zktest-config-")
	if err != nil {
		return func() {}
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	return func() { os.RemoveAll(dir) }
}
