package zktest

import (
	"fmt"
	"net"
	"sync"
)

// handedOut remembers every port given to a real server by this test
// binary, so that parallel tests never pick the same one: a port is free
// only between our close and the JVM's bind.
var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// freePorts returns n distinct free loopback ports: bind 127.0.0.1:0, read
// the port, and close only after all n are chosen.
func freePorts(n int) ([]int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	var held []net.Listener
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("no %d distinct free loopback ports after %d tries", n, tries)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free port: %w", err)
		}
		held = append(held, ln)
		port := ln.Addr().(*net.TCPAddr).Port
		if handedOut[port] {
			continue
		}
		ports = append(ports, port)
	}
	for _, p := range ports {
		handedOut[p] = true
	}
	return ports, nil
}
