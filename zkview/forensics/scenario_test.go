package forensics

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/pmfixture"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// scenario is what the post-mortem scenario did (zktest.RunPostmortem):
// its sessions by name, the zxid of the Curator lock's chain, the node
// admin force-deleted.
type scenario struct {
	dir          string
	sessions     map[string]int64
	chainZxid    int64
	forceDeleted string
	appGoodZxid  int64
	// auditZoned is the server's audit log with zoned times, auditDir its
	// rotated files in ZooKeeper's documented layout.
	auditZoned, auditDir string
}

// fixtureScenario reads the fixtures' scenario.txt.
func fixtureScenario(t *testing.T) scenario {
	t.Helper()
	sc := scenario{dir: fixtureDir, sessions: map[string]int64{},
		auditZoned: filepath.Join(fixtures, "audit", "audit-zoned.log"), auditDir: filepath.Join(fixtures, "audit", "rotated")}
	hexNum := func(s string) int64 {
		v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("scenario.txt: %q: %v", s, err)
		}
		return int64(v)
	}
	for name, value := range pmfixture.Facts(t, fixtureDir) {
		switch session, isSession := strings.CutPrefix(name, "session "); {
		case name == "chain_zxid":
			sc.chainZxid = hexNum(value)
		case name == "force_deleted":
			sc.forceDeleted = value
		case name == "app_good_zxid":
			sc.appGoodZxid = hexNum(value)
		case isSession:
			sc.sessions[session] = hexNum(value)
		}
	}
	if sc.chainZxid == 0 || sc.forceDeleted == "" || sc.appGoodZxid == 0 || len(sc.sessions) != 9 {
		t.Fatalf("scenario.txt incomplete: %+v", sc)
	}
	return sc
}

// realScenario plays the scenario on a real ZooKeeper now.
func realScenario(t *testing.T) scenario {
	pm := zktest.RunPostmortem(t)
	return scenario{dir: pm.DataDir, sessions: pm.Sessions, chainZxid: pm.ChainZxid, forceDeleted: pm.ForceDeleted,
		appGoodZxid: pm.AppGoodZxid, auditZoned: pm.AuditZoned, auditDir: pm.AuditDir}
}

// name turns a session id back into the scenario's name for it.
func (sc scenario) name(session string) string {
	for n, id := range sc.sessions {
		if display.Hex(id) == session {
			return n
		}
	}
	return session
}

func findHistory(t *testing.T, res HistoryResult, path string) History {
	t.Helper()
	for _, h := range res.Recipes {
		if h.Path == path {
			return h
		}
	}
	t.Fatalf("no history of %s among %d recipes", path, len(res.Recipes))
	return History{}
}

