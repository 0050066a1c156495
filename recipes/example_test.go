package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/recipes"
)

// The examples run on the embedded server so that `go test` runs them
// anywhere; against an ensemble, dial its members instead:
//
//	s, err := recipes.Dial([]string{"zk1:2181", "zk2:2181", "zk3:2181"})

// embeddedServer starts an in-memory ZooKeeper-compatible server on a free
// loopback port; stop ends it.
func embeddedServer() (servers []string, stop func()) {
	srv, err := zkserver.Start("127.0.0.1:0", zkserver.Config{})
	if err != nil {
		log.Fatal(err)
	}
	return []string{srv.ConnectString()}, func() { srv.Close() }
}

// dial opens one session: each contender of a recipe has its own, as
// separate processes would.
func dial(servers []string) *recipes.Session {
	s, err := recipes.Dial(servers)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// Two sessions contend for one lock. The second waits until the first
// unlocks, and its fencing token is larger: a resource that remembers the
// largest token it has seen refuses a holder that lost the lock unawares.
func ExampleMutex() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := dial(servers), dial(servers)
	defer a.Close()
	defer b.Close()

	first := recipes.NewMutex(a, "/app/locks/nightly")
	check(first.Lock(ctx))
	fmt.Println("a holds the lock")

	second := recipes.NewMutex(b, "/app/locks/nightly")
	if err := second.TryLock(ctx); errors.Is(err, recipes.ErrLocked) {
		fmt.Println("b: held by another session")
	}

	acquired := make(chan error)
	go func() { acquired <- second.Lock(ctx) }()
	firstToken := first.Token()
	check(first.Unlock(ctx))
	check(<-acquired)
	fmt.Println("b holds the lock after a unlocked")
	fmt.Println("b's token is larger:", second.Token().Zxid > firstToken.Zxid)
	check(second.Unlock(ctx))

	// Output:
	// a holds the lock
	// b: held by another session
	// b holds the lock after a unlocked
	// b's token is larger: true
}

// Readers share an RWMutex; a writer waits until every reader ahead of it
// has unlocked.
func ExampleRWMutex() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r1, r2, w := dial(servers), dial(servers), dial(servers)
	defer r1.Close()
	defer r2.Close()
	defer w.Close()

	reader1 := recipes.NewRWMutex(r1, "/app/locks/config")
	reader2 := recipes.NewRWMutex(r2, "/app/locks/config")
	writer := recipes.NewRWMutex(w, "/app/locks/config")

	check(reader1.RLock(ctx))
	check(reader2.RLock(ctx))
	fmt.Println("two readers hold the lock together")

	if err := writer.TryLock(ctx); errors.Is(err, recipes.ErrLocked) {
		fmt.Println("the writer would have to wait")
	}

	check(reader1.RUnlock(ctx))
	check(reader2.RUnlock(ctx))
	check(writer.Lock(ctx))
	fmt.Println("the writer holds the lock alone")
	check(writer.Unlock(ctx))

	// Output:
	// two readers hold the lock together
	// the writer would have to wait
	// the writer holds the lock alone
}

// A Semaphore of two leases lets two workers in at once; a third is
// refused until one of them releases its lease.
func ExampleSemaphore() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s1, s2, s3 := dial(servers), dial(servers), dial(servers)
	defer s1.Close()
	defer s2.Close()
	defer s3.Close()

	first, err := recipes.NewSemaphore(s1, "/app/slots/export", 2).Acquire(ctx)
	check(err)
	second, err := recipes.NewSemaphore(s2, "/app/slots/export", 2).Acquire(ctx)
	check(err)
	fmt.Println("two workers hold a lease")

	third := recipes.NewSemaphore(s3, "/app/slots/export", 2)
	if _, err := third.TryAcquire(ctx); errors.Is(err, recipes.ErrLocked) {
		fmt.Println("a third is refused")
	}

	check(first.Release(ctx))
	lease, err := third.Acquire(ctx)
	check(err)
	fmt.Println("the third holds a lease after one was released")
	check(lease.Release(ctx))
	check(second.Release(ctx))

	// Output:
	// two workers hold a lease
	// a third is refused
	// the third holds a lease after one was released
}

// A Queue hands out items in the order they were put, each to one consumer
// only. Its layout is ZooKeeper's and Curator's (qn-SEQ), so their queues
// on the same directory share the items.
func ExampleQueue() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	producer, consumer := dial(servers), dial(servers)
	defer producer.Close()
	defer consumer.Close()

	jobs := recipes.NewQueue(producer, "/app/jobs")
	for _, job := range []string{"resize photo 1", "resize photo 2", "send mail"} {
		name, err := jobs.Put(ctx, []byte(job))
		check(err)
		fmt.Println("put", name)
	}

	work := recipes.NewQueue(consumer, "/app/jobs")
	n, err := work.Len(ctx)
	check(err)
	fmt.Println(n, "waiting")
	for range n {
		item, err := work.Take(ctx) // waits on a watch when the queue is empty
		check(err)
		fmt.Printf("took %q\n", item)
	}
	if _, err := work.Poll(ctx); errors.Is(err, recipes.ErrEmpty) {
		fmt.Println("the queue is empty")
	}

	// Output:
	// put qn-0000000000
	// put qn-0000000001
	// put qn-0000000002
	// 3 waiting
	// took "resize photo 1"
	// took "resize photo 2"
	// took "send mail"
	// the queue is empty
}

