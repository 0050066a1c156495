package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/pmfixture"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// postmortemDir is the project's testdata/postmortem/datadir: the data
// directory a real ZooKeeper left after the post-mortem scenario.
var postmortemDir = filepath.Join("..", "testdata", "postmortem", "datadir")

// pastLock is the post-mortem's Curator lock: three nodes at the chain's
// zxid, two after the next transaction (A's release).
const pastLock = "/pm/curator-lock"

// newPastApp opens the explorer on the post-mortem's past at the chain's
// zxid, on the lock's row; it returns the app and that zxid as the header
// shows it.
func newPastApp(t *testing.T) (*app, string) {
	t.Helper()
	chain := pmfixture.Fact(t, postmortemDir, "chain_zxid")
	at, err := forensics.ParseMoment(chain, time.UTC, time.Time{})
	if err != nil {
		t.Fatalf("scenario.txt's chain_zxid %q: %v", chain, err)
	}
	past, err := forensics.OpenPast(postmortemDir, at)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { past.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := past.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	plain := theme.Plain()
	return newApp(Config{Client: c, Connect: past.Name(), ReadOnly: true, Styles: &plain, Path: pastLock, Past: past}), chain
}

// deliverUntil delivers the app's messages until cond holds for the
// screen, except those hold picks, which it returns undelivered. cond is
// also checked every few milliseconds: what it asks of the Tree may come
// with no message, while its news is held.
func (d *driver) deliverUntil(what string, hold func(tea.Msg) bool, cond func(screen string) bool) []tea.Msg {
	d.tb.Helper()
	var held []tea.Msg
	deadline := time.After(20 * time.Second)
	recheck := time.NewTicker(5 * time.Millisecond)
	defer recheck.Stop()
	for {
		s := d.screen()
		if cond(s) {
			return held
		}
		select {
		case msg := <-d.msgs:
			if hold(msg) {
				held = append(held, msg)
				continue
			}
			d.send(msg)
		case <-recheck.C:
		case <-deadline:
			d.tb.Fatalf("waiting for %s; the screen shows:\n%s", what, s)
		}
	}
}

// TestPastRowReadAnsweredAfterAStepBack: the tree's read of its rows
// asked for at a step forward (after >) is answered only once the past
// has stepped back (<), as when < was pressed before the step forward's
// reads came back. That answer is of the later position: the lock's row
// must still show the count of the position on screen, not the later one.
func TestPastRowReadAnsweredAfterAStepBack(t *testing.T) {
	t.Parallel()
	app, chain := newPastApp(t)
	d := newDriver(t, app, 120, 40)
	d.waitFor("three nodes in the lock at "+chain, func(s string) bool {
		return strings.Contains(s, "curator-lock  3 [lock") && strings.Contains(s, "zxid "+chain+" ")
	})
	d.key(">")
	// The step forward's read of the lock's row, held back.
	readsOfLock := 0
	readOfLock := func(msg tea.Msg) bool {
		m, ok := msg.(rowStatsMsg)
		if ok && contains(m.paths, pastLock) {
			readsOfLock++
			return true
		}
		return false
	}
	held := d.deliverUntil("the step forward and its read of the lock's row", readOfLock, func(s string) bool {
		return !strings.Contains(s, "zxid "+chain+" ") && !app.travel.busy && readsOfLock > 0
	})
	d.key("<")
	d.deliverUntil("the step back, and the Tree's count of the lock there", func(msg tea.Msg) bool { return false }, func(s string) bool {
		n, _ := app.shared.Tree.Get(pastLock)
		return strings.Contains(s, "zxid "+chain+" ") && !app.travel.busy && n.Stat != nil && n.Stat.NumChildren == 3
	})
	for _, msg := range held {
		d.send(msg)
	}
	d.waitFor("three nodes in the lock, back at "+chain, func(s string) bool {
		return strings.Contains(s, "curator-lock  3 [lock") && strings.Contains(s, "zxid "+chain+" ")
	})
}

// TestPastTreeCountReadBeforeAStepBack: the Tree read the lock's count at
// the later position (after >), and tells of it only once the past has
// stepped back (<) and the row was read there, before the Tree reads the
// lock again. The Tree's stat then has the bigger Pzxid but is the older:
// the row must end with the count of the position on screen, whatever
// the zxids say. The Tree's read again comes at most CountEvery after its
// last, so the test steps again until the Tree's news came before it.
func TestPastTreeCountReadBeforeAStepBack(t *testing.T) {
	t.Parallel()
	app, chain := newPastApp(t)
	d := newDriver(t, app, 120, 40)
	treeStat := func() *zk.Stat {
		n, _ := app.shared.Tree.Get(pastLock)
		return n.Stat
	}
	atChain := func(s string) bool {
		st := treeStat()
		return strings.Contains(s, "curator-lock  3 [lock") && strings.Contains(s, "zxid "+chain+" ") &&
			!app.travel.busy && st != nil && st.NumChildren == 3
	}
	treeNews := func(msg tea.Msg) bool { _, ok := msg.(treeUpdateMsg); return ok }
	for attempt := 1; ; attempt++ {
		d.waitFor("three nodes in the lock at "+chain, atChain)
		d.key(">")
		held := d.deliverUntil("the step forward, and the Tree's count of the lock there", treeNews, func(s string) bool {
			st := treeStat()
			return strings.Contains(s, "curator-lock  2 [lock") && !strings.Contains(s, "zxid "+chain+" ") &&
				!app.travel.busy && st != nil && st.NumChildren == 2
		})
		later := treeStat()
		d.key("<")
		held = append(held, d.deliverUntil("the step back, and the row read there", treeNews, func(s string) bool {
			return strings.Contains(s, "curator-lock  3 [lock") && strings.Contains(s, "zxid "+chain+" ") && !app.travel.busy
		})...)
		caught := treeStat() == later
		for _, msg := range held {
			d.send(msg)
		}
		caught = caught && treeStat() == later
		if caught {
			t.Logf("the Tree's news of the later position came after the step back at attempt %d", attempt)
			break
		}
		if attempt == 20 {
			t.Fatal("in 20 steps, the Tree read the lock again before its news of the later position came")
		}
	}
	d.waitFor("three nodes in the lock, back at "+chain, atChain)
}