// story tells holdings as "NAME ended[ by NAME]", in order.
func (sc scenario) story(hs []Holding) string {
	var parts []string
	for _, h := range hs {
		s := sc.name(h.Session) + " " + h.Ended
		if h.DeletedBy != "" {
			s += " by " + sc.name(h.DeletedBy)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// checkScenarioHistory checks the history of the scenario's recipes:
// every holder named, every end told right (release, expiry, close,
// force-release), the waits and the queue's items.
func checkScenarioHistory(t *testing.T, sc scenario) {
	arch, err := OpenArchive(sc.dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Histories(context.Background(), arch, zktest.PostmortemBase, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problems.Count() != 0 {
		t.Errorf("problems: %v", res.Problems.List)
	}
	cl := findHistory(t, res, zktest.PostmortemCuratorLock)
	if cl.Recipe != "mutex" || cl.Format != "curator" {
		t.Errorf("%s is a %s %s", cl.Path, cl.Format, cl.Recipe)
	}
	if got, want := sc.story(cl.Holdings), "A released, B released, C released, C deleted-by-other by unlock, A held"; got != want {
		t.Errorf("%s:\n got %s\nwant %s", cl.Path, got, want)
	}
	if n := len(cl.Holdings); n == 5 && recognize.ContenderPath(cl.Path, cl.Holdings[3].Node) != sc.forceDeleted {
		t.Errorf("the force-released holding is %s, admin deleted %s", cl.Holdings[3].Node, sc.forceDeleted)
	}
	kl := findHistory(t, res, zktest.PostmortemKazooLock)
	if kl.Recipe != "mutex" || kl.Format != "kazoo" {
		t.Errorf("%s is a %s %s", kl.Path, kl.Format, kl.Recipe)
	}
	if got, want := sc.story(kl.Holdings), "K1 released, K2 released, D session-expired, K1 released, K2 session-closed"; got != want {
		t.Errorf("%s:\n got %s\nwant %s", kl.Path, got, want)
	}
	if len(kl.Holdings) == 5 {
		d, k1 := kl.Holdings[2], kl.Holdings[3]
		// D's session had a 2 s timeout: it expired at least that long
		// after D took the lock (D's last sign of life), and K1, which
		// queued right after, waited that long.
		if d.HeldMs < 2000 || k1.WaitedMs == nil || *k1.WaitedMs < 1900 || !k1.From.Equal(*d.To) || k1.FromZxid != d.ToZxid {
			t.Errorf("D held %d ms until %v (0x%x); K1 waited %v ms, from %v (0x%x)", d.HeldMs, d.To, d.ToZxid, k1.WaitedMs, k1.From, k1.FromZxid)
		}
	}
	for _, h := range append(append([]Holding{}, cl.Holdings...), kl.Holdings...) {
		if h.FromZxid == 0 || h.WaitedMs == nil || h.HeldBeforeLogs {
			t.Errorf("holding %s: from 0x%x waited %v before logs %v: the whole story is in the logs", h.Node, h.FromZxid, h.WaitedMs, h.HeldBeforeLogs)
		}
		if h.Ended != EndedHeld && (h.To == nil || h.To.Before(h.From) || h.HeldMs != h.To.Sub(h.From).Milliseconds()) {
			t.Errorf("holding %s: from %v to %v held %d ms", h.Node, h.From, h.To, h.HeldMs)
		}
	}
	el := findHistory(t, res, zktest.PostmortemCuratorElection)
	if el.Recipe != "election" || sc.story(el.Leaders) != "A released, B released" {
		t.Errorf("%s: a %s: %s", el.Path, el.Recipe, sc.story(el.Leaders))
	}
	q := findHistory(t, res, zktest.PostmortemKazooQueue)
	var items []string
	for _, it := range q.Items {
		s := fmt.Sprintf("%s put by %s", it.Data, sc.name(it.PutBy))
		if it.TakenBy != "" {
			s += " taken by " + sc.name(it.TakenBy)
		}
		items = append(items, s)
	}
	if got, want := strings.Join(items, ", "), "a put by K1 taken by K2, b put by K1 taken by K2, c put by K1"; q.Recipe != "queue" || got != want {
		t.Errorf("%s (%s):\n got %s\nwant %s", q.Path, q.Recipe, got, want)
	}

	// Since/until keep what overlaps them.
	end := *kl.Holdings[2].To
	res, err = Histories(context.Background(), arch, zktest.PostmortemKazooLock, HistoryOptions{Since: Moment{Time: end}, Until: Moment{Time: end}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Recipes) != 1 || sc.story(res.Recipes[0].Holdings) != "D session-expired, K1 released" {
		t.Errorf("around %v: %+v", end, res.Recipes)
	}
}

func TestScenarioHistoryFromFixtures(t *testing.T) {
	t.Parallel()
	sc := fixtureScenario(t)
	checkScenarioHistory(t, sc)
	checkScenarioAudit(t, sc)
}

// TestScenarioOnRealZooKeeper plays the post-mortem scenario on a real
// ZooKeeper once and checks on what it left what the fixture tests check
// on the fixtures: the recipes' history and audit, and the past's chain.
// The checks only read the data directory and the audit log.
func TestScenarioOnRealZooKeeper(t *testing.T) {
	t.Parallel()
	sc := realScenario(t)
	t.Run("History", func(t *testing.T) {
		checkScenarioHistory(t, sc)
		checkScenarioAudit(t, sc)
	})
	t.Run("PastChain", func(t *testing.T) { checkPastChain(t, sc) })
}

// checkPastChain opens the explorer's past at the zxid where A held the
// Curator lock with B and C queued, reads it through an ordinary client
// as the explorer does, and steps through the handoffs.
func checkPastChain(t *testing.T, sc scenario) {
	p, err := OpenPast(sc.dir, Moment{Zxid: sc.chainZxid})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if got := p.Position(); got.Zxid != sc.chainZxid || got.Txn == nil {
		t.Fatalf("position %+v, want zxid 0x%x", got, sc.chainZxid)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := p.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	chain := func() string {
		t.Helper()
		r, err := recognize.Dir(ctx, c, zktest.PostmortemCuratorLock, recognize.Options{Now: p.Clock()})
		if err != nil {
			t.Fatal(err)
		}
		l, ok := r.(*recognize.Lock)
		if !ok {
			t.Fatalf("%s is a %T", zktest.PostmortemCuratorLock, r)
		}
		var parts []string
		for _, h := range l.Holders {
			parts = append(parts, sc.name(h.Session)+" holds")
		}
		for _, w := range l.Waiters {
			who := "?"
			for _, o := range append(l.Holders, l.Waiters...) {
				if o.Node == w.WaitsFor {
					who = sc.name(o.Session)
				}
			}
			parts = append(parts, sc.name(w.Session)+" waits for "+who)
		}
		return strings.Join(parts, ", ")
	}
	if got, want := chain(), "A holds, B waits for A, C waits for B"; got != want {
		t.Fatalf("at 0x%x:\n got %s\nwant %s", sc.chainZxid, got, want)
	}
	// The next transaction touching the lock is A's release: B holds.
	pos, err := p.Step(false, zktest.PostmortemCuratorLock)
	if err != nil {
		t.Fatal(err)
	}
	if got := chain(); pos.Txn == nil || pos.Txn.Type != "delete" || got != "B holds, C waits for B" {
		t.Errorf("after %v: %s", pos.Txn, got)
	}
	if got := p.Clock(); !got.Equal(pos.Time) || got.IsZero() {
		t.Errorf("clock %v, position %v", got, pos.Time)
	}
	// One step back: the chain again.
	if pos, err = p.Step(true, ""); err != nil || pos.Zxid != sc.chainZxid || chain() != "A holds, B waits for A, C waits for B" {
		t.Errorf("back at 0x%x (%v): %s", pos.Zxid, err, chain())
	}
	// Back to before the lock existed, stepping one transaction at a
	// time; then forward to the chain again.
	for {
		pos, err = p.Step(true, "")
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Exists(ctx, zktest.PostmortemCuratorLock)
		if err != nil {
			t.Fatal(err)
		}
		if st == nil {
			break
		}
	}
	for pos.Zxid < sc.chainZxid {
		if pos, err = p.Step(false, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got := chain(); got != "A holds, B waits for A, C waits for B" {
		t.Errorf("forward again to 0x%x: %s", pos.Zxid, got)
	}
	if pr := p.Problems(); pr.Count() != 0 {
		t.Errorf("problems: %v", pr.List)
	}
}

func TestPastChainFromFixtures(t *testing.T) {
	t.Parallel()
	checkPastChain(t, fixtureScenario(t))
}
