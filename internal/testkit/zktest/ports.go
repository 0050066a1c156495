package zktest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// handedOut remembers every port given to a real server by this test
// binary, so that parallel tests never pick the same one: a port is free
// only between our close and the JVM's bind.
var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// freePorts returns n distinct free loopback ports, each bound and closed
// only after all n are chosen. They come from below the kernel's
// ephemeral range where it can be read (see pickableRange), else from
// binding 127.0.0.1:0.
func freePorts(n int) ([]int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	var held []net.Listener
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	low, high, ranged := pickableRange()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("no %d distinct free loopback ports after %d tries", n, tries)
		}
		addr := "127.0.0.1:0"
		if ranged {
			addr = fmt.Sprintf("127.0.0.1:%d", low+rand.IntN(high-low+1))
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			if ranged {
				continue // in use: another pick
			}
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

// ephemeralRangeFile is where Linux keeps the range of ports outgoing
// connections (and binds to port 0) are given.
const ephemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// pickableRange is where freePorts picks ports: from 10000 to just below
// the ephemeral range. A port from the ephemeral range is free only until
// our close, and in a suite of hundreds of clients and JVMs an outgoing
// connection could take it before the server given it binds: a member's
// AdminServer, which ZooKeeper starts after a failed bind without it,
// then never answered. ok is false where the range cannot be read or
// leaves fewer than 1000 ports below it.
func pickableRange() (low, high int, ok bool) {
	b, err := os.ReadFile(ephemeralRangeFile)
	if err != nil {
		return 0, 0, false
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 0, 0, false
	}
	ephemeralLow, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, 0, false
	}
	const pickFrom = 10000
	if ephemeralLow-pickFrom < 1000 {
		return 0, 0, false
	}
	return pickFrom, ephemeralLow - 1, true
}
