package recognize

import (
	"fmt"
	"strings"
	"testing"
)

func recAsQueue(t *testing.T, v Recipe) *Queue {
	t.Helper()
	q, ok := v.(*Queue)
	if !ok {
		t.Fatalf("recognised %T %+v, want a *Queue", v, v)
	}
	return q
}

// recItems lists items as "node=data" with "[p]" for a priority and "*" when
// taken.
func recItems(items []QueueItem) []string {
	out := []string{}
	for _, it := range items {
		s := it.Node + "=" + it.Data
		if it.Priority != nil {
			s += fmt.Sprintf("[%d]", *it.Priority)
		}
		if it.Taken {
			s += "*"
		}
		out = append(out, s)
	}
	return out
}

// recCuratorItems is Curator's ItemSerializer format of some string items.
func recCuratorItems(items ...string) string {
	var b strings.Builder
	b.WriteString("\x00\x01\x00\x01")
	for _, it := range items {
		b.WriteByte(1)
		b.WriteString(string([]byte{0, 0, byte(len(it) >> 8), byte(len(it))}))
		b.WriteString(it)
	}
	b.WriteByte(2)
	return b.String()
}

func TestRecognizeQueues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		nodes  map[string]string
		format string
		items  []string
		warn   []string
	}{
		{"curator DistributedQueue", map[string]string{
			"queue-0000000002": recCuratorItems("second"),
			"queue-0000000001": recCuratorItems("first"),
			"queue-0000000010": recCuratorItems("a", "b"),
		}, "curator", []string{"queue-0000000001=first", "queue-0000000002=second", "queue-0000000010=[2 items] a | b"}, nil},
		{"curator DistributedPriorityQueue", map[string]string{
			"queue-1000000050000000000": "five",
			"queue-0FFFFFFFF0000000001": "minus one",
			"queue-1000000000000000002": "zero",
		}, "curator", []string{"queue-0FFFFFFFF0000000001=minus one[-1]", "queue-1000000000000000002=zero[0]", "queue-1000000050000000000=five[5]"}, nil},
		{"kazoo Queue", map[string]string{
			"entry-100-0000000000": "normal",
			"entry-001-0000000003": "urgent",
			"entry-100-0000000002": "normal 2",
		}, "kazoo", []string{"entry-001-0000000003=urgent[1]", "entry-100-0000000000=normal[100]", "entry-100-0000000002=normal 2[100]"}, nil},
		{"zookeeper DistributedQueue", map[string]string{
			"qn-0000000001": "b",
			"qn-0000000000": "a",
			"qn-0000000002": "\x00\x01binar",
			"stray":         "",
		}, "zookeeper-recipes", []string{"qn-0000000000=a", "qn-0000000001=b", "qn-0000000002=<7 bytes binary>"}, []string{"foreign child stray: not of the zookeeper-recipes queue layout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newRecFake()
			for name, data := range tt.nodes {
				f.add("/q/"+name, data)
			}
			q := recAsQueue(t, recognizeT(t, f, "/q", Options{}))
			if q.Format != tt.format || q.Path != "/q" || q.Length != len(tt.items) {
				t.Errorf("queue %s %s length %d", q.Format, q.Path, q.Length)
			}
			if got := recItems(q.Items); !recEqual(got, tt.items) {
				t.Errorf("items\n got %q\nwant %q", got, tt.items)
			}
			recWantWarnings(t, q.Warnings, tt.warn...)
		})
	}
}

func TestRecognizeLockingQueue(t *testing.T) {
	t.Parallel()
	f := newRecFake().
		add("/lq/entries/entry-100-0000000000", "first").
		add("/lq/entries/entry-100-0000000001", "second").
		add("/lq/entries/entry-005-0000000002", "urgent").
		add("/lq/taken/entry-005-0000000002", "consumer-1", ephemeralOf(9)).
		add("/lq/taken/entry-100-0000000007", "consumer-2", ephemeralOf(8))
	tables := fixedTables{connected: map[int64]bool{9: false, 8: true}}
	for _, p := range []string{"/lq", "/lq/entries", "/lq/taken"} {
		q := recAsQueue(t, recognizeT(t, f, p, Options{Tables: tables}))
		if q.Path != "/lq" || q.Format != "kazoo" || q.Length != 3 {
			t.Errorf("RecognizeDir(%s): %s %s length %d", p, q.Path, q.Format, q.Length)
		}
		want := []string{"entries/entry-005-0000000002=urgent[5]*", "entries/entry-100-0000000000=first[100]", "entries/entry-100-0000000001=second[100]"}
		if got := recItems(q.Items); !recEqual(got, want) {
			t.Errorf("items\n got %q\nwant %q", got, want)
		}
		recWantWarnings(t, q.Warnings,
			"taken/entry-100-0000000007 marks no item",
			"item entries/entry-005-0000000002 is stuck in flight: its consumer's session 0x9 has no live connection")
	}
}

func TestRecognizeLongQueue(t *testing.T) {
	t.Parallel()
	f := newRecFake()
	for i := 0; i < recQueueItems+5; i++ {
		f.add(fmt.Sprintf("/q/qn-%010d", i), fmt.Sprint(i))
	}
	q := recAsQueue(t, recognizeT(t, f, "/q", Options{}))
	if q.Length != recQueueItems+5 || len(q.Items) != recQueueItems || q.Items[recQueueItems-1].Data != fmt.Sprint(recQueueItems-1) {
		t.Errorf("long queue: length %d, %d items", q.Length, len(q.Items))
	}
	recWantWarnings(t, q.Warnings, fmt.Sprintf("showing the first %d of %d items", recQueueItems, recQueueItems+5))
}
