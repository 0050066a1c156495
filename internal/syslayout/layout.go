package syslayout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"

	"github.com/go-zookeeper/zk"
)

// Sessions gives the session of a named client ("kafka-broker-1"), the
// same one every time it is asked for that name: what the client creates
// as ephemeral is owned by it and goes when it closes.
type Sessions func(name string) (*zk.Conn, error)

// Layout writes the nodes of one or more systems under a base path.
type Layout struct {
	admin    *zk.Conn
	sessions Sessions
	// Started is the start code / registration time written into the
	// nodes (milliseconds since the epoch).
	Started int64
}

// New lays out with admin (persistent nodes) and sessions (each client's
// ephemeral nodes and watches).
func New(admin *zk.Conn, sessions Sessions, started int64) *Layout {
	return &Layout{admin: admin, sessions: sessions, Started: started}
}

// Roots names the systems' roots: each system lives under its own root
// below the base (as with a chroot).
var Roots = struct {
	Kafka, HBase, Hadoop, Solr, Helix, Discovery, ClickHouse, BookKeeper, Storm, Druid string
}{
	Kafka: "kafka", HBase: "hbase", Hadoop: "hadoop", Solr: "solr", Helix: "helix",
	Discovery: "discovery", ClickHouse: "clickhouse", BookKeeper: "bookkeeper", Storm: "storm", Druid: "druid",
}

// All lays out every system under base (base/kafka, base/hbase, …).
func (l *Layout) All(ctx context.Context, base string) error {
	steps := []struct {
		root string
		lay  func(context.Context, string) error
	}{
		{Roots.Kafka, l.Kafka}, {Roots.HBase, l.HBase}, {Roots.Hadoop, l.Hadoop}, {Roots.Solr, l.Solr},
		{Roots.Helix, l.Helix}, {Roots.Discovery, l.Discovery}, {Roots.ClickHouse, l.ClickHouse},
		{Roots.BookKeeper, l.BookKeeper}, {Roots.Storm, l.Storm}, {Roots.Druid, l.Druid},
	}
	for _, s := range steps {
		if err := s.lay(ctx, path.Join(base, s.root)); err != nil {
			return fmt.Errorf("lay out %s: %w", s.root, err)
		}
	}
	return nil
}

// persistent creates a persistent node and its parents (a node that
// exists gets the data).
func (l *Layout) persistent(ctx context.Context, p string, data []byte) error {
	if err := l.parents(ctx, p); err != nil {
		return err
	}
	if _, err := l.admin.Create(p, data, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
		if !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
		if _, err := l.admin.Set(p, data, -1); err != nil {
			return fmt.Errorf("set %s: %w", p, err)
		}
	}
	return nil
}

// sequential creates a persistent sequential node; it returns its path.
func (l *Layout) sequential(ctx context.Context, prefix string, data []byte) (string, error) {
	if err := l.parents(ctx, prefix); err != nil {
		return "", err
	}
	p, err := l.admin.Create(prefix, data, zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		return "", fmt.Errorf("create %s: %w", prefix, err)
	}
	return p, nil
}

func (l *Layout) parents(ctx context.Context, p string) error {
	var dirs []string
	for dir := path.Dir(p); dir != "/" && dir != "."; dir = path.Dir(dir) {
		dirs = append([]string{dir}, dirs...)
	}
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := l.admin.Create(dir, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	return nil
}

// ephemeral creates an ephemeral node (sequential with seq) in the named
// client's session; it returns the node's path.
func (l *Layout) ephemeral(ctx context.Context, client, p string, data []byte, seq bool) (string, error) {
	if err := l.parents(ctx, p); err != nil {
		return "", err
	}
	conn, err := l.sessions(client)
	if err != nil {
		return "", fmt.Errorf("session of %s: %w", client, err)
	}
	flags := int32(zk.FlagEphemeral)
	if seq {
		flags |= zk.FlagSequence
	}
	created, err := conn.Create(p, data, flags, zk.WorldACL(zk.PermAll))
	if err != nil {
		return "", fmt.Errorf("create %s as %s: %w", p, client, err)
	}
	return created, nil
}

// watch sets the named client's data watch on p, as a candidate waiting
// for it does (exists or getData: both are data watches to the server).
func (l *Layout) watch(client, p string) error {
	conn, err := l.sessions(client)
	if err != nil {
		return fmt.Errorf("session of %s: %w", client, err)
	}
	if _, _, _, err := conn.ExistsW(p); err != nil {
		return fmt.Errorf("watch %s as %s: %w", p, client, err)
	}
	return nil
}

// sessionID is the named client's session id.
func (l *Layout) sessionID(client string) (int64, error) {
	conn, err := l.sessions(client)
	if err != nil {
		return 0, err
	}
	return conn.SessionID(), nil
}

// javaJSON marshals as Kafka's and Solr's Jackson writers do for maps
// (compact; the key order of a Java map is not specified, so readers must
// not depend on it).
func javaJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only ever given maps of plain values
	}
	return b
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }
