package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestLongTableDrawsChainsAndHerds: waiters that each watch the one ahead
// are drawn as a chain; waiters with no node of their own, all watching
// the holder's node (a lock held as one ephemeral node), as a herd.
func TestLongTableDrawsChainsAndHerds(t *testing.T) {
	t.Parallel()
	chain := recognize.Lock{Path: "/app/locks/a", Recipe: "mutex", Format: "curator",
		Holders: []recognize.Contender{{Node: "_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000001", Session: "0x1"}},
		Waiters: []recognize.Contender{{Node: "_c_7c9e6679-7425-40de-944b-e07fc1f90ae7-lock-0000000002", Session: "0x2",
			WaitsFor: "_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-0000000001"}}}
	herd := recognize.Lock{Path: "/exclusive/lock", Recipe: "mutex", Format: "ephemeral-node",
		Holders: []recognize.Contender{{Node: "/exclusive/lock", Session: "0x10"}},
		Waiters: []recognize.Contender{{Session: "0x11", WaitsFor: "/exclusive/lock"}, {Session: "0x12", WaitsFor: "/exclusive/lock"}}}
	var out bytes.Buffer
	if err := writeLocks(&out, []recognize.Lock{chain, herd}, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"chain: lock-0000000001 ← lock-0000000002",
		"herd: lock ⇐ 0x11, 0x12 (all watch it: every release wakes every one)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
