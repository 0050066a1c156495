package recipes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/lockstats"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// The nemesis tests: contenders on a Mutex, an RWMutex (writers, and a few
// readers), a Semaphore and an Election, all at once, each on its own path,
// while a nemesis injects faults; a fenced resource per recipe (see fence)
// judges every holding, and the test fails on any overlap, stale token,
// unreported loss or inconsistent report, on an acquisition failing for any
// reason but a lost session, and when a recipe makes no progress once the
// faults stop.
//
// TestNemesisEmbedded runs against the embedded server and its fault
// injection, for a few seconds: every CI run. TestNemesisReal runs against a
// real 3-node ensemble (zktest.Real), killing and pausing members, each of
// its three faults once (about 20 seconds).
//
// ZKX_NEMESIS_DURATION (a Go duration, e.g. 10m) sets how long the nemesis
// runs in both, for a long run (the real one goes on with its faults in
// turn); mind go test's own -timeout (10m by default):
//
//	ZKX_NEMESIS_DURATION=10m ZKX_REAL_ZK=required go test ./recipes/ -run 'Nemesis' -count=1 -v -timeout 30m
const nemesisDurationEnv = "ZKX_NEMESIS_DURATION"

// nemesisDuration is ZKX_NEMESIS_DURATION, or def when it is not set.
func nemesisDuration(t *testing.T, def time.Duration) time.Duration {
	v := os.Getenv(nemesisDurationEnv)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive Go duration such as 10m", nemesisDurationEnv, v)
	}
	return d
}

// nemesisRecipe is one recipe's contenders and referee.
type nemesisRecipe struct {
	name       string
	fence      *fence
	contenders []*nemesisContender
}

// nemesisSetup is what differs between the embedded and the real run.
type nemesisSetup struct {
	sessionTimeout time.Duration
	servers        func(i int) []string // contender i's connect string
	auditServers   []string
	auditEvery     time.Duration
	healDeadline   time.Duration // for progress once the faults stop
	short, long    func() holdPlan
}

// nemesisRecipes lays out the contenders: 20 sessions in all.
func nemesisRecipes(run *nemesisRun, base string, setup nemesisSetup) []*nemesisRecipe {
	const leases = 2
	specs := []struct {
		name     string
		capacity int
		kinds    []contenderKind
	}{
		{"mutex", 1, []contenderKind{
			mutexContender(), mutexContender(WithLookahead(false)), mutexContender(withInstruments(lockstats.Instruments{Strategy: lockstats.Herd})),
			mutexContender(), mutexContender(WithLookahead(false)),
		}},
		{"rwmutex", 1, []contenderKind{
			rwContender(true), rwContender(true), rwContender(true), rwContender(true),
			rwContender(false), rwContender(false),
		}},
		{"semaphore", leases, []contenderKind{
			semaphoreContender(leases), semaphoreContender(leases), semaphoreContender(leases),
			semaphoreContender(leases), semaphoreContender(leases),
		}},
		{"election", 1, []contenderKind{
			electionContender(), electionContender(), electionContender(), electionContender(),
		}},
	}
	var out []*nemesisRecipe
	n := 0
	for _, spec := range specs {
		r := &nemesisRecipe{name: spec.name, fence: newFence(spec.name, spec.capacity)}
		for i, k := range spec.kinds {
			r.contenders = append(r.contenders, &nemesisContender{
				name: fmt.Sprintf("%s-%s%d", spec.name, k.access, i), run: run, fence: r.fence,
				dir: base + "/" + spec.name, servers: setup.servers(n), kind: k,
			})
			n++
		}
		out = append(out, r)
	}
	return out
}

