package recognize

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/internal/syslayout"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// The systems tests lay each system's nodes out on a server with the
// system's own paths, node modes and bytes (internal/syslayout, written
// from each system's source), every ephemeral node owned by its client's
// session and every candidate's watch set, then check what zkx recognises.

// sysScan is one system laid out and scanned by layOut: the scan, the
// system's root and the layout's sessions by client.
type sysScan struct {
	res      Result
	root     string
	sessions map[string]*zk.Conn
}

// layOut lays one system out under base/<root> and scans it with the
// servers' tables.
func layOut(t *testing.T, connect, root string, lay func(*syslayout.Layout, context.Context, string) error) sysScan {
	t.Helper()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	var mu sync.Mutex
	sessions := map[string]*zk.Conn{}
	l := syslayout.New(admin, func(name string) (*zk.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := sessions[name]; ok {
			return c, nil
		}
		c := zktest.Conn(t, connect)
		sessions[name] = c
		return c, nil
	}, time.Now().UnixMilli())
	rootPath := path.Join(base, root)
	if err := lay(l, context.Background(), rootPath); err != nil {
		t.Fatal(err)
	}
	in, err := introspect.Ask(context.Background(), connstr.ConnectString{Servers: strings.Split(connect, ",")}, introspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), dialTest(t, connect), base, Options{Tables: in.Tables()})
	if err != nil {
		t.Fatal(err)
	}
	return sysScan{res: res, root: rootPath, sessions: sessions}
}

// role finds the one recognised object of a role.
func (s sysScan) role(t *testing.T, system, role string) Recipe {
	t.Helper()
	var found []Recipe
	for _, r := range s.res.All() {
		if i := r.Info(); i.System == system && i.Role == role {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		var all []string
		for _, r := range s.res.All() {
			i := r.Info()
			all = append(all, fmt.Sprintf("%s %s/%s %s", i.Path, i.System, i.Role, i.Kind))
		}
		t.Fatalf("%d objects of %s/%s, want 1; found:\n%s", len(found), system, role, strings.Join(all, "\n"))
	}
	return found[0]
}

// roleAs finds the one recognised object of a role, of type T.
func roleAs[T Recipe](t *testing.T, s sysScan, system, role string) T {
	t.Helper()
	r, ok := s.role(t, system, role).(T)
	if !ok {
		t.Fatalf("%s/%s is a %T, not a %T", system, role, s.role(t, system, role), r)
	}
	return r
}

// checkLeader checks an election's leader: its data, and that its session
// is the named client's.
func (s sysScan) checkLeader(t *testing.T, e *Election, client, data string) {
	t.Helper()
	if e.Leader == nil {
		t.Fatalf("%s: no leader", e.Path)
	}
	if e.Leader.Data != data {
		t.Errorf("%s: leader data %q, want %q", e.Path, e.Leader.Data, data)
	}
	if want := s.sessions[client].SessionID(); e.Leader.SessionID != want {
		t.Errorf("%s: leader session %s, want %s's %s", e.Path, e.Leader.Session, client, sessionText(want))
	}
	if e.Leader.Client == "" || e.Leader.AgeMs < 0 {
		t.Errorf("%s: leader %+v has no client from the servers", e.Path, e.Leader)
	}
}

// checkCandidates checks the candidates' sessions (in order) and data.
func (s sysScan) checkCandidates(t *testing.T, cs []Contender, clients []string, data []string) {
	t.Helper()
	if len(cs) != len(clients) {
		t.Fatalf("%d candidates %+v, want %d", len(cs), cs, len(clients))
	}
	for i, c := range cs {
		if want := s.sessions[clients[i]].SessionID(); c.SessionID != want {
			t.Errorf("candidate %d: session %s, want %s's", i, c.Session, clients[i])
		}
		if c.Data != data[i] {
			t.Errorf("candidate %d: data %q, want %q", i, c.Data, data[i])
		}
		if c.Watch != WatchObserved {
			t.Errorf("candidate %d: watch %q, want observed (its watch is in the server's table)", i, c.Watch)
		}
	}
}

func warningsContain(t *testing.T, what string, warnings []string, want ...string) {
	t.Helper()
	all := strings.Join(warnings, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("%s: no warning with %q in:\n%s", what, w, all)
		}
	}
	if len(want) == 0 && len(warnings) > 0 {
		t.Errorf("%s: unexpected warnings:\n%s", what, all)
	}
}

