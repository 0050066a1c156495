package recipes

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// The interop tests run real Curator and Kazoo contenders (testdata/interop)
// on the same path as zkx recipes. Everyone appends "IN id kind" on entering
// and "OUT id kind" on leaving to one log, each line in a single O_APPEND
// write, so the log is the order in which holders came and went; checkLog
// finds any overlap the recipe forbids.

const interopRounds = 40

// holdLog is the shared log file.
type holdLog struct{ path string }

func newHoldLog(t *testing.T) holdLog {
	return holdLog{filepath.Join(t.TempDir(), "holders.log")}
}

// hold records one holding by a zkx contender, doing a little work (a read)
// while it holds, as the other contenders do.
func (l holdLog) hold(s *Session, dir, id, kind string) error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.WriteString(fmt.Sprintf("IN %s %s\n", id, kind)); err != nil {
		return err
	}
	if _, _, err := s.Conn().Exists(dir); err != nil {
		return err
	}
	_, err = f.WriteString(fmt.Sprintf("OUT %s %s\n", id, kind))
	return err
}

// check reads the log and fails the test on an overlap: shared kinds may
// hold together (readers), any other kind must hold alone. It also checks
// each external contender held exactly interopRounds times and each zkx one
// at least that often.
func (l holdLog) check(t *testing.T, shared map[string]bool) {
	t.Helper()
	f, err := os.Open(l.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inside := map[string]string{} // id → kind
	holdings, byID := 0, map[string]int{}
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		fields := strings.Fields(lines.Text())
		if len(fields) != 3 {
			t.Fatalf("log line %d malformed: %q", n, lines.Text())
		}
		op, id, kind := fields[0], fields[1], fields[2]
		switch op {
		case "IN":
			for other, otherKind := range inside {
				if !shared[kind] || !shared[otherKind] {
					t.Fatalf("log line %d: %s (%s) entered while %s (%s) held", n, id, kind, other, otherKind)
				}
			}
			inside[id] = kind
			holdings++
			byID[id]++
		case "OUT":
			delete(inside, id)
		}
	}
	for id, n := range byID {
		zkx := strings.HasPrefix(id, "zkx-")
		if (zkx && n < interopRounds) || (!zkx && n != interopRounds) {
			t.Fatalf("%s held %d times, want %d", id, n, interopRounds)
		}
	}
	t.Logf("%d holdings, no overlap: %v", holdings, byID)
}

// external runs contender programs concurrently and fails the test if any
// fails.
type external struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []zktest.Program
	done    chan struct{} // closed when all have exited
}

func (e *external) start(t *testing.T, name string, args ...string) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		p := zktest.RunProgram(t, 3*time.Minute, "", false, name, args...)
		e.mu.Lock()
		e.results = append(e.results, p)
		e.mu.Unlock()
	}()
}

// finished returns a channel closed once every started program has exited.
func (e *external) finished() <-chan struct{} {
	e.done = make(chan struct{})
	go func() { e.wg.Wait(); close(e.done) }()
	return e.done
}

func (e *external) wait(t *testing.T) {
	t.Helper()
	e.wg.Wait()
	for _, p := range e.results {
		if p.Err != nil {
			p.Log(t)
			t.Fatalf("contender failed: %v", p.Err)
		}
	}
}

// startGate lets every contender in at once: each announces itself as
// gate/ready-ID and waits for gate/go, which open creates when all are there.
type startGate struct {
	path  string
	total int
}