// The first candidate leads; the second waits in line and leads when the
// first resigns. Leader reads who leads without taking part.
func ExampleElection() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s1, s2 := dial(servers), dial(servers)
	defer s1.Close()
	defer s2.Close()

	one := recipes.NewElection(s1, "/app/election", recipes.WithData([]byte("scheduler-1")))
	two := recipes.NewElection(s2, "/app/election", recipes.WithData([]byte("scheduler-2")))

	check(one.Campaign(ctx))
	leader, err := two.Leader(ctx)
	check(err)
	fmt.Printf("%s leads\n", leader.Data)

	leading := make(chan error)
	go func() { leading <- two.Campaign(ctx) }()
	check(one.Resign(ctx))
	check(<-leading)
	leader, err = one.Leader(ctx)
	check(err)
	fmt.Printf("%s leads after scheduler-1 resigned (is leader: %v)\n", leader.Data, two.IsLeader())
	check(two.Resign(ctx))

	// Output:
	// scheduler-1 leads
	// scheduler-2 leads after scheduler-1 resigned (is leader: true)
}

// Workers join a Party in Kazoo's layout, so a Python service's
// client.Party on the same path counts them among its own members.
func ExampleParty() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s1, s2 := dial(servers), dial(servers)
	defer s1.Close()
	defer s2.Close()

	a := recipes.NewParty(s1, "/app/workers", recipes.WithData([]byte("worker-a")))
	b := recipes.NewParty(s2, "/app/workers", recipes.WithData([]byte("worker-b")))
	check(a.Join(ctx))
	check(b.Join(ctx))
	members, err := a.Members(ctx)
	check(err)
	fmt.Println(len(members), "members")

	check(b.Leave(ctx))
	members, err = a.Members(ctx)
	check(err)
	for _, m := range members {
		fmt.Printf("%s is still in: node %d hex digits + %s\n", m.Data, len(m.Name)-len("__party__"), m.Name[32:])
	}

	// Output:
	// 2 members
	// worker-a is still in: node 32 hex digits + __party__
}

// A service registers in a group as Curator's GroupMember does, so Java
// services' getCurrentMembers map its id to its address.
func ExampleGroupMember() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s1, s2 := dial(servers), dial(servers)
	defer s1.Close()
	defer s2.Close()

	api := recipes.NewGroupMember(s1, "/app/members", "api-1", recipes.WithData([]byte("10.0.0.1:8080")))
	check(api.Join(ctx))
	check(api.SetData(ctx, []byte("10.0.0.1:9090")))

	members, err := recipes.NewGroupMember(s2, "/app/members", "observer").Members(ctx)
	check(err)
	for _, m := range members {
		fmt.Printf("%s at %s\n", m.Name, m.Data)
	}
	check(api.Leave(ctx))

	// Output:
	// api-1 at 10.0.0.1:9090
}

// Two sessions add to one count; a compare-and-set from a stale read
// writes nothing. Curator's SharedCount and Kazoo's Counter (with
// support_curator) on the same path read and change the same count.
func ExampleSharedCount() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s1, s2 := dial(servers), dial(servers)
	defer s1.Close()
	defer s2.Close()

	mine := recipes.NewSharedCount(s1, "/app/counts/slots", 10)
	theirs := recipes.NewSharedCount(s2, "/app/counts/slots", 10)
	read, err := mine.Get(ctx)
	check(err)
	fmt.Println("seeded:", read.Value)

	_, err = theirs.Add(ctx, 5)
	check(err)
	now, written, err := mine.TrySet(ctx, read, read.Value-1)
	check(err)
	fmt.Println("written from a stale read:", written, "- the count is", now.Value)
	now, written, err = mine.TrySet(ctx, now, now.Value-1)
	check(err)
	fmt.Println("written from a fresh read:", written, "- the count is", now.Value)

	// Output:
	// seeded: 10
	// written from a stale read: false - the count is 15
	// written from a fresh read: true - the count is 14
}

// Items put on a CuratorQueue are what a Curator DistributedQueue consumer
// is handed, one by one; several put at once travel in one node, as
// Curator's putMulti writes them.
func ExampleCuratorQueue() {
	servers, stop := embeddedServer()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	producer, consumer := dial(servers), dial(servers)
	defer producer.Close()
	defer consumer.Close()

	jobs := recipes.NewCuratorQueue(producer, "/app/curator-jobs")
	name, err := jobs.Put(ctx, []byte("resize photo 1"))
	check(err)
	fmt.Println("put", name)
	name, err = jobs.Put(ctx, []byte("resize photo 2"), []byte("send mail"))
	check(err)
	fmt.Println("put", name)

	work := recipes.NewCuratorQueue(consumer, "/app/curator-jobs")
	for range 2 {
		items, err := work.Take(ctx)
		check(err)
		fmt.Printf("took %q\n", items)
	}

	// Output:
	// put queue-0000000000
	// put queue-0000000001
	// took ["resize photo 1"]
	// took ["resize photo 2" "send mail"]
}