func membersData(g *Group) string {
	var out []string
	for _, m := range g.Members {
		out = append(out, m.Data)
	}
	return strings.Join(out, " | ")
}

func TestSystemKafka(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		s := layOut(t, connect, "kafka", (*syslayout.Layout).Kafka)
		e := roleAs[*Election](t, s, "kafka", "controller")
		if e.Path != s.root+"/controller" || e.SystemRoot != s.root {
			t.Errorf("controller at %s, root %s", e.Path, e.SystemRoot)
		}
		s.checkLeader(t, e, "kafka-broker-1", "broker 1 · epoch 7")
		if len(e.Candidates) != 2 {
			t.Fatalf("candidates %+v, want the 2 other brokers watching /controller", e.Candidates)
		}
		var cands []string
		for _, c := range e.Candidates {
			cands = append(cands, c.Data+" "+c.Watch)
		}
		if got := strings.Join(cands, ","); got != "broker 2 observed,broker 3 observed" && got != "broker 3 observed,broker 2 observed" {
			t.Errorf("candidates %s", got)
		}
		warningsContain(t, "controller", e.Warnings,
			"controller epoch went backwards: controller_epoch is 7 but orders-1 written under epoch 8",
			"1 partitions led by no live broker: orders-1 (leader 4)")
		g := roleAs[*Group](t, s, "kafka", "brokers")
		if got := membersData(g); got != "broker 1 · PLAINTEXT://kafka-1:9092 | broker 2 · PLAINTEXT://kafka-2:9092 | broker 3 · PLAINTEXT://kafka-3:9092" {
			t.Errorf("brokers %s", got)
		}
		for role, n := range map[string]int{"isr-change": 2, "config-change": 1, "log-dir-event": 1, "delete-topics": 1, "reassign-partitions": 1} {
			if q := roleAs[*Queue](t, s, "kafka", role); q.Length != n || len(q.Items) != n {
				t.Errorf("%s: length %d, %d items, want %d", role, q.Length, len(q.Items), n)
			}
		}
		if it := roleAs[*Queue](t, s, "kafka", "reassign-partitions").Items[0]; it.Data != "move orders-1 to brokers [1,2,3]" {
			t.Errorf("reassignment %q", it.Data)
		}
		if it := roleAs[*Queue](t, s, "kafka", "isr-change").Items[0]; !strings.Contains(it.Data, `"topic":"orders"`) {
			t.Errorf("isr change %q", it.Data)
		}
		sums := Systems(s.res)
		if len(sums) != 1 || sums[0].System != "kafka" || sums[0].Root != s.root || len(sums[0].Leaders) != 1 ||
			len(sums[0].Members) != 1 || len(sums[0].Queues) != 5 || len(sums[0].Warnings) != 2 {
			t.Errorf("summary %+v", sums)
		}
	})
}

