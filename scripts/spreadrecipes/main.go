// Command spreadrecipes lays recipes through a large tree made by
// scripts/populate (ROOT/pNNNN/cNNNNN), for measuring scans of a
// million znodes: LOCKS Curator-layout lock directories, each with a
// holder and a waiter on two sessions, and QUEUES ZooKeeper-recipe queues
// of ITEMS items, spread evenly over the parents. It keeps the sessions
// (and so the ephemeral contenders) until interrupted, then removes what
// it made.
//
//	go run ./scripts/spreadrecipes HOST:PORT /big [LOCKS=100] [QUEUES=50] [ITEMS=2]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/scripts/internal/zksession"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: spreadrecipes HOST:PORT ROOT [LOCKS=100] [QUEUES=50] [ITEMS=2]")
		os.Exit(2)
	}
	server, root := os.Args[1], os.Args[2]
	locks, queues, items := arg(3, 100), arg(4, 50), arg(5, 2)
	holder, waiter := connect(server), connect(server)
	parents, _, err := holder.Children(root)
	if err != nil || len(parents) == 0 {
		fail(fmt.Errorf("list %s (populate it first): %v", root, err))
	}
	acl := zk.WorldACL(zk.PermAll)
	var made []string // to remove, deepest last
	spread := func(i, n int) string { return root + "/" + parents[i*len(parents)/n] }
	for i := 0; i < locks; i++ {
		dir := fmt.Sprintf("%s/lock-%03d", spread(i, locks), i)
		must(holder.Create(dir, nil, zk.FlagPersistent, acl))
		made = append(made, dir)
		must(holder.Create(dir+"/_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-lock-", []byte("10.0.0.1"), zk.FlagEphemeral|zk.FlagSequence, acl))
		must(waiter.Create(dir+"/_c_7c9e6679-7425-40de-944b-e07fc1f90ae7-lock-", []byte("10.0.0.2"), zk.FlagEphemeral|zk.FlagSequence, acl))
	}
	for i := 0; i < queues; i++ {
		dir := fmt.Sprintf("%s/queue-%03d", spread(i, queues), i)
		must(holder.Create(dir, nil, zk.FlagPersistent, acl))
		made = append(made, dir)
		for j := 0; j < items; j++ {
			p, err := holder.Create(dir+"/qn-", []byte(fmt.Sprintf(`{"job":%d}`, j)), zk.FlagSequence, acl)
			must(p, err)
			made = append(made, p)
		}
	}
	fmt.Printf("READY %d locks (held and waited on), %d queues of %d items under %s\n", locks, queues, items, root)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
	// The contenders go with their sessions; then the rest, deepest first.
	holder.Close()
	waiter.Close()
	cleaner := connect(server)
	defer cleaner.Close()
	for i := len(made) - 1; i >= 0; i-- {
		if err := cleaner.Delete(made[i], -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			fmt.Fprintln(os.Stderr, "spreadrecipes: remove", made[i], err)
		}
	}
}

func arg(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	n, err := strconv.Atoi(os.Args[i])
	if err != nil || n < 0 {
		fail(fmt.Errorf("%q is not a count", os.Args[i]))
	}
	return n
}

// connect opens a session and waits until it has one, or exits.
func connect(server string) *zk.Conn {
	conn, err := zksession.Open(server, 30*time.Second)
	if err != nil {
		fail(err)
	}
	return conn
}

func must(_ string, err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "spreadrecipes:", err)
	os.Exit(1)
}
