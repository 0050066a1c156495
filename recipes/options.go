package recipes

import (
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// Option configures a recipe.
type Option func(*options)

type options struct {
	data      []byte
	acl       []zk.ACL
	format    Format
	lookahead bool
	// Set only by lockstats.RecipeOption (instruments.go), for zkx demo
	// and the lock benchmarks.
	strategy     lockstats.Strategy
	stats        *lockstats.Stats
	pollInterval time.Duration
	observer     lockstats.Observer
}

// WithData sets what a recipe writes into its nodes (default: "host pid",
// which tells an on-call engineer who holds what).
func WithData(data []byte) Option { return func(o *options) { o.data = data } }

// WithACL sets the ACL of the nodes a recipe creates (default: open).
func WithACL(acl []zk.ACL) Option { return func(o *options) { o.acl = acl } }

// WithFormat picks the node layout (default Curator).
func WithFormat(f Format) Option { return func(o *options) { o.format = f } }

// WithLookahead turns a Mutex waiter's lookahead on or off (default on).
// With it a waiter also watches the node before its predecessor, so it is
// always in that position when its turn comes: two notifications per
// release, no read on the handoff. WithLookahead(false) is the textbook
// recipe: one notification per release, and a read on the handoff for
// every waiter but the first.
func WithLookahead(on bool) Option { return func(o *options) { o.lookahead = on } }

func buildOptions(opts []Option) options {
	o := options{acl: zk.WorldACL(zk.PermAll), pollInterval: 10 * time.Millisecond, lookahead: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.data == nil {
		o.data = ownerData()
	}
	if o.stats == nil {
		o.stats = lockstats.NewStats()
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
