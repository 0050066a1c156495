package recipes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// testTimeout bounds every wait of a test: long enough never to matter
// when things work.
const testTimeout = 30 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func dialTest(t *testing.T, connect string, opts ...SessionOption) *Session {
	t.Helper()
	s, err := Dial(strings.Split(connect, ","), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkOwnNode checks that path holds our owner data, belongs to s's
// session, and is what tok names (path, czxid, session).
func checkOwnNode(t *testing.T, s *Session, path string, tok Token, what string) {
	t.Helper()
	data, stat, err := s.Conn().Get(path)
	if err != nil || string(data) != string(ownerData()) || stat.EphemeralOwner != s.ID() {
		t.Fatalf("%s node: %q %+v %v", what, data, stat, err)
	}
	if tok.Path != path || tok.Zxid != stat.Czxid || tok.Session != s.ID() {
		t.Fatalf("%s token %v, node czxid 0x%x", what, tok, stat.Czxid)
	}
}

// children lists dir through a session, failing the test on error.
func children(t *testing.T, s *Session, dir string) []string {
	t.Helper()
	c, _, err := s.Conn().Children(dir)
	if err != nil && err != zk.ErrNoNode {
		t.Fatal(err)
	}
	return c
}

// waitChildren waits, on watches and with the test's deadline, until the
// children of dir satisfy cond; a missing dir counts as no children.
func waitChildren(t *testing.T, s *Session, dir string, cond func([]string) bool) []string {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		c, _, ch, err := s.Conn().ChildrenW(dir)
		if err == zk.ErrNoNode {
			var ok bool
			ok, _, ch, err = s.Conn().ExistsW(dir)
			if ok {
				continue // created meanwhile: list again
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if cond(c) {
			return c
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting on the children of %s (now %v)", dir, c)
		}
	}
}

// waitNotified waits, with the test's deadline, until m has counted at
// least n notifications.
func waitNotified(t *testing.T, m *Mutex, n uint64) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for m.opts.stats.Snapshot().Notifications < n {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d notifications (have %d)", n, m.opts.stats.Snapshot().Notifications)
		}
		time.Sleep(time.Millisecond) // a counter, not an event: poll it
	}
}

func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// watchTable reads the server's data-watch table (wchp): the hex session
// ids watching each path, sorted. Waiters watch with getData and exists, so
// their watches are there (child watches are not: ZooKeeper 3.8 lists only
// data watches).
func watchTable(t *testing.T, connect string) map[string][]string {
	t.Helper()
	out, err := zktest.FourLetter(firstServer(connect), "wchp", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	table := map[string][]string{}
	path := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "/"):
			path = line
		case path != "" && strings.HasPrefix(line, "\t"):
			table[path] = append(table[path], strings.TrimSpace(line))
		}
	}
	for p := range table {
		slices.Sort(table[p])
	}
	return table
}

// waitWatchTable waits, with the test's deadline, until the server's watch
// table satisfies cond, so a test knows waiters are in place.
func waitWatchTable(t *testing.T, connect, what string, cond func(table map[string][]string) bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		table := watchTable(t, connect)
		if cond(table) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; watches: %v", what, table)
		}
	}
}

// waitWatchers waits until at least n watches are set on the nodes of dir.
func waitWatchers(t *testing.T, connect, dir string, n int) {
	t.Helper()
	waitWatchTable(t, connect, fmt.Sprintf("%d watches under %s", n, dir), func(table map[string][]string) bool {
		count := 0
		for p, sessions := range table {
			if strings.HasPrefix(p, dir+"/") {
				count += len(sessions)
			}
		}
		return count >= n
	})
}

// waitWatched waits until at least n sessions watch path itself.
func waitWatched(t *testing.T, connect, path string, n int) {
	t.Helper()
	waitWatchTable(t, connect, fmt.Sprintf("%d watches on %s", n, path), func(table map[string][]string) bool {
		return len(table[path]) >= n
	})
}

// firstServer is the first host:port of a connect string.
func firstServer(connect string) string {
	first, _, _ := strings.Cut(connect, ",")
	return first
}
