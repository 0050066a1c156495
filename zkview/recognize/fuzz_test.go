package recognize

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzRecognizeDir feeds the recognisers a directory of arbitrary child
// names (one per line, each ephemeral of its own session, with arbitrary
// data): nothing panics, and everything a recogniser reports names a
// child that exists, in queue order without repeats.
//
//	go test ./zkview/recognize -run '^$' -fuzz '^FuzzRecognizeDir$' -fuzztime 60s
func FuzzRecognizeDir(f *testing.F) {
	for _, seed := range []string{
		"_c_3f2a6b1e-5c4d-4e8f-9a0b-1c2d3e4f5a6b-lock-0000000003\n_c_3f2a6b1e-5c4d-4e8f-9a0b-1c2d3e4f5a6c-lock-0000000004",
		"2d934f0444d499e6ebaba68ffdba2549__lock__0000000000\n2d934f0444d499e6ebaba68ffdba2549__rlock__0000000001",
		"_c_3f2a6b1e-5c4d-4e8f-9a0b-1c2d3e4f5a6b-__READ__0000000001\n_c_3f2a6b1e-5c4d-4e8f-9a0b-1c2d3e4f5a6b-__WRIT__0000000002",
		"queue-0000000001\nqueue-1FFFFFFFF0000000002\nqn-0000000007\nentry-001-0000000003",
		"leases\nlocks",
		"x-72057594037927936-0000000001\nn_0000000002\nlock--2147483648\nlock-2147483647",
		"ready\n3f2a6b1e-5c4d-4e8f-9a0b-1c2d3e4f5a6b",
		"\x00\n\xff\n-0000000001\n0000000001",
		// groups, a partitioner, leases, a TTL node
		"0",
		"api-1\napi-2",
		"9f1c2b3a4d5e6f708192a3b4c5d6e7f8__party__\n0123456789abcdef0123456789abcdef-worker-b",
		"party\nlocks",
		"lease_holder\n2d934f0444d499e6ebaba68ffdba2549__lock__0000000000",
		"0\n1\n2",
		"touch",
	} {
		f.Add(seed, "10.0.0.5")
	}
	f.Fuzz(func(t *testing.T, names, data string) {
		fake := newRecFake()
		fake.add("/d", "")
		children := map[string]bool{}
		for i, name := range strings.Split(names, "\n") {
			if name == "" || strings.Contains(name, "/") || len(children) >= 50 {
				continue
			}
			children[name] = true
			fake.add("/d/"+name, data, ephemeralOf(int64(i+1)), createdAt(recEpoch.Add(time.Duration(i)*time.Second)))
		}
		got, err := Dir(context.Background(), fake, "/d", Options{Now: recEpoch.Add(time.Hour)})
		if err != nil {
			return // e.g. a component pointing at a directory the fake lacks
		}
		exists := func(node string) bool {
			if node == "" {
				return true
			}
			p := ContenderPath("/d", node)
			fake.mu.Lock()
			defer fake.mu.Unlock()
			_, ok := fake.nodes[p]
			return ok
		}
		check := func(what string, cs []Contender) {
			seen := map[string]bool{}
			for _, c := range cs {
				// A double barrier's participants wait for "ready" to
				// appear: the one node waited for that may not exist.
				waitsOK := exists(c.WaitsFor) || what == "barrier" && c.WaitsFor == "ready"
				if !exists(c.Node) || !waitsOK {
					t.Fatalf("%s names a node that is not there: %+v (children %q)", what, c, names)
				}
				if seen[c.Node] {
					t.Fatalf("%s lists %s twice", what, c.Node)
				}
				seen[c.Node] = true
			}
		}
		switch r := got.(type) {
		case *Lock:
			check("lock", append(append([]Contender{}, r.Holders...), r.Waiters...))
		case *Election:
			check("election", r.Candidates)
			if r.Leader != nil && !exists(r.Leader.Node) {
				t.Fatalf("leader %s is not there", r.Leader.Node)
			}
		case *Queue:
			for _, it := range r.Items {
				if !exists(it.Node) {
					t.Fatalf("queue item %s is not there", it.Node)
				}
			}
			if r.Length < len(r.Items) {
				t.Fatalf("length %d < %d items", r.Length, len(r.Items))
			}
		case *Barrier:
			check("barrier", r.Participants)
		case *Group:
			check("group", r.Members)
		case *Partitioner:
			for _, m := range r.Members {
				check("partitioner", []Contender{m.Contender})
			}
		case *Lease:
			for _, sl := range r.Slots {
				if sl.Holder != "" && !exists(sl.Node) {
					t.Fatalf("lease record %s is not there", sl.Node)
				}
			}
		case *Counter, *TTLNode:
		case nil:
		default:
			t.Fatalf("Dir returned a %T", got)
		}
		_ = fmt.Sprint(got) // every result prints
	})
}
