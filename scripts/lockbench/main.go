// Command lockbench measures lock handoffs on a ZooKeeper server: N
// contenders, each with its own session, loop acquire → release on one lock
// for a duration. Mode zkx measures recipes.Mutex, gozk go-zookeeper's
// zk.Lock, floor the least any handoff can cost on that server (from a
// delete to the watcher's event). scripts/lockbench-curator and
// scripts/lockbench-kazoo measure Curator and Kazoo the same way, and
// scripts/bench-locks.sh runs them all side by side.
//
//	go run ./scripts/lockbench HOST:PORT [N=10] [SECONDS=10] [all|zkx|gozk|floor] [chain|herd|spin]
//
// Every contention mode prints one line, the same in all four programs:
//
//	NAME n=N secs=S acquisitions=A rate=R/s handoff_p50_ms=P handoff_p99_ms=Q violations=V
//
// A handoff is the time from a holder starting its release to the next
// holder (any contender) returning from its acquire. A violation is an
// acquire returning while another contender is between its acquire and
// its release, as an in-process counter sees it: it must stay 0.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/recipes"
	"github.com/zkx-dev/zkx/scripts/internal/zksession"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: lockbench HOST:PORT [N=10] [SECONDS=10] [all|zkx|gozk|floor] [chain|herd|spin]")
		os.Exit(2)
	}
	server := os.Args[1]
	n, secs, which, strategy := 10, 10, "all", lockstats.Chain
	if len(os.Args) > 2 {
		n = atoi(os.Args[2])
	}
	if len(os.Args) > 3 {
		secs = atoi(os.Args[3])
	}
	if len(os.Args) > 4 {
		which = os.Args[4]
	}
	if len(os.Args) > 5 {
		switch os.Args[5] {
		case "herd":
			strategy = lockstats.Herd
		case "spin":
			strategy = lockstats.Spin
		}
	}
	servers := strings.Split(server, ",")
	if f := os.Getenv("LOCKBENCH_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		fail(err)
		fail(pprof.StartCPUProfile(out))
		defer pprof.StopCPUProfile()
	}
	switch which {
	case "all", "zkx", "gozk", "floor":
	default:
		fmt.Fprintf(os.Stderr, "lockbench: mode %q is none of all, zkx, gozk, floor\n", which)
		os.Exit(2)
	}
	if which == "all" || which == "zkx" {
		fail(benchMutex(servers, n, secs, strategy))
	}
	if which == "all" || which == "gozk" {
		fail(benchGoZK(servers, n, secs))
	}
	if which == "all" || which == "floor" {
		fail(benchFloor(servers, secs))
	}
}

func atoi(s string) int {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		fmt.Fprintf(os.Stderr, "lockbench: %q is not a positive number\n", s)
		os.Exit(2)
	}
	return v
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockbench:", err)
		os.Exit(1)
	}
}

// percentile of sorted durations, in milliseconds: the sample at index
// ⌊len·q⌋, as the Java and Python programs take it too.
func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[int(float64(len(sorted))*q)]) / 1e6
}

// contender is one client's way to take and give back the lock.
type contender struct {
	lock, unlock func() error
}

