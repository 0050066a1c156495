package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/zkview/forensics"
)

// TestNeverHeld: a contender that queued and went without holding — its
// node deleted, or removed with its session — is on the timeline; one that
// held is not told twice; a grandchild is no contender.
func TestNeverHeld(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1_800_000_000_000)
	lock := "/app/lock"
	txns := []forensics.Transaction{
		{Zxid: 1, Time: at, Session: 1, Type: "create", Path: lock + "/lock-0000000000"},
		{Zxid: 2, Time: at, Session: 2, Type: "create", Path: lock + "/lock-0000000001"},
		{Zxid: 3, Time: at, Session: 3, Type: "multi", Ops: []forensics.Transaction{{Type: "create", Path: lock + "/lock-0000000002"}}},
		{Zxid: 4, Time: at, Session: 2, Type: "delete", Path: lock + "/lock-0000000001"},
		{Zxid: 5, Time: at, Session: 3, Type: "closeSession", Removed: []string{lock + "/lock-0000000002"}},
		{Zxid: 6, Time: at, Session: 4, Type: "create", Path: lock + "/lock-0000000000/deeper"},
	}
	h := forensics.History{Path: lock, Recipe: "mutex", Holdings: []forensics.Holding{{Node: "lock-0000000000", Session: "0x1"}}}
	rows := neverHeld(h, map[string]bool{"lock-0000000000": true}, txns, nil, func(*forensics.Who) string { return "" })
	var got []string
	for _, r := range rows {
		got = append(got, r.what)
	}
	want := []string{
		"queues for `/app/lock` (`lock-0000000001`), never to hold",
		"queues for `/app/lock` (`lock-0000000002`), never to hold",
		"gives up on `/app/lock` (deletes `lock-0000000001`)",
		"**its session ends while it waits** for `/app/lock` (`lock-0000000002`)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
