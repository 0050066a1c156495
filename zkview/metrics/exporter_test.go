package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zkx-dev/zkx/zkview/recognize"
)

func ms(v int64) *int64 { return &v }

// scene is a State with a lock with two holders (one silent), a calm
// lock, an election whose leader is heard from, a queue with an old item
// and a Kafka controller.
func scene(at time.Time) State {
	twoHolders := &recognize.Lock{Path: "/app/locks/orders", Recipe: "mutex",
		Holders: []recognize.Contender{
			{Node: "a", AgeMs: 90_000, HeldMs: ms(30_000), LastHeardMs: ms(200)},
			{Node: "b", AgeMs: 60_000, LastHeardMs: ms(25_000)},
		},
		Waiters: []recognize.Contender{{Node: "c"}},
		Alarms: []recognize.Alarm{
			{Kind: recognize.AlarmTwoHolders, Text: "two holders"},
			{Kind: recognize.AlarmSilent, Node: "b", Text: "b is silent"},
		}}
	calm := &recognize.Lock{Path: "/app/locks/calm", Recipe: "rwlock", Holders: []recognize.Contender{{Node: "r", AgeMs: 1000}}}
	election := &recognize.Election{Path: "/app/leader", Leader: &recognize.Contender{Node: "l", LastHeardMs: ms(1500)},
		Candidates: []recognize.Contender{{Node: "x"}, {Node: "y"}}}
	queue := &recognize.Queue{Path: "/app/jobs", Length: 1200, OldestAgeMs: ms(700_000),
		Alarms: []recognize.Alarm{{Kind: recognize.AlarmQueueStale, Node: "q1", Text: "stale"}}}
	empty := &recognize.Queue{Path: "/app/empty"}
	controller := &recognize.Election{Path: "/kafka/controller", Leader: &recognize.Contender{Node: "/kafka/controller"},
		SystemTag: recognize.SystemTag{System: "kafka", Role: "controller", SystemRoot: "/kafka"}}
	return State{At: at, Up: true, Refresh: 250 * time.Millisecond,
		Members: []Member{{Addr: "127.0.0.1:2181", Up: true}, {Addr: "127.0.0.1:2182", Up: false}},
		Recipes: []recognize.Recipe{calm, twoHolders, election, queue, empty, controller}}
}

