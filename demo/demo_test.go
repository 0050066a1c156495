package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/zktest"
	"github.com/zkx-dev/zkx/recipes"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// TestHeadlessShowsTheLesson runs the three lanes briefly and checks what
// the counters must show: one notification per release in the chain, N−1
// in the herd, none for spin (which creates many times per acquisition
// instead), and no violation anywhere.
func TestHeadlessShowsTheLesson(t *testing.T) {
	zktest.Each(t, func(t *testing.T, connect string) {
		const n = 5
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := RunHeadless(ctx, HeadlessOptions{
			Servers: strings.Split(connect, ","), Base: zktest.Path(t),
			Contenders: n, Duration: 1500 * time.Millisecond, Hold: 30 * time.Millisecond, Poll: 20 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		lanes := map[string]LaneResult{}
		for _, l := range res.Lanes {
			lanes[l.Lane] = l
			t.Logf("%s: %+v", l.Lane, l)
			if l.Violations != 0 || l.Acquisitions == 0 {
				t.Errorf("%s: %d acquisitions, %d violations", l.Lane, l.Acquisitions, l.Violations)
			}
		}
		chain, herd, spin := lanes["chain"], lanes["herd"], lanes["spin"]
		if chain.NotificationsPerRelease < 0.9 || chain.NotificationsPerRelease > 1.1 {
			t.Errorf("chain: %.2f notifications per release, want about 1", chain.NotificationsPerRelease)
		}
		if herd.NotificationsPerRelease < 0.8*(n-1) {
			t.Errorf("herd: %.2f notifications per release, want about %d", herd.NotificationsPerRelease, n-1)
		}
		if spin.NotificationsPerRelease != 0 || spin.CreatesPerAcquisition <= 1.5 {
			t.Errorf("spin: %.2f notifications per release and %.2f creates per acquisition, want none and many",
				spin.NotificationsPerRelease, spin.CreatesPerAcquisition)
		}
		if herd.ReadsPerAcquisition <= chain.ReadsPerAcquisition {
			t.Errorf("herd reads %.2f per acquisition, chain %.2f: the herd must read more", herd.ReadsPerAcquisition, chain.ReadsPerAcquisition)
		}
	})
}

func TestCheckerCountsOverlapsAndStaleTokens(t *testing.T) {
	c := NewChecker()
	c.Enter(1, tokenAt(10))
	c.Exit(1)
	c.Enter(2, tokenAt(20))
	if c.Violations() != 0 {
		t.Fatal("a clean handoff counted as a violation")
	}
	c.Enter(3, tokenAt(30)) // 2 is still inside
	c.Exit(2)
	c.Exit(3)
	c.Enter(4, tokenAt(25)) // a stale token
	if got := c.Violations(); got != 2 {
		t.Fatalf("%d violations, want 2 (an overlap and a stale token)", got)
	}
}

func tokenAt(zxid int64) recipes.Token { return recipes.Token{Zxid: zxid} }
