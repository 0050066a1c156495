package forensics

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/auditlog"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// readIndex reads audit logs into an index.
func readIndex(t *testing.T, paths []string, loc *time.Location, keep AuditKeep) *AuditIndex {
	t.Helper()
	ix, err := ReadAudit(paths, auditlog.Options{Location: loc}, keep)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Problems.Count() != 0 {
		t.Fatalf("problems reading %v: %v", paths, ix.Problems.List)
	}
	return ix
}

// users tells a Who as "user@ip" (no user: "@ip"), the server's own as
// "server:USER for user@ip", "-" for nil.
func users(w *Who) string {
	if w == nil {
		return "-"
	}
	at := func(c Client) string { return strings.Join(c.Authenticated(), "+") + "@" + c.IP }
	if w.ByServer {
		s := "server"
		if w.Session != nil {
			s += " for " + at(*w.Session)
		}
		return s
	}
	return at(w.Client)
}

// checkScenarioAudit joins the scenario's audit log with its history and
// its transactions: each holder's node named by the user and address that
// created it, the force-release by ops, the expiry and the close by the
// server for the holder's client; every transaction's event of the same
// session, operation and node; none for what ZooKeeper does not audit.
func checkScenarioAudit(t *testing.T, sc scenario) {
	arch, err := OpenArchive(sc.dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Histories(context.Background(), arch, zktest.PostmortemBase, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix := readIndex(t, []string{sc.auditZoned}, time.UTC, AuditKeep{})
	story := func(recipe string, hs []Holding) string {
		var parts []string
		for _, h := range hs {
			created, ended := ix.Holding(recipe, h)
			for _, w := range []*Who{created, ended} {
				if w != nil && w.Match == MatchEvent && (w.GapMs < -1000 || w.GapMs > 5000) {
					t.Errorf("%s %s: an event %d ms from its transaction", recipe, h.Node, w.GapMs)
				}
			}
			if created == nil || created.Match != MatchEvent {
				t.Errorf("%s %s: creation %+v, want its own event", recipe, h.Node, created)
			}
			parts = append(parts, sc.name(h.Session)+" by "+users(created)+" "+h.Ended+" by "+users(ended))
		}
		return strings.Join(parts, "; ")
	}
	cl := findHistory(t, res, zktest.PostmortemCuratorLock)
	want := "A by billing@127.0.0.1 released by billing@127.0.0.1; B by @127.0.0.1 released by @127.0.0.1; " +
		"C by reports@127.0.0.1 released by reports@127.0.0.1; C by reports@127.0.0.1 deleted-by-other by ops@127.0.0.1; " +
		"A by billing@127.0.0.1 held by -"
	if got := story(cl.Path, cl.Holdings); got != want {
		t.Errorf("%s:\n got %s\nwant %s", cl.Path, got, want)
	}
	kl := findHistory(t, res, zktest.PostmortemKazooLock)
	want = "K1 by worker@127.0.0.1 released by worker@127.0.0.1; K2 by @127.0.0.1 released by @127.0.0.1; " +
		"D by batch@127.0.0.1 session-expired by server for batch@127.0.0.1; K1 by worker@127.0.0.1 released by worker@127.0.0.1; " +
		"K2 by @127.0.0.1 session-closed by server for @127.0.0.1"
	if got := story(kl.Path, kl.Holdings); got != want {
		t.Errorf("%s:\n got %s\nwant %s", kl.Path, got, want)
	}
	q := findHistory(t, res, zktest.PostmortemKazooQueue)
	for _, it := range q.Items {
		put, taken := ix.Item(q.Path, it)
		if users(put) != "worker@127.0.0.1" || (it.TakenBy != "" && users(taken) != "@127.0.0.1") {
			t.Errorf("item %s: put by %s, taken by %s", it.Data, users(put), users(taken))
		}
	}

	// Every transaction: an event of its own session, operation and node,
	// or its session's client; none for the server's own.
	kinds := map[string]int{}
	replayAll(t, sc.dir, func(s *Step, _ *memStore) {
		txn := Describe(s.Entry)
		w := ix.Who(&txn)
		switch {
		case txn.Session == 0:
			if w != nil {
				t.Errorf("0x%x %s by the server: %+v", txn.Zxid, txn.Type, w)
			}
			return
		case w == nil:
			t.Errorf("0x%x %s by 0x%x: the audit log names no client", txn.Zxid, txn.Type, txn.Session)
			return
		}
		kinds[txn.Type+" "+w.Match]++
		if w.Match == MatchEvent && w.Operation != auditOp(txn.Type) && txn.Type != "multi" && txn.Type != "error" && txn.Type != "closeSession" {
			t.Errorf("0x%x %s matched with a %s event", txn.Zxid, txn.Type, w.Operation)
		}
		if txn.Type == "error" && (w.Match != MatchEvent || w.Result != auditlog.ResultFailure) {
			t.Errorf("0x%x a failed request: %+v", txn.Zxid, w)
		}
		if txn.Path == sc.forceDeleted && txn.Type == "delete" && users(w) != "ops@127.0.0.1" {
			t.Errorf("the force-release 0x%x: %s", txn.Zxid, users(w))
		}
		if strings.HasPrefix(txn.Path, zktest.PostmortemApp) && txn.Zxid > sc.appGoodZxid && users(w) != "@127.0.0.1" {
			t.Errorf("zkCli.sh's %s %s: %s", txn.Type, txn.Path, users(w))
		}
	})
	for _, k := range []string{"createSession session", "createTtl session", "closeSession event", "closeSession session",
		"create2 event", "delete event", "setData event", "setACL event", "multi event", "error event"} {
		if kinds[k] == 0 {
			t.Errorf("no %q among %v", k, kinds)
		}
	}
	for k := range kinds {
		if strings.HasPrefix(k, "createSession event") || strings.HasPrefix(k, "createTtl event") {
			t.Errorf("%q: ZooKeeper audits neither", k)
		}
	}
}

// TestAuditNeverInvents: without the force-release's line the delete is
// told by nobody (the session made nothing else); the rotated files read
// five hours off match nothing, and say so.
func TestAuditNeverInvents(t *testing.T) {
	t.Parallel()
	sc := fixtureScenario(t)
	b, err := os.ReadFile(sc.auditZoned)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "znode="+sc.forceDeleted+"\t") || !strings.Contains(line, "operation=delete") {
			kept = append(kept, line)
		}
	}
	if len(kept) == len(strings.Split(string(b), "\n")) {
		t.Fatal("the force-release's line is not in the audit log")
	}
	cut := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(cut, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := readIndex(t, []string{cut}, time.UTC, AuditKeep{})
	arch, err := OpenArchive(sc.dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Histories(context.Background(), arch, zktest.PostmortemCuratorLock, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cl := findHistory(t, res, zktest.PostmortemCuratorLock)
	forced := cl.Holdings[3]
	if _, ended := ix.Holding(cl.Path, forced); forced.Ended != EndedDeletedByOther || ended != nil {
		t.Errorf("the force-release without its line: %s by %+v", forced.Ended, ended)
	}

	off := readIndex(t, []string{sc.auditDir}, time.FixedZone("off", 5*3600), AuditKeep{})
	matched := 0
	replayAll(t, sc.dir, func(s *Step, _ *memStore) {
		txn := Describe(s.Entry)
		if w := off.Who(&txn); w != nil && w.Match == MatchEvent {
			matched++
		}
	})
	if matched != 0 || off.OutOfWindow() == 0 {
		t.Errorf("five hours off: %d matched, %d out of the window", matched, off.OutOfWindow())
	}
	// Read in the server's zone, the rotated files match as the zoned one.
	first, err := os.ReadFile(sc.auditZoned)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000-0700", string(first[:28]))
	if err != nil {
		t.Fatal(err)
	}
	_, offset := at.Zone()
	inZone := readIndex(t, []string{sc.auditDir}, time.FixedZone("server", offset), AuditKeep{})
	for _, h := range cl.Holdings[:3] {
		created, _ := inZone.Holding(cl.Path, h)
		if created == nil || created.Match != MatchEvent {
			t.Errorf("%s: %+v", display.Line(h.Node), created)
		}
	}
}

// TestAuditKeepSubtree: an index that keeps one subtree's events (the
// rest passed over unread) tells that subtree's holdings as the whole
// index does, its sessions' clients included.
func TestAuditKeepSubtree(t *testing.T) {
	t.Parallel()
	sc := fixtureScenario(t)
	arch, err := OpenArchive(sc.dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Histories(context.Background(), arch, zktest.PostmortemKazooLock, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kl := findHistory(t, res, zktest.PostmortemKazooLock)
	whole := readIndex(t, []string{sc.auditZoned}, time.UTC, AuditKeep{})
	under := []byte(zktest.PostmortemKazooLock)
	part := readIndex(t, []string{sc.auditZoned}, time.UTC, AuditKeep{Node: func(z []byte) bool { return strings.HasPrefix(string(z), string(under)) }})
	skipped := 0
	for _, f := range part.Files {
		skipped += f.Skipped
	}
	if part.Kept >= whole.Kept || skipped == 0 {
		t.Errorf("kept %d of %d, %d skipped", part.Kept, whole.Kept, skipped)
	}
	for _, h := range kl.Holdings {
		c1, e1 := whole.Holding(kl.Path, h)
		c2, e2 := part.Holding(kl.Path, h)
		if users(c1) != users(c2) || users(e1) != users(e2) || c2 == nil || c2.Match != MatchEvent {
			t.Errorf("%s: %s/%s with the whole index, %s/%s with the subtree's", h.Node, users(c1), users(e1), users(c2), users(e2))
		}
	}
}

// TestAuditStream: a stream read alongside the transactions, in order,
// tells each as the whole index does, holding only the window's events.
func TestAuditStream(t *testing.T) {
	t.Parallel()
	sc := fixtureScenario(t)
	whole := readIndex(t, []string{sc.auditDir, sc.auditZoned}, time.UTC, AuditKeep{})
	stream, err := StreamAudit([]string{sc.auditDir, sc.auditZoned}, auditlog.Options{Location: time.UTC}, AuditKeep{})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	n := 0
	replayAll(t, sc.dir, func(s *Step, _ *memStore) {
		txn := Describe(s.Entry)
		a, b := whole.Who(&txn), stream.Who(&txn)
		if !sameWho(a, b) {
			t.Errorf("0x%x %s: whole %+v, stream %+v", txn.Zxid, txn.Type, a, b)
		}
		n++
	})
	if n < 50 || stream.Kept == 0 {
		t.Errorf("%d transactions; the stream kept %d events", n, stream.Kept)
	}
}

func sameWho(a, b *Who) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	if (x.Session == nil) != (y.Session == nil) || x.Session != nil && *x.Session != *y.Session {
		return false
	}
	x.Session, y.Session = nil, nil
	return x == y
}
