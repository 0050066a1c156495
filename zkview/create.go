package zkview

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/zklimit"
)

// CreateMode is the kind of node Create makes.
type CreateMode int

const (
	// Persistent stays until deleted.
	Persistent CreateMode = iota
	// Sequential is persistent, its name suffixed with the parent's next
	// sequence number (%010d).
	Sequential
	// Container is deleted by the server once it had children and has none
	// left (3.5.3+; recipes' parent directories).
	Container
	// TTL is persistent and deleted by the server once it has had no
	// children and no change for its TTL (3.5.3+, and only with
	// zookeeper.extendedTypesEnabled).
	TTL
	// Ephemeral dies with the session that created it: zkx's own.
	Ephemeral
)

func (m CreateMode) String() string {
	return [...]string{"persistent", "sequential", "container", "ttl", "ephemeral"}[m]
}

// CreateModes lists the modes, for a choice.
func CreateModes() []CreateMode {
	return []CreateMode{Persistent, Sequential, Container, TTL, Ephemeral}
}

// ParseCreateMode reads a mode's name.
func ParseCreateMode(s string) (CreateMode, error) {
	for _, m := range CreateModes() {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("mode %q: want persistent, sequential, container, ttl or ephemeral", s)
}

// ErrTTLDisabled is a TTL create refused because the server runs without
// extended types (ZooKeeper answers "unimplemented", error -6).
var ErrTTLDisabled = errors.New("TTL nodes are off: the server runs without zookeeper.extendedTypesEnabled=true (a Java system property, off by default)")

// MaxTTL is the longest TTL ZooKeeper keeps (EphemeralType.TTL: 40 bits of
// milliseconds, about 34 years).
const MaxTTL = (1<<40 - 1) * time.Millisecond

// CreateAs makes a node of the given mode with an open ACL and returns its
// path (under the chroot); ttl is the TTL of a TTL node (at least 1 ms).
func (w *Writer) CreateAs(ctx context.Context, path string, data []byte, mode CreateMode, ttl time.Duration) (string, error) {
	acl := zk.WorldACL(zk.PermAll)
	if err := zklimit.CheckCreate(w.client.Abs(path), data, acl); err != nil {
		return "", err
	}
	if mode == TTL && (ttl < time.Millisecond || ttl > MaxTTL) {
		return "", fmt.Errorf("TTL %v: ZooKeeper keeps TTLs from 1ms to %v", ttl, MaxTTL.Round(time.Hour))
	}
	created, err := do(ctx, w.client, "create", path, func(string) (string, error) {
		abs := w.client.Abs(path)
		var p string
		var err error
		switch mode {
		case Sequential:
			p, err = w.client.conn.Create(abs, data, zk.FlagSequence, acl)
		case Container:
			p, err = w.client.conn.CreateContainer(abs, data, zk.FlagContainer, acl)
		case TTL:
			p, err = w.client.conn.CreateTTL(abs, data, zk.FlagTTL, acl, ttl)
			// go-zookeeper v1.0.4 has no error for code -6: it formats it.
			if err != nil && err.Error() == "unknown error: -6" {
				err = ErrTTLDisabled
			}
		case Ephemeral:
			p, err = w.client.conn.Create(abs, data, zk.FlagEphemeral, acl)
		default:
			p, err = w.client.conn.Create(abs, data, zk.FlagPersistent, acl)
		}
		return w.client.Rel(p), err
	})
	return created, err
}