const sceneMetrics = `
# HELP zkx_up 1 when the last refresh reached the ensemble and the model is current.
# TYPE zkx_up gauge
zkx_up 1
# HELP zkx_member_up 1 when the member answered within its deadline at the last read of the servers' tables and serves clients.
# TYPE zkx_member_up gauge
zkx_member_up{member="127.0.0.1:2181"} 1
zkx_member_up{member="127.0.0.1:2182"} 0
# HELP zkx_refresh_seconds How long the last refresh took.
# TYPE zkx_refresh_seconds gauge
zkx_refresh_seconds 0.25
# HELP zkx_recipe_alarm 1 while the alarm kind holds on the recipe at path; absent when it does not.
# TYPE zkx_recipe_alarm gauge
zkx_recipe_alarm{kind="queue-stale",path="/app/jobs",recipe="queue"} 1
zkx_recipe_alarm{kind="silent-holder",path="/app/locks/orders",recipe="mutex"} 1
zkx_recipe_alarm{kind="two-holders",path="/app/locks/orders",recipe="mutex"} 1
# HELP zkx_lock_holders Contenders that hold the lock for certain by their library's rule.
# TYPE zkx_lock_holders gauge
zkx_lock_holders{path="/app/locks/calm"} 1
zkx_lock_holders{path="/app/locks/orders"} 2
# HELP zkx_lock_waiters Contenders in line for the lock.
# TYPE zkx_lock_waiters gauge
zkx_lock_waiters{path="/app/locks/calm"} 0
zkx_lock_waiters{path="/app/locks/orders"} 1
# HELP zkx_lock_held_seconds How long the holder has held (the longest, with several); absent when zkx did not see it begin.
# TYPE zkx_lock_held_seconds gauge
zkx_lock_held_seconds{path="/app/locks/orders"} 30
# HELP zkx_lock_holder_age_seconds The age of the holder's node (the oldest, with several): an upper bound of how long it has held.
# TYPE zkx_lock_holder_age_seconds gauge
zkx_lock_holder_age_seconds{path="/app/locks/calm"} 1
zkx_lock_holder_age_seconds{path="/app/locks/orders"} 90
# HELP zkx_lock_holder_last_heard_seconds How long the holder's session had not been heard from by its server (the longest, with several); absent when the tables do not say.
# TYPE zkx_lock_holder_last_heard_seconds gauge
zkx_lock_holder_last_heard_seconds{path="/app/locks/orders"} 25
# HELP zkx_election_candidates Candidates in line, the leader not counted.
# TYPE zkx_election_candidates gauge
zkx_election_candidates{path="/app/leader"} 2
zkx_election_candidates{path="/kafka/controller"} 0
# HELP zkx_election_leader_last_heard_seconds How long the leader's session had not been heard from; absent when nobody leads or the tables do not say.
# TYPE zkx_election_leader_last_heard_seconds gauge
zkx_election_leader_last_heard_seconds{path="/app/leader"} 1.5
# HELP zkx_queue_items Items in the queue.
# TYPE zkx_queue_items gauge
zkx_queue_items{path="/app/empty"} 0
zkx_queue_items{path="/app/jobs"} 1200
# HELP zkx_queue_oldest_item_age_seconds The age of the oldest item's node; absent when the queue is empty.
# TYPE zkx_queue_oldest_item_age_seconds gauge
zkx_queue_oldest_item_age_seconds{path="/app/jobs"} 700
# HELP zkx_system_role_present 1 while the system recognised at root has its leader role held, 0 while it is vacant.
# TYPE zkx_system_role_present gauge
zkx_system_role_present{role="controller",root="/kafka",system="kafka"} 1
`

// contractNames are the metrics compared by the tests (zkx_build_info
// carries the Go version, zkx_recipes and the counters are checked apart).
var contractNames = []string{"zkx_up", "zkx_member_up", "zkx_refresh_seconds", "zkx_recipe_alarm", "zkx_lock_holders", "zkx_lock_waiters",
	"zkx_lock_held_seconds", "zkx_lock_holder_age_seconds", "zkx_lock_holder_last_heard_seconds", "zkx_election_candidates",
	"zkx_election_leader_last_heard_seconds", "zkx_queue_items", "zkx_queue_oldest_item_age_seconds", "zkx_system_role_present"}

func TestScrapeReadsThePublishedState(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	now := at
	e := New(Options{RefreshEvery: time.Second, Version: "v9.9.9-test", Now: func() time.Time { return now }})
	if err := testutil.GatherAndCompare(e.Registry(), strings.NewReader("# HELP zkx_up 1 when the last refresh reached the ensemble and the model is current.\n# TYPE zkx_up gauge\nzkx_up 0\n"), "zkx_up", "zkx_recipe_alarm"); err != nil {
		t.Errorf("before any refresh: %v", err)
	}
	e.Publish(scene(at))
	if err := testutil.GatherAndCompare(e.Registry(), strings.NewReader(sceneMetrics), contractNames...); err != nil {
		t.Error(err)
	}
	want := map[string]float64{"lock": 2, "election": 2, "queue": 2, "barrier": 0}
	for class, n := range want {
		if got := recipesGauge(t, e, class); got != n {
			t.Errorf("zkx_recipes{class=%q} = %v, want %v", class, got, n)
		}
	}
	if n, err := testutil.GatherAndCount(e.Registry(), "zkx_build_info"); err != nil || n != 1 {
		t.Errorf("zkx_build_info: %d series, %v", n, err)
	}

	// Three refresh intervals without a State: the model is not current.
	now = at.Add(4 * time.Second)
	if err := testutil.GatherAndCompare(e.Registry(), strings.NewReader("# HELP zkx_up 1 when the last refresh reached the ensemble and the model is current.\n# TYPE zkx_up gauge\nzkx_up 0\n"), "zkx_up"); err != nil {
		t.Errorf("a stale state: %v", err)
	}
}