// runNemesis runs the contenders while nemesis injects faults (it returns
// once it has healed the servers), then checks that every recipe still
// makes progress, stops the contenders and judges.
func runNemesis(t *testing.T, setup nemesisSetup, nemesis func(run *nemesisRun, recipes []*nemesisRecipe, base string, faults *faultLog)) {
	begin := time.Now()
	base := zktest.Path(t)
	run := &nemesisRun{
		sessionTimeout: setup.sessionTimeout, connectTimeout: 10 * time.Second,
		short: setup.short, long: setup.long, longOdds: 0.01,
		sessions: map[int64]*nemesisContender{}, lost: map[string]int{},
	}
	recipes := nemesisRecipes(run, base, setup)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for _, r := range recipes {
		for _, c := range r.contenders {
			wg.Add(1)
			go func() { defer wg.Done(); c.loop(ctx) }()
		}
	}
	var audited auditCounts
	wg.Add(1)
	go func() { defer wg.Done(); audit(ctx, setup, recipes, &audited) }()

	faults := newFaultLog()
	nemesisBegin := time.Now()
	nemesis(run, recipes, base, faults)
	nemesisTime := time.Since(nemesisBegin)

	// Liveness: with the faults gone, every recipe must move again (a node
	// left behind would stop it for good).
	healed := time.Now()
	for _, r := range recipes {
		if !r.fence.waitGrants(3, healed.Add(setup.healDeadline)) {
			t.Errorf("%s: no progress within %v once the faults stopped", r.name, setup.healDeadline)
		}
	}
	recovery := time.Since(healed)
	cancel()
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(2 * time.Minute):
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Fatalf("contenders did not stop within 2m of the end; goroutines:\n%s", b.String())
	}

	var total, violations uint64
	for _, r := range recipes {
		c, problems := r.fence.verdict()
		total += c.grants
		violations += c.violations()
		t.Logf("%s: %v", r.name, c)
		for _, p := range problems {
			t.Errorf("%s: %s", r.name, p)
		}
		if c.grants == 0 {
			t.Errorf("%s: no acquisition at all", r.name)
		}
		var acquireErrors uint64
		for _, ct := range r.contenders {
			acquireErrors += ct.acquireErrors.Load()
		}
		if acquireErrors > 0 {
			t.Errorf("%s: %d acquisitions failed for another reason than a lost session", r.name, acquireErrors)
		}
	}
	run.mu.Lock()
	lost := sortedCounts(run.lost)
	problems := run.problems
	run.mu.Unlock()
	for _, p := range problems {
		t.Errorf("contender: %s", p)
	}
	t.Logf("faults injected over %v:%v", nemesisTime.Round(time.Millisecond), faults)
	t.Logf("sessions: %d dialled (%d dials failed while servers were away), lost: %s",
		run.dials.Load(), run.dialFailures.Load(), lost)
	t.Logf("audit: %d rounds, %d nodes checked, %d holdings found lost", audited.rounds, audited.checked, audited.missing)
	t.Logf("total: %d acquisitions under faults, %d violations; progress again %v after healing; wall time %v",
		total, violations, recovery.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))
}

func sortedCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, ", ")
}

type auditCounts struct{ rounds, checked, missing uint64 }

// audit is the observer: it checks, again and again, that the node of every
// holding still held exists, owned by the holding's session, and gives the
// fence the evidence when it does not. A sync first brings the server it
// reads from up to date with everything committed, so a holding granted
// before the round cannot look missing on a lagging follower.
func audit(ctx context.Context, setup nemesisSetup, recipes []*nemesisRecipe, counts *auditCounts) {
	for ctx.Err() == nil {
		s, err := Dial(setup.auditServers, WithSessionTimeout(setup.sessionTimeout), WithConnectTimeout(5*time.Second))
		if err != nil {
			nap(ctx, 100*time.Millisecond)
			continue
		}
		for ctx.Err() == nil && s.Err() == nil {
			auditRound(s, recipes, counts)
			nap(ctx, setup.auditEvery)
		}
		s.Close()
	}
}

func auditRound(s *Session, recipes []*nemesisRecipe, counts *auditCounts) {
	type item struct {
		fence   *fence
		holding *holding
	}
	var items []item
	for _, r := range recipes {
		for _, h := range r.fence.heldNow() {
			items = append(items, item{r.fence, h})
		}
	}
	if len(items) == 0 {
		return
	}
	if _, err := s.Conn().Sync("/"); err != nil {
		return
	}
	counts.rounds++
	for _, it := range items {
		ok, stat, err := s.Conn().Exists(it.holding.token.Path)
		if err != nil {
			return // the connection went: what we read after it proves nothing
		}
		counts.checked++
		switch {
		case !ok:
			if it.fence.lostWhileHeld(it.holding, byAudit, "its node is gone") {
				counts.missing++
			}
		case stat.EphemeralOwner != it.holding.token.Session:
			if it.fence.lostWhileHeld(it.holding, byAudit, fmt.Sprintf("its node belongs to session 0x%x", stat.EphemeralOwner)) {
				counts.missing++
			}
		}
	}
}

// TestNemesisEmbedded runs the nemesis against the embedded server, a few
// seconds by default.
func TestNemesisEmbedded(t *testing.T) {
	t.Parallel()
	d := nemesisDuration(t, 5*time.Second)
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	// The address twice: go-zookeeper waits a second before it tries the
	// first address of its list again, so with a single address every
	// dropped connection would cost a second. Twice, it reconnects at once,
	// as it does to another member of an ensemble.
	servers := []string{srv.ConnectString(), srv.ConnectString()}
	setup := nemesisSetup{
		sessionTimeout: 2 * time.Second,
		servers:        func(int) []string { return servers },
		auditServers:   servers,
		auditEvery:     20 * time.Millisecond,
		healDeadline:   30 * time.Second,
		short: func() holdPlan {
			return holdPlan{ops: 1 + rand.IntN(3), gap: time.Duration(rand.IntN(1000)) * time.Microsecond}
		},
		long: func() holdPlan { return holdPlan{ops: 10 + rand.IntN(20), gap: 50 * time.Millisecond} },
	}
	runNemesis(t, setup, func(run *nemesisRun, recipes []*nemesisRecipe, base string, faults *faultLog) {
		embeddedNemesis(srv, run, recipes, base, d, faults)
	})
}
