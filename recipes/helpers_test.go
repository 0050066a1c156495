package recipes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zktest"
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

func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}
