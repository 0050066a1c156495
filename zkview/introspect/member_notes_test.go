package introspect

import (
	"testing"
)

// TestMemberNotesBehind: the member zkx read through is named, with how
// far it was behind the freshest member, only when that is more than a
// little; and only that member.
func TestMemberNotesBehind(t *testing.T) {
	t.Parallel()
	snap := func(read, freshest int64) *Snapshot {
		return &Snapshot{Members: []Member{
			{Addr: "zk1:2181", Mode: ModeLeader, Stats: &ServerStats{Mode: ModeLeader, Zxid: freshest}},
			{Addr: "zk2:2181", Mode: ModeFollower, Stats: &ServerStats{Mode: ModeFollower, Zxid: read}},
			{Addr: "zk3:2181", Mode: ModeFollower, Stats: &ServerStats{Mode: ModeFollower, Zxid: freshest - 5}},
		}}
	}
	const epoch = int64(3) << 32
	for _, tc := range []struct {
		name           string
		read, freshest int64
		synced         bool
		want           string
	}{
		{"a few transactions", epoch + 995, epoch + 1000, false, ""},
		{"the threshold", epoch + 1000, epoch + 2000, false, ""},
		{"well behind", epoch + 10, epoch + 4521, true,
			"member zk2:2181, which zkx read through, was 4511 transactions behind zk1:2181 (zxid 0x30000000a against 0x3000011a9) when the members were asked; zkx had it sync with the leader first, so what it read is at least as new as the leader's commits then"},
		{"a term behind", epoch - 1, epoch + 20, false,
			"member zk2:2181, which zkx read through, was a leader's term behind zk1:2181 (zxid 0x2ffffffff against 0x300000014) when the members were asked; what zkx read through it may be that much older"},
	} {
		notes := snap(tc.read, tc.freshest).MemberNotes(ReadThrough{Member: "zk2:2181", Synced: tc.synced})
		switch {
		case tc.want == "" && len(notes) != 0:
			t.Errorf("%s: notes %+v, want none", tc.name, notes)
		case tc.want != "" && (len(notes) != 1 || notes[0].Text != tc.want || notes[0].Kind != NoteBehind || notes[0].Member != "zk2:2181"):
			t.Errorf("%s: notes %+v\nwant %q", tc.name, notes, tc.want)
		}
	}
	if notes := snap(epoch+10, epoch+4521).MemberNotes(ReadThrough{Member: "zk1:2181"}); len(notes) != 0 {
		t.Errorf("read through the freshest member: %+v", notes)
	}
	if notes := snap(epoch+10, epoch+4521).MemberNotes(ReadThrough{}); len(notes) != 0 {
		t.Errorf("no tree read: %+v", notes)
	}
}