func TestSystemHBase(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		s := layOut(t, connect, "hbase", (*syslayout.Layout).HBase)
		e := roleAs[*Election](t, s, "hbase", "active-master")
		s.checkLeader(t, e, syslayout.HBaseActiveMaster, "hmaster-1:16000")
		s.checkCandidates(t, e.Candidates, []string{syslayout.HBaseBackupMaster}, []string{"hmaster-2:16000"})
		if !strings.HasPrefix(e.Candidates[0].Node, s.root+"/backup-masters/hmaster-2,16000,") || e.Candidates[0].WaitsFor != e.Path {
			t.Errorf("backup master %+v", e.Candidates[0])
		}
		warningsContain(t, "master", e.Warnings)
		g := roleAs[*Group](t, s, "hbase", "region-servers")
		if got := membersData(g); got != "hbase-rs-1:16020 · info port 16030 · 2.5.8 | hbase-rs-2:16020 · info port 16030 · 2.5.8" {
			t.Errorf("region servers %s", got)
		}
		warningsContain(t, "rs", g.Warnings)
		l, ok := s.role(t, "hbase", "table-lock").(*Lock)
		if !ok || l.Recipe != "rwlock" || len(l.Holders) != 1 || len(l.Waiters) != 1 {
			t.Fatalf("table lock %+v", s.role(t, "hbase", "table-lock"))
		}
		if l.Holders[0].Kind != "write" || l.Holders[0].Data != "hmaster-1:16000 · alter" || l.Waiters[0].Data != "hbase-rs-2:16000 · region split" {
			t.Errorf("table lock holder %+v waiter %+v", l.Holders[0], l.Waiters[0])
		}
		if l.Waiters[0].Watch != WatchObserved {
			t.Errorf("table lock reader's watch %q, want observed", l.Waiters[0].Watch)
		}
		warningsContain(t, "table lock", l.Warnings)
		// Nothing else is the master election: backup-masters is part of it.
		if n := len(s.res.Elections); n != 1 {
			t.Errorf("%d elections, want 1", n)
		}
	})
}

func TestSystemHadoopHA(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		s := layOut(t, connect, "hadoop", (*syslayout.Layout).Hadoop)
		nn := roleAs[*Election](t, s, "hdfs", "active-namenode")
		s.checkLeader(t, nn, "zkfc-nn1", "nn1 at namenode-1:8020 (ns1)")
		s.checkCandidates(t, nn.Candidates, []string{"zkfc-nn2"}, []string{""})
		warningsContain(t, "hdfs", nn.Warnings)
		rm := roleAs[*Election](t, s, "yarn", "active-resourcemanager")
		s.checkLeader(t, rm, "yarn-rm1", "rm1 (yarn-cluster)")
		s.checkCandidates(t, rm.Candidates, []string{"yarn-rm2"}, []string{""})
		warningsContain(t, "yarn", rm.Warnings, "ActiveBreadCrumb names rm2 (yarn-cluster) but the lock is held by rm1 (yarn-cluster)")
		if n := len(s.res.Elections) + len(s.res.Locks); n != 2 {
			t.Errorf("%d elections and locks, want the 2 electors (the breadcrumbs are part of them)", n)
		}
	})
}

func TestSystemSolr(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		s := layOut(t, connect, "solr", (*syslayout.Layout).Solr)
		o := roleAs[*Election](t, s, "solr", "overseer")
		s.checkLeader(t, o, "solr-1", "solr-1:8983_solr")
		s.checkCandidates(t, o.Candidates, []string{"solr-2"}, []string{"solr-2:8983_solr"})
		warningsContain(t, "overseer", o.Warnings)
		if o.SystemRoot != s.root {
			t.Errorf("overseer root %s, want %s", o.SystemRoot, s.root)
		}
		sh := roleAs[*Election](t, s, "solr", "shard-leader")
		s.checkLeader(t, sh, "solr-1", "core_node2")
		s.checkCandidates(t, sh.Candidates, []string{"solr-2"}, []string{"core_node4"})
		warningsContain(t, "shard", sh.Warnings)
		if sh.SystemRoot != s.root {
			t.Errorf("shard leader root %s, want %s", sh.SystemRoot, s.root)
		}
		if g := roleAs[*Group](t, s, "solr", "live-nodes"); len(g.Members) != 2 {
			t.Errorf("live nodes %+v", g.Members)
		}
		if q := roleAs[*Queue](t, s, "solr", "overseer-queue"); q.Length != 2 || !strings.HasPrefix(q.Items[0].Data, "state ") {
			t.Errorf("overseer queue %+v", q)
		}
		if q := roleAs[*Queue](t, s, "solr", "collection-work-queue"); q.Length != 1 {
			t.Errorf("collection queue %+v", q)
		}
		if n := len(s.res.Elections); n != 2 {
			t.Errorf("%d elections, want 2 (the leader nodes are part of them)", n)
		}
	})
}

