package recognize

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// recScanTree is a tree with one of each recipe, and some that are not.
func recScanTree() *fakeTree {
	return newRecFake().
		add("/app/locks/orders/"+curLock(3), "10.0.0.5", ephemeralOf(1)).
		add("/app/locks/orders/"+curLock(4), "10.0.0.6", ephemeralOf(2)).
		add("/app/locks/rw/"+curWrite(1), "", ephemeralOf(3)).
		add("/app/sem/leases/"+curLease(0), "", ephemeralOf(4)).
		add("/app/sem/locks/"+curLock(0), "", ephemeralOf(5)).
		add("/app/ksem", "1").
		add("/app/ksem/"+testHex, "", ephemeralOf(6)).
		add("/app/ksem-__lock__/"+kzLock(0), "", ephemeralOf(7)).
		add("/app/leader/"+curLatch(0), "", ephemeralOf(8)).
		add("/app/leader/"+curLatch(1), "", ephemeralOf(9)).
		add("/app/jobs/qn-0000000000", "job").
		add("/app/lq/entries/entry-100-0000000000", "x").
		add("/app/lq/taken", "").
		add("/app/db/"+testUUID, "", ephemeralOf(10)).
		add("/app/start-barrier", "").
		add("/app/config/a/b", "").
		add("/app/tutorial/lock-0000000000", "", ephemeralOf(11))
}

func TestScan(t *testing.T) {
	t.Parallel()
	f := recScanTree()
	res, err := Scan(context.Background(), f, "/", Options{Now: recEpoch, Concurrency: 3})
	if err != nil || res.Partial {
		t.Fatalf("Scan: %v (partial %v)", err, res.Partial)
	}
	var got []string
	for _, l := range res.Locks {
		got = append(got, l.Path+" "+l.Format+" "+l.Recipe)
	}
	for _, e := range res.Elections {
		got = append(got, e.Path+" "+e.Format+" election")
	}
	for _, q := range res.Queues {
		got = append(got, q.Path+" "+q.Format+" queue")
	}
	for _, b := range res.Barriers {
		got = append(got, b.Path+" "+b.Format+" "+b.Kind)
	}
	want := []string{
		"/app/ksem kazoo semaphore",
		"/app/locks/orders curator mutex",
		"/app/locks/rw curator rwlock",
		"/app/sem curator semaphore",
		"/app/tutorial generic mutex",
		"/app/leader curator election",
		"/app/jobs zookeeper-recipes queue",
		"/app/lq kazoo queue",
		"/app/db curator double-barrier",
		"/app/start-barrier curator barrier",
	}
	if !recEqual(got, want) {
		t.Errorf("Scan found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The members of recipes are not listed; the Curator semaphore's and
	// the locking queue's parts are listed once, by their recogniser (a
	// Kazoo semaphore's lock directory is listed by the walk, and again).
	for p, n := range f.listed {
		if strings.Contains(p, "_c_") || strings.Contains(p, "__lock__0") || strings.Contains(p, "/qn-") || strings.Contains(p, "/entry-") {
			t.Errorf("listed member %s", p)
		}
		if n > 1 && p != "/app/ksem-__lock__" {
			t.Errorf("listed %s %d times", p, n)
		}
	}
	if l := res.Locks[0]; len(l.Holders) != 1 || len(l.Waiters) != 1 || l.Waiters[0].WaitsFor != "/app/ksem" {
		t.Errorf("kazoo semaphore %+v", l)
	}
}

func TestScanRoots(t *testing.T) {
	t.Parallel()
	f := recScanTree()
	for _, tt := range []struct {
		root string
		want string
	}{
		{"/app/ksem", "/app/ksem kazoo semaphore"},
		{"/app/ksem-__lock__", "/app/ksem-__lock__ kazoo mutex"},
		{"/app/sem", "/app/sem curator semaphore"},
		{"/app/locks/orders", "/app/locks/orders curator mutex"},
	} {
		res, err := Scan(context.Background(), f, tt.root, Options{Now: recEpoch})
		if err != nil || len(res.Locks) != 1 {
			t.Errorf("Scan(%s): %v, %d locks", tt.root, err, len(res.Locks))
			continue
		}
		if l := res.Locks[0]; l.Path+" "+l.Format+" "+l.Recipe != tt.want {
			t.Errorf("Scan(%s): %s %s %s, want %s", tt.root, l.Path, l.Format, l.Recipe, tt.want)
		}
	}
	res, err := Scan(context.Background(), f, "/nowhere", Options{})
	if !zkview.IsNoNode(err) || !res.Partial || res.Locks == nil {
		t.Errorf("Scan of a missing root: %v %+v", err, res)
	}
}

func TestScanPartial(t *testing.T) {
	t.Parallel()
	f := recScanTree()
	f.errs["/app/config"] = zk.ErrNoAuth
	f.errs["/app/leader/"+curLatch(1)] = zk.ErrNoAuth
	res, err := Scan(context.Background(), f, "/", Options{Now: recEpoch})
	if err == nil || !res.Partial || !zkview.IsNoAuth(err) {
		t.Fatalf("Scan with unreadable nodes: %v (partial %v)", err, res.Partial)
	}
	if !strings.Contains(err.Error(), "/app/config") || !strings.Contains(err.Error(), "2 nodes could not be read") {
		t.Errorf("error %q does not name the unreadable nodes", err)
	}
	if len(res.Locks) != 5 || len(res.Queues) != 2 || len(res.Elections) != 0 {
		t.Errorf("partial result: %d locks, %d queues, %d elections", len(res.Locks), len(res.Queues), len(res.Elections))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Scan(ctx, recScanTree(), "/", Options{})
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Errorf("cancelled Scan: %v (partial %v)", err, res.Partial)
	}
}
