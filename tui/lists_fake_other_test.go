package tui

import (
	"time"

	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The recipes of :recipes, and a Curator delay queue with an item in
// flight, as recognize makes them, for the list pages' goldens.

func fakeOtherRecipes(now time.Time) recognize.Result {
	ms := func(d time.Duration) *int64 { v := d.Milliseconds(); return &v }
	member := func(name, data string, session int64, age time.Duration) recognize.Contender {
		c := fakeContender(name, session, "10.0.2.1:4000", age, now)
		c.Data = data
		return c
	}
	stuck := recognize.Alarm{Kind: recognize.AlarmAllocationStuck, Text: "allocation stuck: the party last changed at 09:25:00 (worker-b joined), 5m0s ago, and item a (member worker-a, session 0x1000000000000f1) is still held under a lock taken before it"}
	holder := fakeContender("locks/a/9f1c2b3a4d5e6f708192a3b4c5d6e7f8__lock__0000000000", 0x1000000000000f1, "10.0.2.1:4000", 6*time.Minute, now)
	return recognize.Result{
		Groups: []recognize.Group{
			{Path: "/app/members", Format: "curator", Kind: recognize.GroupMember, Members: []recognize.Contender{
				member("api-1", "10.0.2.1", 0x1000000000000d1, time.Hour), member("api-2", "10.0.2.2", 0x1000000000000d2, time.Minute)}},
			{Path: "/app/party", Format: "kazoo", Kind: recognize.GroupParty, Members: []recognize.Contender{
				member("9f1c2b3a4d5e6f708192a3b4c5d6e7f8__party__", "p1", 0x1000000000000d3, time.Hour)}},
		},
		Partitions: []recognize.Partitioner{{Path: "/app/workers", Format: "kazoo", Stuck: true,
			Members: []recognize.PartitionMember{
				{Contender: member("party/9f1c2b3a4d5e6f708192a3b4c5d6e7f8-worker-a", "worker-a", 0x1000000000000f1, 10*time.Minute), Identifier: "worker-a", Items: []string{"a"}},
				{Contender: member("party/0123456789abcdef0123456789abcdef-worker-b", "worker-b", 0x1000000000000f2, 5*time.Minute), Identifier: "worker-b", Items: []string{}}},
			Items:   []recognize.PartitionItem{{Item: "a", Owner: "worker-a", Holder: &holder, Stale: true}, {Item: "b"}},
			Unowned: []string{"b"}, Idle: []string{"worker-b"}, PartyChanged: now.Add(-5 * time.Minute), PartyChangedMs: ms(5 * time.Minute),
			Warnings: []string{stuck.Text, "1 item owned by nobody: b; 1 member with no share: worker-b"}, Alarms: []recognize.Alarm{stuck}}},
		Leases: []recognize.Lease{
			{Path: "/app/cleanup", Format: "kazoo", Kind: recognize.LeaseSingle, Slots: []recognize.LeaseSlot{{Node: "lease_holder", Holder: "cleanup on web-1",
				End: "2026-03-14T09:27:00", Ends: now.Add(-3 * time.Minute), Expired: true, EndsInMs: ms(-3 * time.Minute), Version: 1}},
				Warnings: []string{"lease lease_holder of cleanup on web-1 expired 3m0s ago (end 2026-03-14T09:27:00 UTC by the holder's clock) and is still present"}},
			{Path: "/app/report", Format: "kazoo", Kind: recognize.LeaseSingle, Slots: []recognize.LeaseSlot{{Node: "lease_holder", Holder: "web-2",
				End: "2026-03-14T10:30:00", Ends: now.Add(time.Hour), EndsInMs: ms(time.Hour), Version: 1}}},
		},
		Counters: []recognize.Counter{{Path: "/app/seq", Format: "curator", Kind: recognize.CounterInt32, Value: "11", Version: 4,
			Writers: []string{"Curator SharedCount"}, Changed: now.Add(-time.Minute), ChangedMs: time.Minute.Milliseconds()}},
		TTLNodes: []recognize.TTLNode{{Path: "/app/alive", Format: "curator", Owner: recognize.TTLOwnerAlive, Touches: 9,
			TouchEveryMs: ms(2 * time.Second), TTLMs: ms(4 * time.Second), Touched: now.Add(-time.Second), TouchAgeMs: 1000}},
	}
}

// fakeDelayQueue is a Curator delay queue whose first item is in flight
// with a consumer gone, its second overdue and its third not due.
func fakeDelayQueue(now time.Time) recognize.Queue {
	gone := false
	consumer := fakeContender("queue-|19CEB1A8F40|0000000000", 0x1000000000000c1, "10.0.3.1:4100", time.Minute, now)
	consumer.Connected = &gone
	due := func(d time.Duration) *int64 { v := d.Milliseconds(); return &v }
	waited := due(12 * time.Minute)
	alarm := recognize.Alarm{Kind: recognize.AlarmItemStuck, Node: "queue-|19CEB1A8F40|0000000000",
		Text: "item queue-|19CEB1A8F40|0000000000 is stuck in flight: its consumer's session 0x1000000000000c1 has no live connection"}
	return recognize.Queue{Path: "/app/delayed", Format: "curator", Kind: recognize.QueueKindDelay, Length: 3, Due: 2, InFlight: 1,
		LockPath: "/app/delayed-lock", OldestAgeMs: due(20 * time.Minute), LongestWaitMs: waited, Oldest: now.Add(-20 * time.Minute),
		Items: []recognize.QueueItem{
			{Node: "queue-|19CEB1A8F40|0000000000", Data: "stuck", Created: now.Add(-20 * time.Minute), Due: now.Add(-14 * time.Minute), DueInMs: due(-14 * time.Minute), InFlight: true, Consumer: &consumer},
			{Node: "queue-|19CEB1B1E00|0000000001", Data: "next", Created: now.Add(-20 * time.Minute), Due: now.Add(-12 * time.Minute), DueInMs: due(-12 * time.Minute), WaitingMs: waited},
			{Node: "queue-|19CEB9A1E00|0000000002", Data: "later", Created: now.Add(-time.Minute), Due: now.Add(3 * time.Minute), DueInMs: due(3 * time.Minute)},
		},
		Warnings: []string{alarm.Text}, Alarms: []recognize.Alarm{alarm}}
}
