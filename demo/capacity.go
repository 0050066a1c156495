package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/zkx-dev/zkx/zkview/introspect"
)

// Reserve is the connections kept free beside the demo's sessions: the
// explorer's, its server questions, and one for another zkx command.
const Reserve = 4

// Capacity is how many connections the servers accept from this machine,
// as their maxClientCnxns says; Total 0 means no known limit.
type Capacity struct {
	PerMember, Members, Total int
}

// ContenderLimit is the most contenders per lane the demo may run, and why.
type ContenderLimit struct {
	Max    int    // 0: none
	Reason string // e.g. "the server accepts 60 connections from this address (maxClientCnxns)"
}

// ServerCapacity asks the first member that answers conf. Each session
// connects to one member, in a random order, so an ensemble takes about
// members × the limit; three quarters of that leaves room for an uneven
// spread.
func ServerCapacity(ctx context.Context, servers []string) Capacity {
	for _, addr := range servers {
		limit, known, err := introspect.ConnectionLimit(ctx, addr, 2*time.Second, introspect.Options{})
		switch {
		case err != nil:
			continue // ask the next member
		case !known || limit == 0:
			return Capacity{} // no limit said, or none
		}
		total := limit
		if len(servers) > 1 {
			total = max(limit, limit*len(servers)*3/4)
		}
		return Capacity{PerMember: limit, Members: len(servers), Total: total}
	}
	return Capacity{}
}

// Limited reports whether the servers said how many connections they take.
func (c Capacity) Limited() bool { return c.Total > 0 }

// Fit returns how many contenders per lane fit beside the seeded sessions
// (wanted, or fewer), and the cap for adding more; zkLanes lanes open
// ZooKeeper sessions (Redis's connections do not count).
func (c Capacity) Fit(seeded, wanted, zkLanes int) (int, ContenderLimit, error) {
	if !c.Limited() || zkLanes == 0 {
		return wanted, ContenderLimit{}, nil
	}
	most := (c.Total - seeded - Reserve) / zkLanes
	if most < 2 {
		return 0, ContenderLimit{}, fmt.Errorf("%s: too few for the demo's seeded state (%d sessions) and two contenders per lane; raise maxClientCnxns, or run the demo on the embedded server (no --server)", c, seeded)
	}
	return min(wanted, most), ContenderLimit{Max: most, Reason: c.String()}, nil
}

// Fits says whether n connections fit.
func (c Capacity) Fits(n int) error {
	if c.Limited() && n > c.Total {
		return fmt.Errorf("needs %d connections from this machine; %s: lower --contenders, or raise maxClientCnxns", n, c)
	}
	return nil
}

func (c Capacity) String() string {
	if c.Members > 1 {
		return fmt.Sprintf("the ensemble's members accept %d connections each from this address (maxClientCnxns), about %d in all", c.PerMember, c.Total)
	}
	return fmt.Sprintf("the server accepts %d connections from this address (maxClientCnxns)", c.PerMember)
}
