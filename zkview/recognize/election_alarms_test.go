package recognize

import (
	"testing"
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// TestElectionLeaderAlarms: a LeaderLatch whose leader is silent is a
// leader-silent alarm on the leader's node; one whose leader has no
// connection too; a live leader none.
func TestElectionLeaderAlarms(t *testing.T) {
	const dir = "/e"
	now := recEpoch.Add(time.Hour)
	f := newRecFake().
		add(dir+"/"+curLatch(1), "", ephemeralOf(1)).
		add(dir+"/"+curLatch(2), "", ephemeralOf(2))
	heard := map[int64]zkview.Liveness{
		1: {Heard: now.Add(-25 * time.Second), Timeout: 30 * time.Second},
		2: {Heard: now.Add(-time.Second), Timeout: 30 * time.Second},
	}
	for _, tc := range []struct {
		name      string
		connected map[int64]bool
		heard1    time.Duration
		want      int
	}{
		{"silent", map[int64]bool{1: true, 2: true}, 25 * time.Second, 1},
		{"gone", map[int64]bool{1: false, 2: true}, time.Second, 1},
		{"live", map[int64]bool{1: true, 2: true}, time.Second, 0},
	} {
		heard[1] = zkview.Liveness{Heard: now.Add(-tc.heard1), Timeout: 30 * time.Second}
		tables := fixedTables{connected: tc.connected, heard: heard}
		v := recognizeT(t, f, dir, Options{Now: now, Tables: tables})
		e, ok := v.(*Election)
		if !ok {
			t.Fatalf("%s: recognised %T, want an election", tc.name, v)
		}
		if len(e.Alarms) != tc.want {
			t.Errorf("%s: alarms %+v, want %d", tc.name, e.Alarms, tc.want)
			continue
		}
		if tc.want == 1 && (e.Alarms[0].Kind != AlarmLeaderSilent || e.Alarms[0].Node != curLatch(1) || e.Alarms[0].Text == "") {
			t.Errorf("%s: alarm %+v, want leader-silent on %s", tc.name, e.Alarms[0], curLatch(1))
		}
		if got := AlarmsOf(e); len(got) != tc.want {
			t.Errorf("%s: AlarmsOf gives %d alarms, want %d", tc.name, len(got), tc.want)
		}
	}
}

// TestLeaderlessAlarm: candidates with nobody leading is leaderless.
func TestLeaderlessAlarm(t *testing.T) {
	b := newRecognizer(nil, Options{Now: recEpoch}).build("/e")
	e := &Election{Path: "/e", Candidates: []Contender{{Node: "n_0000000002"}}}
	alarms := b.leaderAlarms(e)
	if len(alarms) != 1 || alarms[0].Kind != AlarmLeaderless || len(b.warn) != 1 || b.warn[0] != alarms[0].Text {
		t.Errorf("alarms %+v, warnings %q: want one leaderless, said in the warnings", alarms, b.warn)
	}
	if got := b.leaderAlarms(&Election{Path: "/e"}); len(got) != 0 {
		t.Errorf("an empty election: alarms %+v, want none", got)
	}
}
