package recipes

import (
	"encoding/binary"
	"errors"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestSharedCount: the first read makes the node with the seed as 4
// big-endian bytes (Curator's SharedCount.toBytes); TrySet from a stale
// count writes nothing and returns the newer one; Set writes whatever was
// there; WaitChange wakes on another session's write.
func TestSharedCount(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		path := zktest.Path(t) + "/counts/jobs"
		ctx := testContext(t)
		s1, s2 := dialTest(t, connect), dialTest(t, connect)
		c1, c2 := NewSharedCount(s1, path, 7), NewSharedCount(s2, path, 99)

		first, err := c1.Get(ctx)
		if err != nil || first.Value != 7 || first.Version != 0 {
			t.Fatalf("first Get: %+v %v, want 7 at version 0", first, err)
		}
		data, st, err := s2.Conn().Get(path)
		if err != nil || len(data) != 4 || binary.BigEndian.Uint32(data) != 7 || st.EphemeralOwner != 0 {
			t.Fatalf("node: %x %+v %v", data, st, err)
		}
		if got, err := c2.Get(ctx); err != nil || got != first {
			t.Fatalf("the other session's Get (seed 99 unused): %+v %v", got, err)
		}

		written, ok, err := c2.TrySet(ctx, first, 8)
		if err != nil || !ok || written != (VersionedCount{Value: 8, Version: 1}) {
			t.Fatalf("TrySet 7→8: %+v %v %v", written, ok, err)
		}
		now, ok, err := c1.TrySet(ctx, first, 100) // first is stale
		if err != nil || ok || now != written {
			t.Fatalf("TrySet from a stale count: %+v %v %v, want not written and %+v", now, ok, err, written)
		}

		changed := make(chan VersionedCount, 1)
		go func() {
			v, err := c1.WaitChange(ctx, now)
			if err != nil {
				t.Error(err)
			}
			changed <- v
		}()
		waitWatched(t, connect, path, 1)
		set, err := c2.Set(ctx, -3)
		if err != nil || set.Value != -3 {
			t.Fatalf("Set: %+v %v", set, err)
		}
		if v := <-changed; v != set {
			t.Errorf("WaitChange: %+v, want %+v", v, set)
		}
		if v, err := c1.WaitChange(ctx, now); err != nil || v != set {
			t.Errorf("WaitChange from an old count: %+v %v, want %+v at once", v, err, set)
		}
	})
}

// TestSharedCountAdd: sessions adding at once lose no increment.
func TestSharedCountAdd(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		path := zktest.Path(t)
		ctx := testContext(t)
		const adders, adds = 4, 25
		var wg sync.WaitGroup
		for range adders {
			c := NewSharedCount(dialTest(t, connect), path, 0)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range adds {
					if _, err := c.Add(ctx, 1); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		got, err := NewSharedCount(dialTest(t, connect), path, 0).Get(ctx)
		if err != nil || got.Value != adders*adds || got.Version != adders*adds {
			t.Fatalf("after %d adds: %+v %v", adders*adds, got, err)
		}
	})
}

// TestSharedCountNotACount: a node holding anything but 4 bytes is
// refused, by name.
func TestSharedCountNotACount(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		path := zktest.Path(t)
		s := dialTest(t, connect)
		if _, err := s.Conn().Create(path, []byte("42"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		_, err := NewSharedCount(s, path, 0).Get(testContext(t))
		if !errors.Is(err, ErrNotCount) {
			t.Fatalf("Get of %q: %v, want ErrNotCount", "42", err)
		}
		t.Log(err)
	})
}
