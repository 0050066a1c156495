package zkview

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestFollow: data changes, children added and removed, deletion and
// creation arrive in order with the server's zxids.
func TestFollow(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		changes := make(chan Change, 16)
		go c.Follow(ctx, base, true, func(ch Change) error { changes <- ch; return nil })
		next := func() Change {
			select {
			case ch := <-changes:
				return ch
			case <-ctx.Done():
				t.Fatal("no change seen")
			}
			return Change{}
		}
		w, _ := c.Writer()
		// Follow has set its watches once the first write is seen.
		deadline := time.Now().Add(20 * time.Second)
		var first Change
		for i := 0; first.Kind == "" && time.Now().Before(deadline); i++ {
			if _, err := w.Set(ctx, base, []byte{byte(i)}, -1); err != nil {
				t.Fatal(err)
			}
			select {
			case first = <-changes:
			case <-time.After(200 * time.Millisecond):
			}
		}
		if first.Kind != ChangeData || first.Zxid == 0 {
			t.Fatalf("first change %+v", first)
		}
		for len(changes) > 0 {
			<-changes
		}
		if _, err := w.Set(ctx, base, []byte("new"), -1); err != nil {
			t.Fatal(err)
		}
		if ch := next(); ch.Kind != ChangeData || string(ch.New) != "new" {
			t.Fatalf("data change %+v", ch)
		}
		if _, err := w.Create(ctx, base+"/kid", nil, zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		if ch := next(); ch.Kind != ChangeChildren || len(ch.Added) != 1 || ch.Added[0] != "kid" {
			t.Fatalf("children change %+v", ch)
		}
		if err := w.DeleteRecursive(ctx, base); err != nil {
			t.Fatal(err)
		}
		var kinds []ChangeKind
		for len(kinds) == 0 || kinds[len(kinds)-1] != ChangeDeleted {
			kinds = append(kinds, next().Kind)
		}
		if _, err := w.Create(ctx, base, []byte("again"), zk.FlagPersistent); err != nil {
			t.Fatal(err)
		}
		if ch := next(); ch.Kind != ChangeCreated || string(ch.New) != "again" {
			t.Fatalf("creation %+v", ch)
		}
	})
}
