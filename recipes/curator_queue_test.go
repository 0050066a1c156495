package recipes

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/curatoritems"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

var curatorQueueItemName = regexp.MustCompile(`^queue-\d{10}$`)

// TestCuratorQueue: Put writes one persistent sequential "queue-SEQ" node
// per call holding its items as Curator's item set; Take returns a node's
// items in order, oldest node first; nodes of other shapes (a
// SimpleDistributedQueue's qn-, a delay queue's queue-|…|) are left alone.
func TestCuratorQueue(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t) + "/jobs"
		ctx := testContext(t)
		producer, consumer := dialTest(t, connect), dialTest(t, connect)
		q := NewCuratorQueue(producer, dir)
		puts := [][]string{{"one"}, {"two", "", "three"}, {}}
		for _, items := range puts {
			var raw [][]byte
			for _, it := range items {
				raw = append(raw, []byte(it))
			}
			name, err := q.Put(ctx, raw...)
			if err != nil {
				t.Fatal(err)
			}
			data, st, err := producer.Conn().Get(dir + "/" + name)
			if err != nil || !curatorQueueItemName.MatchString(name) || st.EphemeralOwner != 0 ||
				string(data) != string(curatoritems.Encode(raw)) {
				t.Fatalf("node %s: %x %+v %v", name, data, st, err)
			}
		}
		for _, foreign := range []string{"qn-", "queue-|18f3a2b4c5d|"} {
			if _, err := producer.Conn().Create(dir+"/"+foreign, curatoritems.Encode([][]byte{[]byte("not ours")}), zk.FlagSequence, worldACL()); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := q.Len(ctx); err != nil || n != len(puts) {
			t.Fatalf("Len: %d %v, want %d", n, err, len(puts))
		}
		c := NewCuratorQueue(consumer, dir)
		for _, want := range puts {
			items, err := c.Take(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, string(it))
			}
			if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Fatalf("Take: %q, want %q", got, want)
			}
		}
		if items, err := c.Poll(ctx); !errors.Is(err, ErrEmpty) {
			t.Fatalf("Poll after every node was taken: %q %v", items, err)
		}
		if left := children(t, consumer, dir); len(left) != 2 {
			t.Errorf("left in the queue: %v, want the two foreign nodes", left)
		}
	})
}

// TestCuratorQueueNotItemSet: a node that is not an item set is removed,
// as Curator's consumers remove it, and reported by name; the next is
// taken as usual.
func TestCuratorQueueNotItemSet(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		dir := zktest.Path(t)
		ctx := testContext(t)
		s := dialTest(t, connect)
		if _, err := s.Conn().Create(dir, nil, 0, worldACL()); err != nil {
			t.Fatal(err)
		}
		bad, err := s.Conn().Create(dir+"/queue-", []byte("plain text"), zk.FlagSequence, worldACL())
		if err != nil {
			t.Fatal(err)
		}
		q := NewCuratorQueue(s, dir)
		if _, err := q.Put(ctx, []byte("good")); err != nil {
			t.Fatal(err)
		}
		_, err = q.Take(ctx)
		if !errors.Is(err, ErrNotItemSet) || !strings.Contains(err.Error(), bad[strings.LastIndexByte(bad, '/')+1:]) {
			t.Fatalf("Take of %s: %v, want ErrNotItemSet naming it", bad, err)
		}
		if ok, _, _ := s.Conn().Exists(bad); ok {
			t.Errorf("%s left in the queue", bad)
		}
		items, err := q.Take(ctx)
		if err != nil || len(items) != 1 || string(items[0]) != "good" {
			t.Fatalf("Take after it: %q %v", items, err)
		}
	})
}
