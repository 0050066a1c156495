// Command populate makes a large tree to measure scans on: ROOT, PARENTS
// persistent nodes ROOT/pNNNN under it and CHILDREN persistent nodes
// pNNNN/cNNNNN under each, every child holding a small JSON document
// ({"k":"pNNNN/cNNNNN","v":N}). 1000 × 1000 is 1,001,001 znodes.
//
//	go run ./scripts/populate HOST:PORT ROOT [PARENTS=100] [CHILDREN=1000]
//
// Nodes go in multi transactions of at most 1000 creates, several in flight
// at once, so a million nodes take a minute or two rather than an hour of
// round trips. Run it again after an interruption: it lists each parent
// that exists and creates only the children it lacks. scripts/spreadrecipes
// then lays locks and queues through the tree.
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

// batch is the most creates in one multi: well under ZooKeeper's 1 MB
// request limit (jute.maxbuffer) with these small nodes.
const batch = 1000

// workers is how many multis are in flight at once.
const workers = 4

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: populate HOST:PORT ROOT [PARENTS=100] [CHILDREN=1000]")
		os.Exit(2)
	}
	server, root := os.Args[1], strings.TrimSuffix(os.Args[2], "/")
	parents, children := arg(3, 100), arg(4, 1000)
	if !strings.HasPrefix(root, "/") || root == "" {
		fail(fmt.Errorf("ROOT %q must be an absolute path other than /", os.Args[2]))
	}
	conn := connect(server)
	defer conn.Close()
	acl := zk.WorldACL(zk.PermAll)
	if _, err := conn.Create(root, nil, zk.FlagPersistent, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		fail(fmt.Errorf("create %s: %w", root, err))
	}

	start := time.Now()
	var made atomic.Int64
	jobs := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				n, err := fillParent(conn, root, p, children, acl)
				made.Add(int64(n))
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	func() {
		defer close(jobs)
		for p := range parents {
			select {
			case jobs <- p:
			case err := <-errs:
				errs <- err
				return
			}
			if p%100 == 99 {
				fmt.Fprintf(os.Stderr, "populate: %d of %d parents, %d nodes made, %.0fs\n", p+1, parents, made.Load(), time.Since(start).Seconds())
			}
		}
	}()
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		fail(err)
	}
	fmt.Printf("populate: %s holds %d parents × %d children (%d znodes with ROOT); %d made in %.1fs\n",
		root, parents, children, 1+parents+parents*children, made.Load(), time.Since(start).Seconds())
}

// fillParent creates ROOT/pNNNN and the children it lacks, and returns how
// many nodes it made.
func fillParent(conn *zk.Conn, root string, p, children int, acl []zk.ACL) (int, error) {
	parent := fmt.Sprintf("%s/p%04d", root, p)
	have := map[string]bool{}
	var ops []any
	switch names, _, err := conn.Children(parent); {
	case errors.Is(err, zk.ErrNoNode):
		ops = append(ops, &zk.CreateRequest{Path: parent, Acl: acl})
	case err != nil:
		return 0, fmt.Errorf("list %s: %w", parent, err)
	default:
		for _, n := range names {
			have[n] = true
		}
	}
	made := 0
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		if _, err := conn.Multi(ops...); err != nil {
			return fmt.Errorf("create %d nodes under %s: %w", len(ops), parent, err)
		}
		made += len(ops)
		ops = ops[:0]
		return nil
	}
	for c := range children {
		name := fmt.Sprintf("c%05d", c)
		if have[name] {
			continue
		}
		data := fmt.Sprintf(`{"k":"p%04d/%s","v":%d}`, p, name, p*children+c)
		ops = append(ops, &zk.CreateRequest{Path: parent + "/" + name, Data: []byte(data), Acl: acl})
		if len(ops) == batch {
			if err := flush(); err != nil {
				return made, err
			}
		}
	}
	return made, flush()
}

func arg(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	v, err := strconv.Atoi(os.Args[i])
	if err != nil || v <= 0 {
		fail(fmt.Errorf("%q is not a positive number", os.Args[i]))
	}
	return v
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
	fmt.Fprintln(os.Stderr, "populate:", err)
	os.Exit(1)
}
