package zktest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
)

// The protected-create ids of LockDirs' holders and waiters (Curator writes
// a random UUID per client; two fixed ones keep the names predictable).
const (
	lockDirsHolderID = "0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11"
	lockDirsWaiterID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
)

// lockDirsBatch is how many lock directories one multi creates.
const lockDirsBatch = 100

// LockDirs creates base and n Curator-layout lock directories under it,
// "<base>/lock-dir-NNNN", each with a holder ("_c_<uuid>-lock-SEQ", data
// 10.0.0.1) on one session and a waiter (data 10.0.0.2) on another, as
// many clients queueing on many locks would leave them; creates are
// batched in multis. The two sessions stay open until tb ends; then
// everything created is deleted, so LockDirs may be pointed at a server
// that is not the test's own (benchmarks against $ZK_SERVERS).
func LockDirs(tb testing.TB, connect string, base string, n int) {
	tb.Helper()
	cleaner := Conn(tb, connect)
	holder, waiter := Conn(tb, connect), Conn(tb, connect)
	acl := zk.WorldACL(zk.PermAll)
	if _, err := holder.Create(base, nil, zk.FlagPersistent, acl); err != nil {
		tb.Fatalf("zktest: create %s: %v", base, err)
	}
	var created []string // deepest last
	// Registered after the connections, so it runs before they close.
	tb.Cleanup(func() {
		for to := len(created); to > 0; to -= lockDirsBatch {
			var ops []any
			for i := to - 1; i >= max(to-lockDirsBatch, 0); i-- {
				ops = append(ops, &zk.DeleteRequest{Path: created[i], Version: -1})
			}
			if _, err := cleaner.Multi(ops...); err == nil {
				continue
			}
			// Some node went already (a session expired): one at a time.
			for _, op := range ops {
				p := op.(*zk.DeleteRequest).Path
				if err := cleaner.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
					tb.Errorf("zktest: clean up %s: %v", p, err)
					return
				}
			}
		}
		if err := cleaner.Delete(base, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			tb.Errorf("zktest: delete %s: %v", base, err)
		}
	})
	for from := 0; from < n; from += lockDirsBatch {
		var dirs, waiters []any
		for i := from; i < min(from+lockDirsBatch, n); i++ {
			dir := fmt.Sprintf("%s/lock-dir-%04d", base, i)
			dirs = append(dirs,
				&zk.CreateRequest{Path: dir, Acl: acl},
				&zk.CreateRequest{Path: dir + "/_c_" + lockDirsHolderID + "-lock-", Data: []byte("10.0.0.1"), Acl: acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
			waiters = append(waiters,
				&zk.CreateRequest{Path: dir + "/_c_" + lockDirsWaiterID + "-lock-", Data: []byte("10.0.0.2"), Acl: acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
		}
		res, err := holder.Multi(dirs...)
		if err != nil {
			tb.Fatalf("zktest: create lock directories under %s: %v", base, err)
		}
		for _, r := range res {
			created = append(created, r.String)
		}
		res, err = waiter.Multi(waiters...)
		if err != nil {
			tb.Fatalf("zktest: create waiters under %s: %v", base, err)
		}
		for _, r := range res {
			created = append(created, r.String)
		}
	}
}
