// Command fakezk serves one of the misbehaving fake ZooKeeper servers of
// internal/testkit/fakezk on a loopback port, so a reader can point zkx
// (or any ZooKeeper client) at it and see what happens:
//
//	go run ./scripts/fakezk pings-only      # prints "pings-only listening on 127.0.0.1:PORT"
//	go run ./scripts/fakezk                 # lists the cases
//
// It serves until interrupted.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/zkx-dev/zkx/internal/testkit/fakezk"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakezk CASE; the cases:")
		for _, c := range fakezk.Cases {
			fmt.Fprintf(os.Stderr, "  %-24s %s\n", c.Name, c.What)
		}
		os.Exit(2)
	}
	c, ok := fakezk.Lookup(os.Args[1])
	if !ok {
		fmt.Fprintf(os.Stderr, "fakezk: no case %q (run without arguments for the list)\n", os.Args[1])
		os.Exit(2)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	s, err := fakezk.Start(c.Behaviour)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakezk:", err)
		os.Exit(1)
	}
	fmt.Printf("%s listening on %s\n", c.Name, s.Addr())
	<-stop
	s.Close()
}
