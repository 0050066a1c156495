package zklimit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestLimitMatchesServers: the largest create CheckCreate allows is
// taken by ZooKeeper, and one byte more is what CheckCreate refuses (a
// server would drop the connection).
func TestLimitMatchesServers(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		conn, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		path := zktest.Path(t)
		acl := zk.WorldACL(zk.PermAll)
		largest := MaxRequest - (8 + 4 + len(path) + 4 + 4 + 4 + (4 + 4 + len("world") + 4 + len("anyone")))
		data := []byte(strings.Repeat("x", largest))
		if err := CheckCreate(path, data, acl); err != nil {
			t.Fatalf("CheckCreate refused the largest request: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { _, err := conn.Create(path, data, zk.FlagPersistent, acl); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the server refused a request CheckCreate allows: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("no answer to the largest create")
		}
		if err := CheckCreate(path, append(data, 'x'), acl); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("one byte more: %v, want ErrTooLarge", err)
		}
		if err := CheckSet(path, make([]byte, MaxRequest)); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("CheckSet of 1 MiB: %v", err)
		}
	})
}
