// Command churngen keeps a directory busy for scripts/churn-bench.sh: WORKERS
// goroutines on one go-zookeeper session (its requests pipelined on one
// connection) each create children of PATH and delete them again, as fast
// as the server answers, for SECONDS. Each worker keeps at most KEEP of its
// children at once, so the directory holds about WORKERS×KEEP children and
// its names turn over all the time. It prints the operations per second it
// reached to stderr when it stops, and leaves PATH with no child of its
// own. RATE, when given, caps the operations per second of all workers
// together (issue 29's figures are for about 16,000/s).
//
//	go run ./scripts/churngen HOST:PORT [PATH=/storm] [SECONDS=60] [WORKERS=8] [KEEP=16] [RATE]
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/scripts/internal/zksession"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: churngen HOST:PORT [PATH=/storm] [SECONDS=60] [WORKERS=8] [KEEP=16] [RATE]")
		os.Exit(2)
	}
	server := os.Args[1]
	dir := "/storm"
	if len(os.Args) > 2 {
		dir = strings.TrimSuffix(os.Args[2], "/")
	}
	if !strings.HasPrefix(dir, "/") || dir == "" {
		fail(fmt.Errorf("PATH %q must be an absolute path other than /", dir))
	}
	seconds, workers, keep, rate := arg(3, 60), arg(4, 8), arg(5, 16), arg(6, 0)
	conn := connect(server)
	defer conn.Close()
	acl := zk.WorldACL(zk.PermAll)
	if _, err := conn.Create(dir, nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		fail(fmt.Errorf("create %s: %w", dir, err))
	}
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	start := time.Now()
	var ops atomic.Int64
	pace := newPacer(start, rate)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := churn(conn, dir, w, keep, deadline, &ops, pace); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "churngen: %d operations in %.1fs: %.0f/s below %s\n", ops.Load(), took.Seconds(), float64(ops.Load())/took.Seconds(), dir)
}

// churn creates children of dir named w<worker>-<n>, deleting the oldest
// once keep of them exist, until deadline; then deletes what is left.
func churn(conn *zk.Conn, dir string, worker, keep int, deadline time.Time, ops *atomic.Int64, pace func()) error {
	acl := zk.WorldACL(zk.PermAll)
	var alive []string
	for n := 0; time.Now().Before(deadline); n++ {
		p := fmt.Sprintf("%s/w%d-%09d", dir, worker, n)
		pace()
		if _, err := conn.Create(p, nil, 0, acl); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		ops.Add(1)
		alive = append(alive, p)
		if len(alive) > keep {
			pace()
			if err := conn.Delete(alive[0], -1); err != nil {
				return fmt.Errorf("delete %s: %w", alive[0], err)
			}
			ops.Add(1)
			alive = alive[1:]
		}
	}
	for _, p := range alive {
		if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("delete %s: %w", p, err)
		}
	}
	return nil
}

// newPacer returns what each operation calls first: with a rate, it waits
// for the operation's turn (the n-th at start + n/rate); without, nothing.
func newPacer(start time.Time, rate int) func() {
	if rate <= 0 {
		return func() {}
	}
	var turn atomic.Int64
	return func() {
		due := start.Add(time.Duration(turn.Add(1)) * time.Second / time.Duration(rate))
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
	}
}

func arg(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	n, err := strconv.Atoi(os.Args[i])
	if err != nil || n <= 0 {
		fail(fmt.Errorf("argument %d: %q is not a positive number", i, os.Args[i]))
	}
	return n
}

// connect opens a session and waits until it has one, or exits.
func connect(server string) *zk.Conn {
	conn, err := zksession.Open(server, 15*time.Second)
	if err != nil {
		fail(err)
	}
	return conn
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "churngen:", err)
	os.Exit(1)
}