func TestSystemHelix(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		s := layOut(t, connect, "helix", (*syslayout.Layout).Helix)
		e := roleAs[*Election](t, s, "helix", "controller")
		s.checkLeader(t, e, "helix-controller-1", "controller-1 (4711@ctrl-host-1, helix 1.0.4)")
		s.checkCandidates(t, e.Candidates, []string{"helix-controller-2"}, []string{""})
		warningsContain(t, "controller", e.Warnings)
		if e.SystemRoot != s.root+"/"+syslayout.HelixCluster {
			t.Errorf("root %s", e.SystemRoot)
		}
		g := roleAs[*Group](t, s, "helix", "live-instances")
		if got := membersData(g); got != "participant_1 (4711@participant_1.example.com, helix 1.0.4) | participant_2 (4711@participant_2.example.com, helix 1.0.4)" {
			t.Errorf("live instances %s", got)
		}
		warningsContain(t, "live instances", g.Warnings)
	})
}

func TestSystemDiscoveryClickHouseBookKeeper(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		d := layOut(t, connect, "discovery", (*syslayout.Layout).Discovery)
		var services []string
		for _, g := range d.res.Groups {
			if g.System != "curator-discovery" || g.Role != "service-instances" {
				t.Errorf("group %s is %s/%s", g.Path, g.System, g.Role)
			}
			services = append(services, path.Base(g.Path)+": "+membersData(&g))
		}
		if got := strings.Join(services, "; "); got != "billing: billing 10.0.8.1:8443; search-api: search-api 10.0.7.1:8080 | search-api 10.0.7.2:8080" {
			t.Errorf("services %s", got)
		}
		if len(d.res.Barriers) != 0 {
			t.Errorf("instances taken for a double barrier: %+v", d.res.Barriers)
		}

		c := layOut(t, connect, "clickhouse", (*syslayout.Layout).ClickHouse)
		q := roleAs[*Queue](t, c, "clickhouse", "ddl-queue")
		if q.Length != 1 || q.Items[0].Node != "query-0000000001" ||
			!strings.HasSuffix(q.Items[0].Data, "ADD COLUMN country String · done on 1 of 2 hosts · running on ch-2:9000") {
			t.Errorf("ddl queue %+v", q)
		}

		b := layOut(t, connect, "bookkeeper", (*syslayout.Layout).BookKeeper)
		if got := membersData(roleAs[*Group](t, b, "bookkeeper", "available-bookies")); got != "bookie-rpc://bookie-1:3181 | bookie-rpc://bookie-2:3181" {
			t.Errorf("bookies %s", got)
		}
		if g := roleAs[*Group](t, b, "bookkeeper", "readonly-bookies"); len(g.Members) != 1 || g.Members[0].Node != "bookie-3:3181" {
			t.Errorf("read-only bookies %+v", g.Members)
		}
		a := roleAs[*Election](t, b, "bookkeeper", "auditor")
		b.checkLeader(t, a, "bookie-1", "bookie-1:3181")
		b.checkCandidates(t, a.Candidates, []string{"bookie-2"}, []string{"bookie-2:3181"})
		warningsContain(t, "auditor", a.Warnings)
	})
}

func TestSystemLatches(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		s := layOut(t, connect, "storm", (*syslayout.Layout).Storm)
		e := roleAs[*Election](t, s, "storm", "nimbus-leader")
		s.checkLeader(t, e, "nimbus-1", "nimbus-1:6627")
		if e.Format != "curator" || e.SystemRoot != s.root {
			t.Errorf("storm latch %s at root %s", e.Format, e.SystemRoot)
		}
		d := layOut(t, connect, "druid", (*syslayout.Layout).Druid)
		d.checkLeader(t, roleAs[*Election](t, d, "druid", "coordinator-leader"), "druid-coordinator-1", "http://druid-coord-1:8081")
		d.checkLeader(t, roleAs[*Election](t, d, "druid", "overlord-leader"), "druid-overlord-1", "http://druid-overlord-1:8090")
	})
}
