package syslayout

import (
	"context"
	"fmt"
	"path"
	"strconv"
)

// SolrNodes are the Solr nodes of the layout.
var SolrNodes = []string{"solr-1:8983_solr", "solr-2:8983_solr"}

// Solr lays out a SolrCloud cluster under root (its chroot), as
// solr/core/src/java/org/apache/solr/cloud/LeaderElector.java and
// OverseerElectionContext.java write it: live_nodes/<node> (ephemeral, no
// data); the overseer election, overseer_elect/election/<session id in
// decimal>-<node>-n_SEQ (ephemeral sequential, no data; each candidate
// watches its predecessor with getData) and overseer_elect/leader
// (ephemeral, {"id": the leader's election node}); a shard leader
// election under collections/<c>/leader_elect/<shard>/election with
// leaders/<shard>/leader (ephemeral, the leader's core properties); and
// the overseer's work queues (ZkDistributedQueue, qn-SEQ, persistent
// sequential JSON).
func (l *Layout) Solr(ctx context.Context, root string) error {
	for i, node := range SolrNodes {
		if _, err := l.ephemeral(ctx, solrClient(i), path.Join(root, "live_nodes", node), nil, false); err != nil {
			return err
		}
	}
	election := func(dir string, ids []string) ([]string, error) {
		var names []string
		for i, id := range ids {
			sid, err := l.sessionID(solrClient(i))
			if err != nil {
				return nil, err
			}
			p, err := l.ephemeral(ctx, solrClient(i), path.Join(dir, strconv.FormatInt(sid, 10)+"-"+id+"-n_"), nil, true)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				if err := l.watch(solrClient(i), path.Join(dir, names[i-1])); err != nil {
					return nil, err
				}
			}
			names = append(names, path.Base(p))
		}
		return names, nil
	}
	names, err := election(path.Join(root, "overseer_elect/election"), SolrNodes)
	if err != nil {
		return err
	}
	if _, err := l.ephemeral(ctx, solrClient(0), path.Join(root, "overseer_elect/leader"), javaJSON(map[string]string{"id": names[0]}), false); err != nil {
		return err
	}
	coll := path.Join(root, "collections/products")
	if _, err := election(path.Join(coll, "leader_elect/shard1/election"), []string{"core_node2", "core_node4"}); err != nil {
		return err
	}
	props := javaJSON(map[string]string{"core": "products_shard1_replica_n1", "core_node_name": "core_node2",
		"base_url": "http://solr-1:8983/solr", "node_name": SolrNodes[0]})
	if _, err := l.ephemeral(ctx, solrClient(0), path.Join(coll, "leaders/shard1/leader"), props, false); err != nil {
		return err
	}
	work := []struct{ dir, op string }{
		{"overseer/queue", "state"}, {"overseer/queue", "leader"}, {"overseer/collection-queue-work", "create"},
	}
	for _, w := range work {
		item := javaJSON(map[string]string{"operation": w.op, "collection": "products", "shard": "shard1"})
		if _, err := l.sequential(ctx, path.Join(root, w.dir, "qn-"), item); err != nil {
			return err
		}
	}
	return nil
}

func solrClient(i int) string { return fmt.Sprintf("solr-%d", i+1) }