// contend runs the contenders until secs have passed and prints the line.
func contend(name string, contenders []contender, secs int) error {
	var count, inside, violations int64
	var lastRelease atomic.Int64
	var mu sync.Mutex
	var handoffs []time.Duration
	end := time.Now().Add(time.Duration(secs) * time.Second)
	errs := make(chan error, len(contenders))
	var wg sync.WaitGroup
	for _, c := range contenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				if err := c.lock(); err != nil {
					errs <- err
					return
				}
				t := time.Now().UnixNano()
				if lr := lastRelease.Load(); lr != 0 {
					mu.Lock()
					handoffs = append(handoffs, time.Duration(t-lr))
					mu.Unlock()
				}
				if atomic.AddInt64(&inside, 1) != 1 {
					atomic.AddInt64(&violations, 1)
				}
				atomic.AddInt64(&count, 1)
				atomic.AddInt64(&inside, -1)
				lastRelease.Store(time.Now().UnixNano())
				if err := c.unlock(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	sort.Slice(handoffs, func(i, j int) bool { return handoffs[i] < handoffs[j] })
	fmt.Printf("%s n=%d secs=%d acquisitions=%d rate=%.1f/s handoff_p50_ms=%.3f handoff_p99_ms=%.3f violations=%d\n",
		name, len(contenders), secs, count, float64(count)/float64(secs), percentile(handoffs, 0.5), percentile(handoffs, 0.99), violations)
	return nil
}

func benchMutex(servers []string, n, secs int, strategy lockstats.Strategy) error {
	dir := fmt.Sprintf("/bench/zkx-%d", time.Now().UnixNano())
	stats := lockstats.NewStats()
	ctx := context.Background()
	contenders := make([]contender, n)
	for i := range contenders {
		s, err := recipes.Dial(servers, recipes.WithSessionTimeout(30*time.Second))
		if err != nil {
			return err
		}
		defer s.Close()
		instruments := lockstats.RecipeOption(lockstats.Instruments{Stats: stats, Strategy: strategy, PollInterval: time.Millisecond}).(recipes.Option)
		m := recipes.NewMutex(s, dir, instruments)
		contenders[i] = contender{lock: func() error { return m.Lock(ctx) }, unlock: func() error { return m.Unlock(ctx) }}
	}
	if err := contend("zkx-"+strategy.String(), contenders, secs); err != nil {
		return err
	}
	snap := stats.Snapshot()
	fmt.Fprintf(os.Stderr, "zkx per acquisition: reads=%.2f notifications=%.2f creates=%.2f\n",
		float64(snap.Reads)/float64(snap.Acquisitions), float64(snap.Notifications)/float64(snap.Acquisitions), float64(snap.Creates)/float64(snap.Acquisitions))
	return nil
}

// benchGoZK measures go-zookeeper's own zk.Lock (lock-SEQ nodes; each
// waiter watches its predecessor with exists).
func benchGoZK(servers []string, n, secs int) error {
	dir := fmt.Sprintf("/bench/gozk-%d", time.Now().UnixNano())
	acl := zk.WorldACL(zk.PermAll)
	contenders := make([]contender, n)
	for i := range contenders {
		c, err := dial(servers)
		if err != nil {
			return err
		}
		defer c.Close()
		l := zk.NewLock(c, dir, acl)
		contenders[i] = contender{lock: l.Lock, unlock: l.Unlock}
	}
	return contend("go-zookeeper-zk.Lock", contenders, secs)
}

// dial opens a go-zookeeper session and waits until it has one.
func dial(servers []string) (*zk.Conn, error) {
	return zksession.Open(strings.Join(servers, ","), 15*time.Second)
}

// benchFloor measures, on one server, the floor under any handoff: from a
// delete being sent to the event reaching another session watching the
// node, and one getChildren round trip.
func benchFloor(servers []string, secs int) error {
	deleter, err := dial(servers)
	if err != nil {
		return err
	}
	defer deleter.Close()
	watcher, err := dial(servers)
	if err != nil {
		return err
	}
	defer watcher.Close()
	dir := fmt.Sprintf("/bench/floor-%d", time.Now().UnixNano())
	acl := zk.WorldACL(zk.PermAll)
	if _, err := deleter.Create("/bench", nil, zk.FlagPersistent, acl); err != nil && err != zk.ErrNodeExists {
		return err
	}
	if _, err := deleter.Create(dir, nil, zk.FlagPersistent, acl); err != nil {
		return err
	}
	defer deleter.Delete(dir, -1)
	var toEvent, list []time.Duration
	end := time.Now().Add(time.Duration(secs) * time.Second)
	for i := 0; time.Now().Before(end); i++ {
		node := fmt.Sprintf("%s/n%d", dir, i)
		if _, err := deleter.Create(node, nil, zk.FlagEphemeral, acl); err != nil {
			return err
		}
		_, _, ch, err := watcher.GetW(node)
		if err != nil {
			return err
		}
		start := time.Now()
		if err := deleter.Delete(node, -1); err != nil {
			return err
		}
		<-ch
		toEvent = append(toEvent, time.Since(start))
		start = time.Now()
		if _, _, err := watcher.Children(dir); err != nil {
			return err
		}
		list = append(list, time.Since(start))
	}
	for _, d := range [][]time.Duration{toEvent, list} {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	}
	fmt.Printf("floor samples=%d delete_to_event_p50_ms=%.3f delete_to_event_p99_ms=%.3f getchildren_p50_ms=%.3f\n",
		len(toEvent), percentile(toEvent, 0.5), percentile(toEvent, 0.99), percentile(list, 0.5))
	return nil
}
