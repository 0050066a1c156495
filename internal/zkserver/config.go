package zkserver

import (
	"log/slog"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
)

// Config tunes the server. The zero value gives ZooKeeper's timing
// defaults (2 s ticks, sessions between 4 s and 40 s) with every
// four-letter word allowed and no bounds (zkx serve sets ZooKeeper's
// maxClientCnxns and whitelist, and bounds the tree and the watches).
type Config struct {
	// TickTime is ZooKeeper's basic time unit; the session timeout bounds
	// default to 2 and 20 ticks.
	TickTime time.Duration
	// MinSessionTimeout and MaxSessionTimeout bound what clients may ask for.
	MinSessionTimeout time.Duration
	MaxSessionTimeout time.Duration
	// FourLetterWords lists the allowed four-letter words; nil allows all
	// (ZooKeeper's 4lw.commands.whitelist=*).
	FourLetterWords []string
	// SuperDigest, as "super:<base64 sha1>", makes a client that adds the
	// matching digest credentials bypass every ACL.
	SuperDigest string
	// Logger receives connection and session events; nil discards them.
	Logger *slog.Logger
	// Clock stamps nodes (ctime, mtime) and the connections' last answers
	// (cons lresp), and seeds session ids; nil is time.Now. Tests fix it
	// to draw the same screens on every run. Timeouts and expiry always
	// run on real time.
	Clock func() time.Time
	// NoMultiRead answers multiRead as a ZooKeeper before 3.6 does, as an
	// unimplemented request: for testing clients' fallbacks.
	NoMultiRead bool
	// UnknownOps are op codes answered as by a server that does not know
	// them (ZooKeeper's UnimplementedRequestProcessor: error -6, then the
	// connection closes), as a server before 3.6 answers addWatch (106)
	// and before 3.7 whoAmI (107): for testing clients' fallbacks.
	UnknownOps []jute.Op
	// NoExtendedTypes refuses TTL nodes as a ZooKeeper started without
	// zookeeper.extendedTypesEnabled does: a create with a TTL mode is
	// answered unimplemented (error -6) and the session goes on.
	NoExtendedTypes bool
	// SASLUsers, when not empty, accepts SASL DIGEST-MD5 with these users
	// and passwords, as a ZooKeeper whose JAAS Server section holds a
	// DigestLoginModule does; an authenticated session has the id
	// sasl:USER. Empty: SASL packets are answered as by a ZooKeeper
	// without SASL (an empty token).
	SASLUsers map[string]string
	// SASLRequired closes, with error -124, any session that sends a
	// request before it authenticated with SASL
	// (sessionRequireClientSASLAuth).
	SASLRequired bool
	// MaxClientCnxns bounds the connections from one client address, as
	// ZooKeeper's maxClientCnxns (60 by default there): one more is closed
	// at once, unanswered. 0: no bound.
	MaxClientCnxns int
	// MaxTreeBytes bounds the tree's size (TreeBytes: paths, data, ACLs and
	// a fixed overhead per node): a create or setData that would grow it
	// past is refused with QUOTAEXCEEDED, as ZooKeeper refuses a write past
	// an enforced quota. 0: no bound.
	MaxTreeBytes int64
	// MaxWatches bounds the watches set on the server, all sessions
	// together: a request that would set one more is refused, not
	// executed, with THROTTLEDOP. 0: no bound.
	MaxWatches int
	// ReadOnly makes a server that shows a state its caller builds through
	// Past (a past moment rebuilt from a data directory): every write is
	// refused with NOTREADONLY, as a read-only ZooKeeper does; its own
	// clients' sessions take no zxid; a client that saw a later zxid is not
	// turned away (the caller may step back in time); and nothing is
	// removed on the server's own initiative (TTL, containers): the logs
	// say when that happened.
	ReadOnly bool
}

func (c Config) withDefaults() Config {
	if c.TickTime <= 0 {
		c.TickTime = 2 * time.Second
	}
	if c.TickTime < time.Millisecond {
		c.TickTime = time.Millisecond // ZooKeeper counts ticks in whole milliseconds
	}
	if c.MinSessionTimeout <= 0 {
		c.MinSessionTimeout = 2 * c.TickTime
	}
	if c.MaxSessionTimeout <= 0 {
		c.MaxSessionTimeout = 20 * c.TickTime
	}
	if c.MaxSessionTimeout < c.MinSessionTimeout {
		c.MaxSessionTimeout = c.MinSessionTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	return c
}

// unknownOp reports whether op is one of UnknownOps.
func (c Config) unknownOp(op jute.Op) bool {
	for _, o := range c.UnknownOps {
		if o == op {
			return true
		}
	}
	return false
}

func (c Config) fourLetterAllowed(cmd string) bool {
	if c.FourLetterWords == nil {
		return true
	}
	for _, w := range c.FourLetterWords {
		if w == cmd || w == "*" {
			return true
		}
	}
	return false
}
