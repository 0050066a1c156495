// Command lockbench measures recipes.Mutex the way the anchor programs in
// shared/anchors measure Curator, Kazoo and go-zookeeper: N contenders, each
// with its own session, loop acquire → release on one lock for a duration,
// and print one line in the anchors' format. It also measures the floor of
// a handoff on the same server: from a delete to the watcher's event.
//
//	go run ./scripts/lockbench HOST:PORT [N=10] [SECONDS=10] [all|zkx|floor] [chain|herd|spin]
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

	"github.com/zkx-dev/zkx/recipes"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: lockbench HOST:PORT [N=10] [SECONDS=10] [all|zkx|floor] [chain|herd|spin]")
		os.Exit(2)
	}
	server := os.Args[1]
	n, secs, which, strategy := 10, 10, "all", recipes.Chain
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
			strategy = recipes.Herd
		case "spin":
			strategy = recipes.Spin
		}
	}
	servers := strings.Split(server, ",")
	if f := os.Getenv("LOCKBENCH_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		fail(err)
		pprof.StartCPUProfile(out)
		defer pprof.StopCPUProfile()
	}
	if which == "all" || which == "zkx" {
		fail(benchMutex(servers, n, secs, strategy))
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

// percentile of sorted durations, in milliseconds, as the anchors compute it.
func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[int(float64(len(sorted))*q)]) / 1e6
}

func benchMutex(servers []string, n, secs int, strategy recipes.Strategy) error {
	dir := fmt.Sprintf("/bench/zkx-%d", time.Now().UnixNano())
	sessions := make([]*recipes.Session, n)
	for i := range sessions {
		s, err := recipes.Dial(servers, recipes.WithSessionTimeout(30*time.Second))
		if err != nil {
			return err
		}
		defer s.Close()
		sessions[i] = s
	}
	stats := recipes.NewStats()
	var count, inside, violations int64
	var lastRelease atomic.Int64
	var mu sync.Mutex
	var handoffs []time.Duration
	end := time.Now().Add(time.Duration(secs) * time.Second)
	ctx := context.Background()
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func(s *recipes.Session) {
			defer wg.Done()
			m := recipes.NewMutex(s, dir, recipes.WithStrategy(strategy), recipes.WithPollInterval(time.Millisecond), recipes.WithStats(stats))
			for time.Now().Before(end) {
				if err := m.Lock(ctx); err != nil {
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
				if err := m.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	sort.Slice(handoffs, func(i, j int) bool { return handoffs[i] < handoffs[j] })
	snap := stats.Snapshot()
	fmt.Fprintf(os.Stderr, "per acquisition: reads=%.2f notifications=%.2f creates=%.2f\n",
		float64(snap.Reads)/float64(snap.Acquisitions), float64(snap.Notifications)/float64(snap.Acquisitions), float64(snap.Creates)/float64(snap.Acquisitions))
	fmt.Printf("zkx-%s n=%d secs=%d acquisitions=%d rate=%.1f/s handoff_p50_ms=%.3f handoff_p99_ms=%.3f violations=%d\n",
		strategy, n, secs, count, float64(count)/float64(secs), percentile(handoffs, 0.5), percentile(handoffs, 0.99), violations)
	return nil
}

// benchFloor measures, on one server, the floor under any handoff: from a
// delete being sent to the event reaching another session watching the
// node, and one getChildren round trip.
func benchFloor(servers []string, secs int) error {
	dial := func() (*zk.Conn, error) {
		c, events, err := zk.Connect(servers, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
		if err != nil {
			return nil, err
		}
		timeout := time.After(15 * time.Second)
		for {
			select {
			case ev := <-events:
				if ev.State == zk.StateHasSession {
					go func() {
						for range events { // keep the channel drained
						}
					}()
					return c, nil
				}
			case <-timeout:
				c.Close()
				return nil, fmt.Errorf("no session with %v within 15s", servers)
			}
		}
	}
	deleter, err := dial()
	if err != nil {
		return err
	}
	defer deleter.Close()
	watcher, err := dial()
	if err != nil {
		return err
	}
	defer watcher.Close()
	dir := fmt.Sprintf("/bench/floor-%d", time.Now().UnixNano())
	acl := zk.WorldACL(zk.PermAll)
	deleter.Create("/bench", nil, 0, acl)
	if _, err := deleter.Create(dir, nil, 0, acl); err != nil {
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

type quiet struct{}

func (quiet) Printf(string, ...any) {}
