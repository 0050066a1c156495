package zkdial

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// silentListener accepts connections (the kernel does) and never answers:
// a member frozen with SIGSTOP looks so.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// answering answers every connection with text, then closes it.
func answering(t *testing.T, text string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(text))
			c.Close()
		}
	}()
	return ln.Addr().String()
}

func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestRank: a member that serves goes first, whatever its place in the
// connect string; members that answered otherwise (not serving, a
// refusal) come next; the silent and the closed last, as written.
func TestRank(t *testing.T) {
	t.Parallel()
	live := zktest.EmbeddedServer(t, zkserver.Config{}).ConnectString()
	silent, closed := silentListener(t), closedPort(t)
	notServing := answering(t, "This ZooKeeper instance is not currently serving requests\n")
	ctx := context.Background()
	within := 300 * time.Millisecond

	if got := Rank(ctx, []string{silent, closed, live}, Options{}, within); !slices.Equal(got, []string{live, silent, closed}) {
		t.Errorf("Rank(silent, closed, live) = %v", got)
	}
	if got := Rank(ctx, []string{silent, notServing}, Options{}, within); !slices.Equal(got, []string{notServing, silent}) {
		t.Errorf("Rank(silent, not serving) = %v: the member that answered goes first", got)
	}
	if got := Rank(ctx, []string{silent}, Options{}, within); !slices.Equal(got, []string{silent}) {
		t.Errorf("one member is returned as it is: %v", got)
	}
}

// TestHostsPrefer: Prefer's order first, from its first member, then the
// servers it left out as written; names Prefer has that the connect
// string has not are ignored.
func TestHostsPrefer(t *testing.T) {
	t.Parallel()
	h := &Hosts{Prefer: []string{"c:1", "x:9", "a:1"}}
	if err := h.Init([]string{"a:1", "b:1", "c:1"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		s, _ := h.Next()
		got = append(got, s)
	}
	if want := []string{"c:1", "a:1", "b:1", "c:1"}; !slices.Equal(got, want) {
		t.Errorf("Next order %v, want %v", got, want)
	}
}
