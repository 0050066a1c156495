package recipes

import (
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestSessionLostIsGone: a Session declares itself lost by its own clock
// (disconnected for its whole timeout) while the ensemble cannot expire it
// (no quorum). Once the ensemble is back, its new leader gives every session
// a fresh timeout, and go-zookeeper would resume the session on its next
// connection, lock node and all, for as long as the connection stays open
// (the nemesis test found lock nodes of lost sessions alive after leader
// faults). A Session made by Dial closes its connection when lost, so the
// lock goes within a timeout.
func TestSessionLostIsGone(t *testing.T) {
	t.Parallel()
	e := zktest.Real(t, 3)
	leader := e.Leader(t)
	var mine, other *zktest.Member // the client's server, the third one
	for _, m := range e.Members() {
		switch {
		case m == leader:
		case mine == nil:
			mine = m
		default:
			other = m
		}
	}
	dir := zktest.Path(t)
	s := dialTest(t, mine.Addr(), WithSessionTimeout(2*time.Second))
	if err := NewMutex(s, dir).Lock(testContext(t)); err != nil {
		t.Fatal(err)
	}
	// No quorum, and the old leader out of the game: s's server gives up on
	// the leader and drops s, and nobody can expire s. Then the other
	// follower comes back, gives up on the old leader too, and the two elect
	// a new leader, which gives s a fresh timeout.
	other.Pause(t)
	leader.Pause(t)
	waitClosed(t, "the session to be declared lost", s.Done())
	other.Resume(t)
	e.WaitServing(t)                                      // the two that run, one of them leading
	observer := dialTest(t, mine.Addr()+","+other.Addr()) // not the paused one
	waitChildren(t, observer, dir, func(c []string) bool { return len(c) == 0 })
}