// recipesGauge is zkx_recipes{class} as gathered; -1 when absent.
func recipesGauge(t *testing.T, e *Exporter, class string) float64 {
	t.Helper()
	families, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "zkx_recipes" {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() == class {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}

func TestAlarmClearsAndSessionLoss(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	e := New(Options{Now: func() time.Time { return at }})
	st := scene(at)
	e.Publish(st)
	healed := scene(at)
	healed.Recipes = healed.Recipes[:1] // the calm lock alone
	e.Publish(healed)
	if n, err := testutil.GatherAndCount(e.Registry(), "zkx_recipe_alarm"); err != nil || n != 1 {
		// The Kafka controller seen before and gone now is leaderless.
		t.Errorf("after the scene healed: %d alarm series, %v; want the vacant controller's alone", n, err)
	}
	if err := testutil.GatherAndCompare(e.Registry(), strings.NewReader(`
# HELP zkx_recipe_alarm 1 while the alarm kind holds on the recipe at path; absent when it does not.
# TYPE zkx_recipe_alarm gauge
zkx_recipe_alarm{kind="leaderless",path="/kafka/controller",recipe="election"} 1
# HELP zkx_system_role_present 1 while the system recognised at root has its leader role held, 0 while it is vacant.
# TYPE zkx_system_role_present gauge
zkx_system_role_present{role="controller",root="/kafka",system="kafka"} 0
`), "zkx_recipe_alarm", "zkx_system_role_present"); err != nil {
		t.Error(err)
	}
	lost := scene(at)
	lost.Up = false
	e.Publish(lost)
	if n, err := testutil.GatherAndCount(e.Registry(), "zkx_recipe_alarm"); err != nil || n != 0 {
		t.Errorf("without a session: %d alarm series, %v; want none (the model is not current)", n, err)
	}
	if err := testutil.GatherAndCompare(e.Registry(), strings.NewReader("# HELP zkx_up 1 when the last refresh reached the ensemble and the model is current.\n# TYPE zkx_up gauge\nzkx_up 0\n"), "zkx_up"); err != nil {
		t.Error(err)
	}
}

func TestCapKeepsAlarmsAndCountsDropsOnce(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	e := New(Options{MaxRecipes: 2, Now: func() time.Time { return at }})
	for range 3 {
		e.Publish(scene(at))
	}
	// Six recipes, two kept: the two with alarms (the lock, the queue).
	if n, _ := testutil.GatherAndCount(e.Registry(), "zkx_lock_holders"); n != 1 {
		t.Errorf("zkx_lock_holders: %d series, want the alarmed lock's alone", n)
	}
	if n, _ := testutil.GatherAndCount(e.Registry(), "zkx_recipe_alarm"); n != 3 {
		t.Errorf("zkx_recipe_alarm: %d series, want 3", n)
	}
	if got := testutil.ToFloat64(e.dropped); got != 4 {
		t.Errorf("zkx_recipes_dropped_total = %v after three refreshes leaving the same 4 out, want 4", got)
	}
	if got := recipesGauge(t, e, "lock"); got != 2 {
		t.Errorf("zkx_recipes{class=lock} = %v, want 2 (the dropped counted)", got)
	}
	e.RefreshFailed(ReasonSessionExpired)
	e.RefreshFailed("something new")
	if got := testutil.ToFloat64(e.refreshErrors.WithLabelValues(ReasonSessionExpired)); got != 1 {
		t.Errorf("session-expired errors %v", got)
	}
	if got := testutil.ToFloat64(e.refreshErrors.WithLabelValues(ReasonOther)); got != 1 {
		t.Errorf("other errors %v", got)
	}
	if n, _ := testutil.GatherAndCount(e.Registry(), "zkx_refresh_errors_total"); n != len(Reasons) {
		t.Errorf("zkx_refresh_errors_total: %d series, want one per reason from the start", n)
	}
}