// announce registers a zkx contender at the gate.
func (g startGate) announce(t *testing.T, s *Session, id string) {
	t.Helper()
	if err := s.ensureDir(context.Background(), g.path, worldACL()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conn().Create(g.path+"/ready-"+id, nil, zk.FlagEphemeral, worldACL()); err != nil {
		t.Fatal(err)
	}
}

// await blocks until the gate opens.
func (g startGate) await(s *Session) error {
	for {
		ok, _, ch, err := s.Conn().ExistsW(g.path + "/go")
		if err != nil || ok {
			return err
		}
		select {
		case <-ch:
		case <-time.After(time.Minute):
			return fmt.Errorf("no start signal within a minute")
		}
	}
}

// open waits for every contender to be ready, then lets them go.
func (g startGate) open(t *testing.T, connect string) {
	t.Helper()
	s := dialTest(t, connect)
	waitChildren(t, s, g.path, func(c []string) bool { return len(c) == g.total })
	if _, err := s.Conn().Create(g.path+"/go", nil, zk.FlagPersistent, worldACL()); err != nil {
		t.Fatal(err)
	}
}

// runZkx runs zkx contenders, each with its own session, once the gate
// opens, for at least interopRounds rounds and until until is closed (the
// external contenders are done), so that they contend with them throughout.
// It returns when they are done.
func runZkx(t *testing.T, connect string, gate startGate, until <-chan struct{}, ids []string, body func(s *Session, id string) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for _, id := range ids {
		s := dialTest(t, connect)
		gate.announce(t, s, id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := gate.await(s); err != nil {
				errs <- fmt.Errorf("%s: %w", id, err)
				return
			}
			for i := 0; i < interopRounds || !closed(until); i++ {
				if err := body(s, id); err != nil {
					errs <- fmt.Errorf("%s: %w", id, err)
					return
				}
			}
		}()
	}
	gate.open(t, connect)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func curatorContender(t *testing.T) (java, classpath string) {
	return zktest.Java(t), zktest.CompileCurator(t, filepath.Join("..", "testdata", "interop", "curator", "Contender.java"))
}

// contenderArgs is java's command line for one Contender process that
// runs the Curator contenders given as KIND:ID, interopRounds times each.
func contenderArgs(classpath, connect, dir string, log holdLog, gate startGate, contenders ...string) []string {
	args := append(append([]string{}, zktest.JavaQuietFlags...), "-cp", classpath, "Contender",
		connect, dir, fmt.Sprint(interopRounds), log.path, gate.path)
	return append(args, contenders...)
}

// TestInteropMutexCurator: Curator InterProcessMutex contenders and zkx
// Mutexes (Curator layout) on one path exclude each other.
func TestInteropMutexCurator(t *testing.T) {
	t.Parallel()
	java, cp := curatorContender(t)
	zktest.Each(t, func(t *testing.T, connect string) {
		dir, log := zktest.Path(t), newHoldLog(t)
		gate := startGate{zktest.Path(t), 4}
		var ext external
		ext.start(t, java, contenderArgs(cp, connect, dir, log, gate, "mutex:curator-1", "mutex:curator-2")...)
		runZkx(t, connect, gate, ext.finished(), []string{"zkx-1", "zkx-2"}, func(s *Session, id string) error {
			return holdMutex(s, NewMutex(s, dir), dir, log, id)
		})
		ext.wait(t)
		log.check(t, nil)
	})
}

// TestInteropMutexKazoo: Kazoo Lock contenders and zkx Mutexes in Kazoo's
// layout on one path exclude each other.
func TestInteropMutexKazoo(t *testing.T) {
	t.Parallel()
	py := zktest.KazooPython(t)
	script := filepath.Join("..", "testdata", "interop", "kazoo", "contender.py")
	zktest.Each(t, func(t *testing.T, connect string) {
		dir, log := zktest.Path(t), newHoldLog(t)
		gate := startGate{zktest.Path(t), 4}
		var ext external
		ext.start(t, py, script, connect, dir, fmt.Sprint(interopRounds), log.path, gate.path, "lock:kazoo-1", "lock:kazoo-2")
		runZkx(t, connect, gate, ext.finished(), []string{"zkx-1", "zkx-2"}, func(s *Session, id string) error {
			return holdMutex(s, NewMutex(s, dir, WithFormat(Kazoo)), dir, log, id)
		})
		ext.wait(t)
		log.check(t, nil)
	})
}

func holdMutex(s *Session, m *Mutex, dir string, log holdLog, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Lock(ctx); err != nil {
		return err
	}
	if err := log.hold(s, dir, id, "mutex"); err != nil {
		return err
	}
	return m.Unlock(ctx)
}

func worldACL() []zk.ACL { return zk.WorldACL(zk.PermAll) }

// TestInteropRWMutexCurator: Curator readers and writers
// (InterProcessReadWriteLock) and zkx RWMutex readers and writers on one
// path: readers share, writers hold alone.
func TestInteropRWMutexCurator(t *testing.T) {
	t.Parallel()
	java, cp := curatorContender(t)
	zktest.Each(t, func(t *testing.T, connect string) {
		dir, log := zktest.Path(t), newHoldLog(t)
		gate := startGate{zktest.Path(t), 4}
		var ext external
		ext.start(t, java, contenderArgs(cp, connect, dir, log, gate, "read:curator-reader", "write:curator-writer")...)
		runZkx(t, connect, gate, ext.finished(), []string{"zkx-reader", "zkx-writer"}, func(s *Session, id string) error {
			return holdRW(s, NewRWMutex(s, dir), dir, log, id, id == "zkx-reader")
		})
		ext.wait(t)
		log.check(t, map[string]bool{"read": true})
	})
}

// TestInteropRWMutexKazoo: Kazoo WriteLocks and zkx RWMutex readers and
// writers in Kazoo's layout on one path.
func TestInteropRWMutexKazoo(t *testing.T) {
	t.Parallel()
	py := zktest.KazooPython(t)
	script := filepath.Join("..", "testdata", "interop", "kazoo", "contender.py")
	zktest.Each(t, func(t *testing.T, connect string) {
		dir, log := zktest.Path(t), newHoldLog(t)
		gate := startGate{zktest.Path(t), 4}
		var ext external
		ext.start(t, py, script, connect, dir, fmt.Sprint(interopRounds), log.path, gate.path, "write:kazoo-writer-1", "write:kazoo-writer-2")
		runZkx(t, connect, gate, ext.finished(), []string{"zkx-reader", "zkx-writer"}, func(s *Session, id string) error {
			return holdRW(s, NewRWMutex(s, dir, WithFormat(Kazoo)), dir, log, id, id == "zkx-reader")
		})
		ext.wait(t)
		log.check(t, map[string]bool{"read": true})
	})
}

func holdRW(s *Session, rw *RWMutex, dir string, log holdLog, id string, reader bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lock, unlock, kind := rw.Lock, rw.Unlock, "write"
	if reader {
		lock, unlock, kind = rw.RLock, rw.RUnlock, "read"
	}
	if err := lock(ctx); err != nil {
		return err
	}
	if err := log.hold(s, dir, id, kind); err != nil {
		return err
	}
	return unlock(ctx)
}

// TestInteropElectionCurator: Curator LeaderLatches and zkx Elections on one
// path: one leader at a time.
func TestInteropElectionCurator(t *testing.T) {
	t.Parallel()
	java, cp := curatorContender(t)
	zktest.Each(t, func(t *testing.T, connect string) {
		dir, log := zktest.Path(t), newHoldLog(t)
		gate := startGate{zktest.Path(t), 4}
		var ext external
		ext.start(t, java, contenderArgs(cp, connect, dir, log, gate, "latch:curator-1", "latch:curator-2")...)
		runZkx(t, connect, gate, ext.finished(), []string{"zkx-1", "zkx-2"}, func(s *Session, id string) error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			e := NewElection(s, dir)
			if err := e.Campaign(ctx); err != nil {
				return err
			}
			if err := log.hold(s, dir, id, "latch"); err != nil {
				return err
			}
			return e.Resign(ctx)
		})
		ext.wait(t)
		log.check(t, nil)
	})
}
