package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/promtest"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// The exporter's tests in a real Prometheus. Each waits some five seconds
// for Prometheus's first scrape (promtest.Start): best while the package's
// other tests keep the cores busy, not at its end. Hence a file whose name
// sorts last: once the parallel tests may go on, go test starts the
// first-declared one and then the others in the order the scheduler wakes
// them, on a quiet machine (Go 1.26) from the last-declared back. Under
// load that order is lost, and they may still start late.

// shippedRules is the repo's alert rules, from this package's directory.
const shippedRules = "../docs/alerts/zkx.rules.yml"

// exporterRefresh is the exporter's --tables-every in the Prometheus
// tests: as often as Prometheus scrapes it, so that a change in the
// servers' tables reaches a scrape within an interval.
var exporterRefresh = promtest.DefaultInterval.String()

// TestExporterInPrometheus: real Prometheus scrapes the exporter, with
// the repo's rules (their for: shortened to promtest.ShortFor), on real
// ZooKeeper 3.8 where a Curator InterProcessMutex holds and a Kazoo Lock
// without extra_lock_patterns takes the lock too (Kazoo sees only its own
// names): a real two-holder lock. The series and ZkxLockTwoHolders fire
// with the lock's path and recipe; when the Kazoo contender releases, the
// alert clears. Then the Curator holder is frozen (SIGSTOP):
// silent-holder. Prometheus starts first, so that its first scrape, five
// seconds on (promtest.Start), comes while the peers start.
func TestExporterInPrometheus(t *testing.T) {
	t.Parallel()
	exporterPort := holdPort(t)
	prom := promtest.Start(t, promtest.Config{Targets: []string{exporterPort.Addr().String()}, RuleFiles: []string{shippedRules}, ShortenFor: promtest.ShortFor})
	connect := zktest.Shared(t)
	base := zktest.Path(t)
	dir := base + "/lock"
	cur := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	cur.WaitLine(t, 0, "HOLDING")
	kz := zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout)
	kz.WaitLine(t, 0, "HOLDING") // Kazoo itself says it holds

	startExporterOn(t, exporterPort, "--server", connect, "exporter", "--tables-every", exporterRefresh, base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := prom.WaitScraped(ctx, "up"); err != nil {
		t.Fatal(err)
	}
	lock := map[string]string{"path": dir, "kind": "two-holders", "recipe": "mutex"}
	firing, err := prom.WaitAlert(ctx, "ZkxLockTwoHolders", "firing", lock)
	if err != nil {
		t.Fatal(err)
	}
	if firing.Labels["severity"] != "critical" || firing.Labels["job"] != promtest.DefaultJob ||
		!strings.Contains(firing.Annotations["summary"], "zkx locks -l "+dir) {
		t.Errorf("ZkxLockTwoHolders: labels %v, summary %q", firing.Labels, firing.Annotations["summary"])
	}
	logAlerts(t, ctx, prom, "firing")
	holders, err := prom.WaitQuery(ctx, fmt.Sprintf("zkx_lock_holders{path=%q}", dir), func(s []promtest.Sample) bool { return len(s) == 1 })
	if err != nil || holders[0].Value != 2 {
		t.Errorf("zkx_lock_holders{path=%q} = %+v, %v; want 2", dir, holders, err)
	}
	if up, err := prom.Query(ctx, "zkx_up"); err != nil || len(up) != 1 || up[0].Value != 1 {
		t.Errorf("zkx_up = %+v, %v; want 1", up, err)
	}
	members, err := prom.Query(ctx, "zkx_member_up")
	if err != nil || len(members) == 0 || members[0].Value != 1 {
		t.Errorf("zkx_member_up = %+v, %v; want each member up", members, err)
	}

	kz.Send(t, "release")
	if err := prom.WaitNoAlert(ctx, "ZkxLockTwoHolders", lock); err != nil {
		t.Fatal(err)
	}
	if _, err := prom.WaitQuery(ctx, fmt.Sprintf("zkx_lock_holders{path=%q} == 1", dir), func(s []promtest.Sample) bool { return len(s) == 1 }); err != nil {
		t.Fatal(err)
	}
	logAlerts(t, ctx, prom, "cleared")

	// A frozen holder: its server stops hearing from it, and after a
	// third of its session timeout it is silent.
	cur.Pause(t)
	silent := map[string]string{"path": dir, "kind": "silent-holder"}
	if _, err := prom.WaitAlert(ctx, "ZkxLockHolderSilent", "firing", silent); err != nil {
		t.Fatal(err)
	}
	cur.Resume(t)
	if err := prom.WaitNoAlert(ctx, "ZkxLockHolderSilent", silent); err != nil {
		t.Fatal(err)
	}
}

// logAlerts logs /api/v1/alerts as Prometheus answers it, for the record.
func logAlerts(t *testing.T, ctx context.Context, prom *promtest.Server, when string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, prom.URL+"/api/v1/alerts", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("GET /api/v1/alerts: %v", err)
		return
	}
	defer resp.Body.Close()
	var body any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Errorf("GET /api/v1/alerts: %v", err)
		return
	}
	pretty, _ := json.MarshalIndent(body, "", "  ")
	t.Logf("/api/v1/alerts (%s):\n%s", when, pretty)
}

// TestExporterElectionAndQueueInPrometheus: on real ZooKeeper 3.8, a
// Curator LeaderLatch led by one JVM with a second in line, and a Curator
// delay queue whose item has been due for 20 minutes. Prometheus, with
// the repo's rules, fires ZkxQueueStale for the queue; the leader's JVM
// frozen with SIGSTOP fires ZkxElectionLeaderSilent, which clears when
// it is resumed. Prometheus starts first, as in TestExporterInPrometheus.
func TestExporterElectionAndQueueInPrometheus(t *testing.T) {
	t.Parallel()
	exporterPort := holdPort(t)
	prom := promtest.Start(t, promtest.Config{Targets: []string{exporterPort.Addr().String()}, RuleFiles: []string{shippedRules}, ShortenFor: promtest.ShortFor})
	connect := zktest.Shared(t)
	base := staleQueue(t, connect)
	leader := zktest.StartCuratorRoles(t, connect, peerSessionTimeout, 0, "latch:"+base+"/leader")
	leader.WaitLine(t, 0, "HOLDING latch "+base+"/leader")
	zktest.StartCuratorRoles(t, connect, peerSessionTimeout, 0, "latch:"+base+"/leader")

	startExporterOn(t, exporterPort, "--server", connect, "exporter", "--tables-every", exporterRefresh, "--queue-stale", "15m", base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	queue := map[string]string{"path": base + "/jobs", "kind": "queue-stale", "recipe": "queue"}
	if _, err := prom.WaitAlert(ctx, "ZkxQueueStale", "firing", queue); err != nil {
		t.Fatal(err)
	}
	candidates, err := prom.WaitQuery(ctx, fmt.Sprintf("zkx_election_candidates{path=%q}", base+"/leader"), func(s []promtest.Sample) bool { return len(s) == 1 })
	if err != nil || candidates[0].Value != 1 {
		t.Errorf("zkx_election_candidates = %+v, %v; want 1", candidates, err)
	}

	leader.Pause(t)
	election := map[string]string{"path": base + "/leader", "kind": "leader-silent", "recipe": "election"}
	if _, err := prom.WaitAlert(ctx, "ZkxElectionLeaderSilent", "firing", election); err != nil {
		t.Fatal(err)
	}
	leader.Resume(t)
	if err := prom.WaitNoAlert(ctx, "ZkxElectionLeaderSilent", election); err != nil {
		t.Fatal(err)
	}
}
