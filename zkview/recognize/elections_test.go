package recognize

import (
	"fmt"
	"testing"
)

func curLatch(seq int32) string { return fmt.Sprintf("_c_%s-latch-%010d", testUUID, seq) }

func recAsElection(t *testing.T, v Recipe) *Election {
	t.Helper()
	e, ok := v.(*Election)
	if !ok {
		t.Fatalf("recognised %T %+v, want an *Election", v, v)
	}
	return e
}

func TestRecognizeElections(t *testing.T) {
	t.Parallel()
	t.Run("curator LeaderLatch", func(t *testing.T) {
		f := newRecFake().
			add("/e/"+curLatch(2), "", ephemeralOf(2)).
			add("/e/"+curLatch(1), "", ephemeralOf(1)).
			add("/e/"+curLatch(3), "", ephemeralOf(3))
		tables := fixedTables{
			connected: map[int64]bool{1: false},
			watches:   map[int64]map[string]bool{2: {"/e/" + curLatch(1): true}, 3: {}},
		}
		e := recAsElection(t, recognizeT(t, f, "/e", Options{Tables: tables}))
		if e.Format != "curator" || e.Path != "/e" || e.Leader == nil || e.Leader.Node != curLatch(1) || e.Leader.Session != "0x1" {
			t.Fatalf("election %+v leader %+v", e, e.Leader)
		}
		recWantNodes(t, "candidates", e.Candidates, curLatch(2)+">"+curLatch(1), curLatch(3)+">"+curLatch(2))
		if e.Candidates[0].Watch != "observed" || e.Candidates[1].Watch != "inferred" {
			t.Errorf("watches %q %q", e.Candidates[0].Watch, e.Candidates[1].Watch)
		}
		recWantWarnings(t, e.Warnings,
			"leader session 0x1 has no live connection",
			"waiter session 0x3 ("+curLatch(3)+") has no watch on "+curLatch(2))
	})
	t.Run("zkx Election", func(t *testing.T) {
		f := newRecFake().add("/e/"+curLatch(0), "web-1 10", ephemeralOf(1))
		e := recAsElection(t, recognizeT(t, f, "/e", Options{}))
		if e.Format != "zkx" || e.Leader == nil || e.Leader.Data != "web-1 10" || len(e.Candidates) != 0 || e.Candidates == nil {
			t.Errorf("election %+v", e)
		}
	})
	t.Run("zookeeper LeaderElectionSupport", func(t *testing.T) {
		f := newRecFake().
			add("/e/n_0000000010", "host-a", ephemeralOf(1)).
			add("/e/n_0000000009", "host-b", ephemeralOf(2)).
			add("/e/n_0000000011", "host-c", ephemeralOf(2))
		e := recAsElection(t, recognizeT(t, f, "/e", Options{}))
		if e.Format != "zookeeper-recipes" || e.Leader == nil || e.Leader.Node != "n_0000000009" || e.Leader.Data != "host-b" {
			t.Errorf("election %+v leader %+v", e, e.Leader)
		}
		recWantNodes(t, "candidates", e.Candidates, "n_0000000010>n_0000000009", "n_0000000011>n_0000000010")
		recWantWarnings(t, e.Warnings, "session 0x2 owns 2 nodes here (n_0000000009, n_0000000011)")
	})
	t.Run("leaders are not held too long", func(t *testing.T) {
		f := newRecFake().add("/e/"+curLatch(0), "", ephemeralOf(1))
		e := recAsElection(t, recognizeT(t, f, "/e", Options{Now: recEpoch.AddDate(1, 0, 0)}))
		recWantWarnings(t, e.Warnings)
	})
}
