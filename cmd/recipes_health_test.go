package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// goneClient is a session whose connection, once the server drops it,
// never comes back: the process is gone, its session not yet expired.
func goneClient(t *testing.T, connect string) *zk.Conn {
	t.Helper()
	var dialed atomic.Bool
	c, events, err := zk.Connect([]string{connect}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quietLog{}),
		zk.WithDialer(func(network, addr string, timeout time.Duration) (net.Conn, error) {
			if dialed.Swap(true) {
				return nil, errors.New("this client is gone")
			}
			return net.DialTimeout(network, addr, timeout)
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for ev := range events {
		if ev.State == zk.StateHasSession {
			break
		}
	}
	go func() {
		for range events {
		}
	}()
	return c
}

// delayItem is a Curator DistributedDelayQueue item's name.
func delayItem(due time.Time, seq int) string {
	return fmt.Sprintf("queue-|%08X|%010d", due.UnixMilli(), seq)
}

// staleQueue makes a path of the test's hold a Curator delay queue, jobs,
// whose one item has been due for 20 minutes, and returns the path.
func staleQueue(t *testing.T, connect string) string {
	t.Helper()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	acl := zk.WorldACL(zk.PermAll)
	for _, p := range []string{base, base + "/jobs"} {
		create(t, admin, p, nil, 0, acl)
	}
	create(t, admin, base+"/jobs/"+delayItem(time.Now().Add(-20*time.Minute), 0), []byte("a"), 0, acl)
	return base
}

// TestQueuesCheck: a Curator delay queue with guaranteed delivery, whose
// first item has been due for 20 minutes and whose second is in flight
// with a consumer gone, beside a queue whose items are not due yet.
func TestQueuesCheck(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	acl := zk.WorldACL(zk.PermAll)
	now := time.Now()
	for _, p := range []string{base, base + "/jobs", base + "/jobs-lock", base + "/later"} {
		create(t, admin, p, nil, 0, acl)
	}
	overdue, inFlight := delayItem(now.Add(-20*time.Minute), 0), delayItem(now.Add(-19*time.Minute), 1)
	create(t, admin, base+"/jobs/"+overdue, []byte("a"), 0, acl)
	create(t, admin, base+"/jobs/"+inFlight, []byte("b"), 0, acl)
	create(t, admin, base+"/later/"+delayItem(now.Add(time.Hour), 0), []byte("c"), 0, acl)
	consumer := goneClient(t, connect)
	create(t, consumer, base+"/jobs-lock/"+inFlight, []byte("10.0.0.7"), zk.FlagEphemeral, acl)
	if !srv.DropConnection(consumer.SessionID()) {
		t.Fatal("the consumer has no connection to drop")
	}

	out, _, err := run(t, "--server", connect, "queues", "--check", "--older", "15m", base)
	var status exitStatus
	if !errors.As(err, &status) || status != exitCheckAlarm || !strings.Contains(out, "queue-stale") || !strings.Contains(out, "item-stuck") ||
		strings.Contains(out, base+"/later") {
		t.Errorf("zkx queues --check --older 15m: %v\n%s", err, out)
	}
	out, _, err = run(t, "--server", connect, "queues", "--check", "--older", "30m", base)
	if !errors.As(err, &status) || strings.Contains(out, "queue-stale") || !strings.Contains(out, "item-stuck") {
		t.Errorf("zkx queues --check --older 30m: %v\n%s", err, out)
	}
	if out, _, err := run(t, "--server", connect, "queues", "--check", base+"/later"); err != nil || out != "" {
		t.Errorf("zkx queues --check on a queue not due: %v\n%s", err, out)
	}

	var queues []recognize.Queue
	raw := runJSON(t, &queues, "--server", connect, "queues", "-o", "json", base+"/jobs")
	if len(queues) != 1 {
		t.Fatalf("queues:\n%s", raw)
	}
	q := queues[0]
	if q.Kind != "delay" || q.LockPath != base+"/jobs-lock" || q.InFlight != 1 || q.Due != 2 || len(q.Items) != 2 ||
		q.Items[0].Node != overdue || q.Items[0].DueInMs == nil || *q.Items[0].DueInMs > -(19*time.Minute).Milliseconds() {
		t.Errorf("queue:\n%s", raw)
	}
	if c := q.Items[1].Consumer; !q.Items[1].InFlight || c == nil || c.Connected == nil || *c.Connected || q.Items[1].WaitingMs != nil {
		t.Errorf("the item in flight:\n%s", raw)
	}
	for _, field := range []string{`"kind": "delay"`, `"due_in_ms": `, `"waiting_ms": `, `"in_flight": true`, `"consumer": {`, `"lock_path": `, `"oldest_age_ms": `, `"alarms": [`} {
		if !strings.Contains(raw, field) {
			t.Errorf("no %s in\n%s", field, raw)
		}
	}
	out, _, err = run(t, "--server", connect, "queues", "-l", base+"/jobs")
	if err != nil || !strings.Contains(out, "overdue 20m") || !strings.Contains(out, "GONE") || !strings.Contains(out, "lockPath "+base+"/jobs-lock") {
		t.Errorf("zkx queues -l: %v\n%s", err, out)
	}
}

// TestLocksSemaphoreMax: two leases of a Curator semaphore, which is a
// mutex by semaphore when its maximum is 1: told with --max, read with
// --max-from, or not known at all.
func TestLocksSemaphoreMax(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		sem := base + "/sem"
		admin := zktest.Conn(t, connect)
		acl := zk.WorldACL(zk.PermAll)
		for _, p := range []string{base, sem, sem + "/leases", sem + "/locks", base + "/limits"} {
			create(t, admin, p, nil, 0, acl)
		}
		create(t, admin, base+"/limits/sem", []byte{0, 0, 0, 1}, 0, acl)
		for i, id := range []string{"0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11", "7c9e6679-7425-40de-944b-e07fc1f90ae7"} {
			create(t, zktest.Conn(t, connect), fmt.Sprintf("%s/leases/_c_%s-lease-%010d", sem, id, i), []byte("10.0.0.1"), zk.FlagEphemeral, acl)
		}
		if out, _, err := run(t, "--server", connect, "locks", "--check", sem); err != nil || out != "" {
			t.Errorf("max unknown: %v\n%s", err, out)
		}
		out, _, err := run(t, "--server", connect, "locks", "-l", sem)
		if err != nil || !strings.Contains(out, "max unknown: Curator keeps it in its clients' code") {
			t.Errorf("zkx locks -l: %v\n%s", err, out)
		}
		for _, args := range [][]string{{"--max", "1"}, {"--max", sem + "=1"}, {"--max-from", base + "/limits/sem"}, {"--max-from", sem + "=" + base + "/limits/sem"}} {
			out, _, err := run(t, append([]string{"--server", connect, "locks", "--check", sem}, args...)...)
			var status exitStatus
			if !errors.As(err, &status) || status != exitCheckAlarm || !strings.Contains(out, "two-holders") || !strings.Contains(out, "mutex by semaphore") {
				t.Errorf("zkx locks --check %v: %v\n%s", args, err, out)
			}
		}
		var locks []recognize.Lock
		runJSON(t, &locks, "--server", connect, "locks", "-o", "json", "--max-from", sem+"="+base+"/limits/sem", base)
		if len(locks) != 1 || !locks[0].Broken || !locks[0].MutexBySemaphore || locks[0].MaxFrom != "shared-count" || locks[0].MaxPath != base+"/limits/sem" {
			t.Errorf("zkx locks -o json --max-from: %+v", locks)
		}
	})
}

