package recipes

import (
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
)

// Strategy is how a Mutex waiter waits; the node layout is the same. Chain
// is the recipe; Herd and Spin exist to show why (zkx demo).
type Strategy int

const (
	// Chain: each waiter watches its immediate predecessor, so a release
	// wakes one waiter, which then holds the lock without another read when
	// nothing else stood between them. With lookahead (the default) a waiter
	// also watches the node before its predecessor, so it is always in that
	// position when its turn comes: two notifications per release, no read
	// on the handoff. WithLookahead(false) is the textbook recipe: one
	// notification per release, and a read on the handoff for every waiter
	// but the first.
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

// Option configures a recipe.
type Option func(*options)

type options struct {
	data         []byte
	acl          []zk.ACL
	format       Format
	strategy     Strategy
	stats        *Stats
	pollInterval time.Duration
	lookahead    bool
	observer     Observer
}

// WithData sets what a recipe writes into its nodes (default: "host pid",
// which tells an on-call engineer who holds what).
func WithData(data []byte) Option { return func(o *options) { o.data = data } }

// WithACL sets the ACL of the nodes a recipe creates (default: open).
func WithACL(acl []zk.ACL) Option { return func(o *options) { o.acl = acl } }

// WithFormat picks the node layout (default Curator).
func WithFormat(f Format) Option { return func(o *options) { o.format = f } }

// WithStrategy picks how a Mutex waits (default Chain).
func WithStrategy(s Strategy) Option { return func(o *options) { o.strategy = s } }

// WithStats makes a recipe count into st, shared with others.
func WithStats(st *Stats) Option { return func(o *options) { o.stats = st } }

// WithLookahead turns the Chain strategy's lookahead on or off (default on).
func WithLookahead(on bool) Option { return func(o *options) { o.lookahead = on } }

// WithPollInterval sets how long a Spin waiter sleeps between attempts
// (default 10ms).
func WithPollInterval(d time.Duration) Option { return func(o *options) { o.pollInterval = d } }

func buildOptions(opts []Option) options {
	o := options{acl: zk.WorldACL(zk.PermAll), pollInterval: 10 * time.Millisecond, lookahead: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.data == nil {
		o.data = ownerData()
	}
	if o.stats == nil {
		o.stats = NewStats()
	}
	return o
}

// ownerData identifies this process in the nodes it creates.
func ownerData() []byte {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return []byte(fmt.Sprintf("%s %d", host, os.Getpid()))
}
