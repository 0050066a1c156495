package recognize

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// modifiedAt sets the node's mtime.
func modifiedAt(t time.Time) fakeNodeOption {
	return func(n *fakeNode) { n.stat.Mtime = t.UnixMilli() }
}

// TestRevokeRequestedFlagged: a lock node whose data is Curator's
// __REVOKE__ is flagged with when it was written, whatever the lock; other
// data is not.
func TestRevokeRequestedFlagged(t *testing.T) {
	t.Parallel()
	const dir = "/app/locks/orders"
	asked := recEpoch.Add(10 * time.Minute)
	now := asked.Add(40 * time.Second)
	f := newRecFake().
		add(dir+"/"+curLock(3), RevokeMarker, ephemeralOf(0x101), createdAt(recEpoch), modifiedAt(asked)).
		add(dir+"/"+curLock(4), "", ephemeralOf(0x102), createdAt(recEpoch.Add(time.Minute)), modifiedAt(recEpoch.Add(time.Minute)))
	l := recAsLock(t, recognizeT(t, f, dir, Options{Now: now, HeldTooLong: time.Hour}))
	h, w := l.Holders[0], l.Waiters[0]
	if h.RevokeRequestedMs == nil || *h.RevokeRequestedMs != 40_000 || !h.RevokeRequested.Equal(asked) {
		t.Fatalf("holder carrying __REVOKE__: %+v", h)
	}
	if w.RevokeRequestedMs != nil || !w.RevokeRequested.IsZero() || w.RevokeNote(now) != "" {
		t.Errorf("waiter with empty data flagged: %+v", w)
	}
	recWantWarnings(t, l.Warnings, "revocation requested at "+asked.Format("15:04:05")+" (40s ago) of session 0x101 ("+curLock(3)+"): its data is Curator's __REVOKE__")
	if got, want := h.RevokeNote(now), "asked 40s ago at "+asked.Format("15:04:05")+", still held"; got != want {
		t.Errorf("RevokeNote = %q, want %q", got, want)
	}
}

// TestRevocable: only a Curator InterProcessMutex or read-write lock
// holder made revocable (its node empty; with the tables, watching it) is
// asked; the others are refused with the reason.
func TestRevocable(t *testing.T) {
	t.Parallel()
	const dir = "/app/locks/r"
	lockOf := func(f *fakeTree, tables ServerTables) *Lock {
		return recAsLock(t, recognizeT(t, f, dir, Options{Tables: tables, HeldTooLong: time.Hour}))
	}
	holderPath := dir + "/" + curLock(0)
	for _, tc := range []struct {
		name    string
		tree    *fakeTree
		tables  ServerTables
		refused string // "" when revocable
		says    string // in the evidence
	}{
		{name: "curator, empty, no tables", tree: newRecFake().add(holderPath, "", ephemeralOf(0x1)),
			says: "whether it watches the node is not known"},
		{name: "curator, empty, watching its node", tree: newRecFake().add(holderPath, "", ephemeralOf(0x1)),
			tables: fixedTables{watches: map[int64]map[string]bool{0x1: {holderPath: true}}}, says: "its session watches it"},
		{name: "curator, asked already", tree: newRecFake().add(holderPath, RevokeMarker, ephemeralOf(0x1), modifiedAt(recEpoch.Add(-time.Minute))),
			says: "asked already 1m00s ago, and it still holds"},
		{name: "curator, empty, not watching", tree: newRecFake().add(holderPath, "", ephemeralOf(0x1)),
			tables: fixedTables{watches: map[int64]map[string]bool{0x1: {}}}, refused: "has no watch on its own node"},
		{name: "curator, not made revocable", tree: newRecFake().add(holderPath, "10.0.0.5", ephemeralOf(0x1)),
			refused: `holds "10.0.0.5": a Curator lock made revocable writes its node empty`},
		{name: "curator read lock", tree: newRecFake().add(dir+"/"+curRead(0), "", ephemeralOf(0x1)), says: "its node is empty"},
		{name: "kazoo", tree: newRecFake().add(dir+"/"+kzLock(0), "", ephemeralOf(0x1)), refused: "Kazoo has no revocation"},
		{name: "zkx", tree: newRecFake().add(holderPath, "host-1 4242", ephemeralOf(0x1)), refused: "zkx's recipes do not listen"},
		{name: "semaphore", tree: newRecFake().add(dir+"/leases/"+curLease(0), "", ephemeralOf(0x1)).add(dir+"/locks", ""),
			refused: "is a semaphore"},
	} {
		l := lockOf(tc.tree, tc.tables)
		if len(l.Holders) != 1 {
			t.Fatalf("%s: holders %+v", tc.name, l.Holders)
		}
		evidence, err := l.Revocable(l.Holders[0], tc.tables)
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refused == "" && !strings.Contains(evidence, tc.says):
			t.Errorf("%s: evidence %q, want %q in it", tc.name, evidence, tc.says)
		case tc.refused != "" && (!errors.As(err, new(*NotRevocableError)) || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("%s: %q %v, want a refusal with %q", tc.name, evidence, err, tc.refused)
		}
	}
}