func TestSemaphoreMaximaFlags(t *testing.T) {
	t.Parallel()
	got, err := semaphoreMaxima([]string{"/a=2", "3"}, []string{"/b=/counts/b"}, "/c")
	want := map[string]recognize.SemaphoreMax{"/a": {Count: 2}, "/c": {Count: 3}, "/b": {From: "/counts/b"}}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("semaphoreMaxima = %v, %v; want %v", got, err, want)
	}
	for _, tt := range []struct {
		maxes, from []string
		path, want  string
	}{
		{[]string{"2"}, nil, "/", "name the semaphore"},
		{[]string{"/a=0"}, nil, "/", "a whole number from 1"},
		{[]string{"/a=x"}, nil, "/", "a whole number from 1"},
		{[]string{"a=1"}, nil, "/", "--max a=1"},
		{[]string{"/a=1"}, []string{"/a=/b"}, "/", "given twice"},
		{nil, []string{"/a=b"}, "/", "--max-from /a=b"},
	} {
		if _, err := semaphoreMaxima(tt.maxes, tt.from, tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("semaphoreMaxima(%q, %q): %v, want an error with %q", tt.maxes, tt.from, err, tt.want)
		}
	}
}

// TestRecipesCommand: groups, a lease, a counter and a TTL node's layout,
// listed together, by class, and as JSON with a list per class.
func TestRecipesCommand(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		admin := zktest.Conn(t, connect)
		acl := zk.WorldACL(zk.PermAll)
		for _, p := range []string{base, base + "/members", base + "/lease"} {
			create(t, admin, p, nil, 0, acl)
		}
		for _, m := range []string{"api-1", "api-2"} {
			create(t, zktest.Conn(t, connect), base+"/members/"+m, []byte("10.0.0.1"), zk.FlagEphemeral, acl)
		}
		end := time.Now().Add(-3 * time.Minute).UTC().Format("2006-01-02T15:04:05")
		create(t, admin, base+"/lease/lease_holder", []byte(`{"version": 1, "holder": "web-1", "end": "`+end+`"}`), 0, acl)
		create(t, admin, base+"/seq", []byte{0, 0, 0, 42}, 0, acl)

		out, _, err := run(t, "--server", connect, "recipes", base)
		if err != nil || !strings.Contains(out, base+"/members  group    group-member  curator  2 members: api-1, api-2") ||
			!strings.Contains(out, "EXPIRED 3m") || !strings.Contains(out, "42 (int32, as created") {
			t.Errorf("zkx recipes: %v\n%s", err, out)
		}
		var res map[string]json.RawMessage
		raw := runJSON(t, &res, "--server", connect, "recipes", "-o", "json", base)
		for _, key := range []string{"locks", "elections", "queues", "barriers", "groups", "partitions", "leases", "counters", "ttl_nodes"} {
			if _, ok := res[key]; !ok {
				t.Errorf("no %q list in\n%s", key, raw)
			}
		}
		var only recognize.Result
		raw = runJSON(t, &only, "--server", connect, "recipes", "-o", "json", "--class", "lease,counter", base)
		if len(only.Groups) != 0 || len(only.Leases) != 1 || !only.Leases[0].Slots[0].Expired || len(only.Counters) != 1 || only.Counters[0].Value != "42" {
			t.Errorf("--class lease,counter:\n%s", raw)
		}
		if _, _, err := run(t, "--server", connect, "recipes", "--class", "mutexes", base); err == nil || !strings.Contains(err.Error(), "not a class") {
			t.Errorf("--class mutexes: %v", err)
		}
	})
}
