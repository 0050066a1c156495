package alarms

import (
	"testing"

	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

func TestOfGathersRecipesThenMembers(t *testing.T) {
	recipes := []recognize.Recipe{
		&recognize.Queue{Path: "/q", Alarms: []recognize.Alarm{{Kind: recognize.AlarmQueueStale, Node: "qn-01", Text: "stale"}}},
		&recognize.Lock{Path: "/a/lock", Recipe: "mutex", Alarms: []recognize.Alarm{{Kind: recognize.AlarmTwoHolders, Text: "two"}}},
		&recognize.Lock{Path: "/b", Recipe: "rwlock"},
		&recognize.Election{Path: "/e", Alarms: []recognize.Alarm{{Kind: recognize.AlarmLeaderSilent, Node: "n_1", Text: "quiet"}}},
	}
	notes := []introspect.MemberNote{
		{Member: "127.0.0.1:2181", Kind: introspect.NoteBehind, Text: "behind"},
		{Member: "127.0.0.1:2182", Kind: introspect.NoteNoAnswer, Text: "member 127.0.0.1:2182: no answer"},
	}
	got := Of(recipes, notes)
	want := []Alarm{
		{Kind: recognize.AlarmTwoHolders, Path: "/a/lock", Recipe: "mutex", Text: "two"},
		{Kind: recognize.AlarmLeaderSilent, Path: "/e", Recipe: "election", Node: "n_1", Text: "quiet"},
		{Kind: recognize.AlarmQueueStale, Path: "/q", Recipe: "queue", Node: "qn-01", Text: "stale"},
		{Kind: KindMemberDown, Member: "127.0.0.1:2182", Text: "member 127.0.0.1:2182: no answer"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("alarm %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[3].Subject() != "127.0.0.1:2182" || got[0].Subject() != "/a/lock" {
		t.Errorf("subjects %q, %q", got[3].Subject(), got[0].Subject())
	}
}
