package demo

import (
	"context"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/syslayout"
)

// seedSystems lays out the coordination nodes of Kafka, HBase, Hadoop HA,
// Solr, Helix, Curator discovery, ClickHouse, BookKeeper, Storm and Druid
// under systems/ (internal/syslayout: their paths and bytes), each client's
// ephemeral nodes in a session of its own that lives as long as the demo,
// and each candidate's watch set, so that :systems and the tree show them
// as they are on a real cluster.
func (s *Seeded) seedSystems(ctx context.Context) error {
	var mu sync.Mutex
	clients := map[string]*zk.Conn{}
	sessions := func(name string) (*zk.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := clients[name]; ok {
			return c, nil
		}
		sess, err := s.dial()
		if err != nil {
			return nil, err
		}
		clients[name] = sess.Conn()
		return sess.Conn(), nil
	}
	l := syslayout.New(s.admin.Conn(), sessions, time.Now().UnixMilli())
	return l.All(ctx, path.Join(s.Base, SeedPaths.Systems))
}
