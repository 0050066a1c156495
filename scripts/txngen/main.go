// Command txngen writes transactions to a ZooKeeper as fast as it takes
// them, for the post-mortem benchmarks (scripts/postmortem-bench.sh): DIRS
// directories of PER nodes each under ROOT (each create one transaction),
// then SETS setData on nodes spread among them, from WORKERS goroutines on
// one session (go-zookeeper pipelines their requests).
//
// Usage: txngen HOST:PORT ROOT DIRS PER SETS WORKERS
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

func main() {
	if len(os.Args) != 7 {
		fmt.Fprintln(os.Stderr, "usage: txngen HOST:PORT ROOT DIRS PER SETS WORKERS")
		os.Exit(2)
	}
	addr, root := os.Args[1], os.Args[2]
	dirs, per, sets, workers := atoi(os.Args[3]), atoi(os.Args[4]), atoi(os.Args[5]), atoi(os.Args[6])
	c, _, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		fail(err)
	}
	defer c.Close()
	acl := zk.WorldACL(zk.PermAll)
	if _, err := c.Create(root, []byte("txngen"), zk.FlagPersistent, acl); err != nil && err != zk.ErrNodeExists {
		fail(err)
	}
	begin := time.Now()
	var done atomic.Int64
	jobs := make(chan func() error, workers*4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				if err := job(); err != nil {
					fail(err)
				}
				if n := done.Add(1); n%100000 == 0 {
					fmt.Fprintf(os.Stderr, "%d transactions, %.0f/s\n", n, float64(n)/time.Since(begin).Seconds())
				}
			}
		}()
	}
	for d := range dirs {
		dir := fmt.Sprintf("%s/d%04d", root, d)
		if _, err := c.Create(dir, nil, zk.FlagPersistent, acl); err != nil && err != zk.ErrNodeExists {
			fail(err)
		}
		for n := range per {
			path := fmt.Sprintf("%s/n%06d", dir, n)
			jobs <- func() error {
				_, err := c.Create(path, []byte("value-"+strconv.Itoa(n)), zk.FlagPersistent, acl)
				return err
			}
		}
	}
	for i := range sets {
		path := fmt.Sprintf("%s/d%04d/n%06d", root, i%dirs, (i/dirs)%per)
		jobs <- func() error {
			_, err := c.Set(path, []byte("set-"+strconv.Itoa(i)), -1)
			return err
		}
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "%d transactions in %v\n", done.Load()+int64(dirs)+1, time.Since(begin).Round(time.Millisecond))
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		fail(fmt.Errorf("%q: not a count", s))
	}
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "txngen:", err)
	os.Exit(1)
}
