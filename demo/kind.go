package demo

import (
	"fmt"
	"strings"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// Kind is a lane's lock: one of the three ZooKeeper waiting strategies, or
// Redis.
type Kind string

// The lanes, in the order they are shown and run.
const (
	Chain Kind = "chain"
	Herd  Kind = "herd"
	Spin  Kind = "spin"
	Redis Kind = "redis"
)

// Kinds are every lane, in order.
var Kinds = []Kind{Chain, Herd, Spin, Redis}

// ParseKinds reads a comma-separated list of lanes ("chain,redis"), keeping
// the usual order and dropping repeats.
func ParseKinds(list string) ([]Kind, error) {
	want := map[Kind]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(strings.ToLower(name))
		if name == "" {
			continue
		}
		k := Kind(name)
		if !k.valid() {
			return nil, fmt.Errorf("unknown lane %q: the lanes are chain, herd, spin and redis", name)
		}
		want[k] = true
	}
	var out []Kind
	for _, k := range Kinds {
		if want[k] {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no lane named: the lanes are chain, herd, spin and redis")
	}
	return out, nil
}

func (k Kind) valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// ZooKeeper reports whether the lane locks on ZooKeeper (the others lock
// on Redis).
func (k Kind) ZooKeeper() bool { return k != Redis }

// Fenced reports whether the lane's lock has a fencing token (the lock
// node's czxid) a resource can check: every ZooKeeper lane, spin
// included; a Redis lease has none.
func (k Kind) Fenced() bool { return k.ZooKeeper() }

// strategy is a ZooKeeper lane's waiting strategy.
func (k Kind) strategy() lockstats.Strategy {
	switch k {
	case Herd:
		return lockstats.Herd
	case Spin:
		return lockstats.Spin
	}
	return lockstats.Chain
}

// Explanation says in one line what the lane shows.
func (k Kind) Explanation() string {
	switch k {
	case Herd:
		return "every waiter watches the holder: a release wakes them all, and they all list the children again"
	case Spin:
		return "no watches, no queue: try to create one lock node, sleep, try again, as a Redis SET NX lock does"
	case Redis:
		return "SET key token NX PX lease, retried every poll; a watchdog renews the lease; no fencing token"
	}
	return "each waiter watches the node just ahead of it: a release wakes one waiter"
}

// HasRedis reports whether the redis lane is among kinds.
func HasRedis(kinds []Kind) bool {
	for _, k := range kinds {
		if k == Redis {
			return true
		}
	}
	return false
}

// ZooKeeperLanes counts the lanes that open ZooKeeper sessions.
func ZooKeeperLanes(kinds []Kind) int {
	n := 0
	for _, k := range kinds {
		if k.ZooKeeper() {
			n++
		}
	}
	return n
}
