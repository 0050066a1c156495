package lockstats

// Strategy is how a Mutex waiter waits; the node layout is the same. Chain
// is the recipe; Herd and Spin exist to show why (zkx demo).
type Strategy int

const (
	// Chain: each waiter watches its immediate predecessor, so a release
	// wakes one waiter, which then holds the lock without another read when
	// nothing else stood between them (and with the recipe's lookahead, the
	// default, without a read at all).
	Chain Strategy = iota
	// Herd: each waiter watches the holder; every release wakes every
	// waiter and each lists the children again.
	Herd
	// Spin: no watches and no queue: try to create a single "lock" node, and
	// on NodeExists sleep and try again, as a Redis SET NX lock does.
	Spin
)

func (st Strategy) String() string {
	switch st {
	case Herd:
		return "herd"
	case Spin:
		return "spin"
	}
	return "chain"
}
