package recipes

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// This file holds the package's longest test by far, TestNemesisReal (a
// fault soak on an ensemble, about 20 s): the package ends when it does if
// it starts at once. Hence a file of its own whose name sorts first: once the
// parallel tests may go on, go test lets the first-declared one run before
// the others (which then start in an order of the scheduler's).

// TestNemesisReal runs the nemesis against a real 3-node ensemble: each of
// its faults once by default (see realNemesis). Half the contenders may use
// every member; the others are pinned to one, so that cutting a member off
// expires their sessions.
func TestNemesisReal(t *testing.T) {
	t.Parallel()
	d := nemesisDuration(t, 0)
	e := zktest.Real(t, 3)
	members := e.Members()
	all := strings.Split(e.ConnectString(), ",")
	setup := nemesisSetup{
		sessionTimeout: 2 * time.Second,
		servers: func(i int) []string {
			if i%2 == 0 {
				return all
			}
			return []string{members[(i/2)%len(members)].Addr()}
		},
		auditServers: all,
		auditEvery:   50 * time.Millisecond,
		healDeadline: 60 * time.Second,
		short: func() holdPlan {
			return holdPlan{ops: 1 + rand.IntN(3), gap: time.Duration(rand.IntN(3000)) * time.Microsecond}
		},
		long: func() holdPlan { return holdPlan{ops: 10 + rand.IntN(20), gap: 50 * time.Millisecond} },
	}
	runNemesis(t, setup, func(run *nemesisRun, recipes []*nemesisRecipe, base string, faults *faultLog) {
		realNemesis(t, e, run, recipes, d, faults)
	})
}
