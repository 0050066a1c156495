package zkdial

import (
	"errors"
	"math/rand/v2"
	"sync"
)

// Hosts is a zk.HostProvider that hands out the servers as written
// (host:port), from a random one on, round and round; or, when Prefer
// lists them (Rank's order), from the first of Prefer on, in its order.
type Hosts struct {
	// Prefer is the order to try the servers in, first to last; servers
	// it leaves out come after it, as written.
	Prefer []string

	mu      sync.Mutex
	servers []string
	next    int
	tried   int // since the last connection
}

// Init implements zk.HostProvider.
func (h *Hosts) Init(servers []string) error {
	if len(servers) == 0 {
		return errors.New("no servers in the connect string")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.Prefer) == 0 {
		h.servers = append([]string(nil), servers...)
		h.next = rand.IntN(len(servers))
		return nil
	}
	h.servers, h.next = nil, 0
	known := map[string]bool{}
	for _, s := range servers {
		known[s] = true
	}
	for _, s := range h.Prefer {
		if known[s] {
			h.servers = append(h.servers, s)
			delete(known, s)
		}
	}
	for _, s := range servers {
		if known[s] {
			h.servers = append(h.servers, s)
		}
	}
	return nil
}

// Len implements zk.HostProvider.
func (h *Hosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next implements zk.HostProvider: the next server, and whether every
// server has been tried since the last connection (go-zookeeper then
// waits a moment before going round again).
func (h *Hosts) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	server = h.servers[h.next]
	h.next = (h.next + 1) % len(h.servers)
	h.tried++
	retryStart = h.tried > len(h.servers)
	if retryStart {
		h.tried = 1
	}
	return server, retryStart
}

// Connected implements zk.HostProvider.
func (h *Hosts) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tried = 0
}
