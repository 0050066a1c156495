package cli

import (
	"github.com/zkx-dev/zkx/zkview/introspect"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/internal/cliout"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/tui"
	"github.com/zkx-dev/zkx/zkview"
)

type demoFlags struct {
	headless   bool
	contenders int
	duration   time.Duration
	hold       time.Duration
	poll       time.Duration
	output     string
	// heldTooLong is short in the demo so the seeded stuck lock is
	// flagged within a minute: no server can backdate a node's ctime.
	heldTooLong time.Duration
}

// Settings of the demo view.
const (
	demoHeldTooLong = 30 * time.Second
	// demoRotate is how long a seeded lock's holder holds before the next
	// one's turn, so only the stuck lock ages past demoHeldTooLong.
	demoRotate = 10 * time.Second
)

func newDemoCommand(g *globalOptions) *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show why ZooKeeper locks watch their predecessor: chain vs herd vs spin",
		Long: `demo runs three lanes of lock contenders side by side, each with its own session:
  chain  each waiter watches the node just ahead of it (one notification per release)
  herd   every waiter watches the holder (every release wakes every waiter)
  spin   no watches: create one lock node, sleep, retry, as a Redis SET NX lock does
with counters measured as they run: acquisitions, notifications per release, reads
and creates per acquisition, handoff latency, and violations seen by an independent
checker (always 0).

Without --server it starts zkx's embedded ZooKeeper-compatible server in-process; with
--server it runs under /zkx-demo on that ensemble and removes it on exit. Every contender
and seeded holder has a session of its own, all from this machine: the demo reads the
servers' maxClientCnxns (60 connections per client address by default) and runs fewer
contenders per lane when it must, keeping room for the explorer and one more zkx.

The demo view runs the lanes at once. Beside them it seeds state for the explorer
under /zkx-demo: services with JSON config, locks laid out as zkx, Curator and Kazoo
lay them out, a stuck lock, a read-write lock, a semaphore, a queue and an election.
Esc goes from the demo to the explorer, :demo comes back.

--headless runs the lanes one after another for --duration each and prints the figures.`,
		Example: `  zkx demo
  zkx demo --contenders 20 --server zk1:2181
  zkx demo --headless --contenders 20 --duration 10s
  zkx demo --headless -o json --server zk1:2181,zk2:2181,zk3:2181`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := cliout.ParseFormat(f.output)
			if err != nil {
				return err
			}
			if f.contenders < 1 || f.contenders > 1000 {
				return fmt.Errorf("--contenders must be from 1 to 1000")
			}
			if f.duration <= 0 || f.hold < 0 || f.poll <= 0 {
				return fmt.Errorf("--duration and --poll must be positive, --hold not negative")
			}
			if g.readonly {
				return fmt.Errorf("--readonly: the demo creates lock nodes")
			}
			if !f.headless {
				if err := checkDemoViewFlags(cmd, f); err != nil {
					return err
				}
			}
			// Interrupted, the demo still cleans up after itself.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			servers, cleanup, err := demoServer(cmd, g)
			if err != nil {
				return err
			}
			defer cleanup()
			var capacity connectionCapacity
			if cmd.Flags().Changed("server") {
				capacity = serverCapacity(ctx, servers)
			}
			if !f.headless {
				return runDemoView(ctx, cmd, g, f, servers, capacity)
			}
			if err := capacity.fits(f.contenders + demoReserve); err != nil {
				return fmt.Errorf("--contenders %d: %w", f.contenders, err)
			}
			res, err := demo.RunHeadless(ctx, demo.HeadlessOptions{
				Servers: servers, Contenders: f.contenders, Duration: f.duration,
				Hold: f.hold, Poll: f.poll, Progress: cmd.ErrOrStderr(),
			})
			if err != nil {
				return err
			}
			if format == cliout.JSON {
				return cliout.WriteJSON(cmd.OutOrStdout(), res)
			}
			return writeDemoTable(cmd.OutOrStdout(), res)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.headless, "headless", false, "no view: run the lanes one after another and print the figures")
	fl.IntVar(&f.contenders, "contenders", demo.DefaultContenders, "contenders per lane")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "measured time per lane (--headless)")
	fl.DurationVar(&f.heldTooLong, "held-too-long", demoHeldTooLong, "the explorer warns about holders past this (the seeded stuck lock never lets go)")
	fl.DurationVar(&f.hold, "hold", demo.DefaultHold, "how long each holder holds the lock")
	fl.DurationVar(&f.poll, "poll", demo.DefaultPoll, "how long a spin contender sleeps between tries")
	fl.StringVarP(&f.output, "output", "o", "table", "output format: table or json (--headless)")
	return cmd
}

// demoServer returns the servers the demo runs on: the embedded server,
// unless --server was given; then the demo's directory is removed at the end.
func demoServer(cmd *cobra.Command, g *globalOptions) ([]string, func(), error) {
	if !cmd.Flags().Changed("server") {
		srv, err := zkserver.Start("127.0.0.1:0", zkserver.Config{TickTime: 200 * time.Millisecond})
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "embedded ZooKeeper-compatible server on %s\n", srv.ConnectString())
		return []string{srv.ConnectString()}, func() { srv.Close() }, nil
	}
	target, err := g.connect()
	if err != nil {
		return nil, nil, err
	}
	if target.Chroot != "" {
		return nil, nil, fmt.Errorf("--server: the demo runs under %s; give it no chroot", demo.Base)
	}
	cleanup := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := g.dial(ctx)
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "could not remove %s: %v\n", demo.Base, err)
			return
		}
		defer c.Close()
		w, err := c.Writer()
		if err == nil {
			err = w.DeleteRecursive(ctx, demo.Base)
		}
		if err != nil && !zkview.IsNoNode(err) {
			fmt.Fprintf(cmd.ErrOrStderr(), "could not remove %s: %v\n", demo.Base, err)
		}
	}
	return target.Servers, cleanup, nil
}

// demoViewMaxContenders bounds the view's lanes: each contender is a
// session, and a row on screen.
const demoViewMaxContenders = 100

// checkDemoViewFlags refuses what only --headless takes, and more
// contenders than the view draws.
func checkDemoViewFlags(cmd *cobra.Command, f demoFlags) error {
	for _, name := range []string{"duration", "output"} {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s is for --headless; the demo view runs until you quit", name)
		}
	}
	if f.contenders > demoViewMaxContenders {
		return fmt.Errorf("--contenders: the demo view takes at most %d per lane (--headless takes more)", demoViewMaxContenders)
	}
	if f.heldTooLong <= 0 {
		return fmt.Errorf("--held-too-long must be positive")
	}
	return nil
}

// runDemoView seeds the explorer's state, starts the three lanes at once
// and shows them, until the user quits or ctx ends; then everything the
// demo made goes (the caller removes /zkx-demo and stops the server).
func runDemoView(ctx context.Context, cmd *cobra.Command, g *globalOptions, f demoFlags, servers []string, capacity connectionCapacity) error {
	progress := cmd.ErrOrStderr()
	fmt.Fprintf(progress, "seeding %s (services, locks, a queue, an election)…\n", demo.Base)
	seeded, err := demo.Seed(ctx, demo.SeedOptions{Servers: servers, Rotate: demoRotate, Session: g.sessionOptions()})
	if err != nil {
		return err
	}
	defer seeded.Close()
	contenders, demoCap, err := fitContenders(capacity, seeded.Sessions(), f.contenders)
	if err != nil {
		return err
	}
	if contenders < f.contenders {
		fmt.Fprintf(progress, "%s: %d contenders per lane instead of %d\n", capacity, contenders, f.contenders)
		f.contenders = contenders
	}

	fmt.Fprintf(progress, "starting %d contenders in each of %d lanes…\n", f.contenders, len(demo.Strategies))
	lanes := make([]*demo.Lane, len(demo.Strategies))
	for i, s := range demo.Strategies {
		lanes[i] = demo.NewLane(s, servers, demo.LaneDir(demo.Base, s), f.hold, f.poll)
	}
	defer stopLanes(lanes)
	if err := startLanes(lanes, f.contenders); err != nil {
		return err
	}

	connect := strings.Join(servers, ",")
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	client, err := zkview.Dial(dctx, connect, g.viewOptions()...)
	cancel()
	if err != nil {
		return err
	}
	defer client.Close()
	return tui.Run(ctx, tui.Config{
		Client: client, Connect: connect, Path: demo.Base, Demo: lanes, HeldTooLong: f.heldTooLong, DemoCap: demoCap,
	})
}

// demoReserve is the connections kept free beside the demo's sessions:
// the explorer's, its server questions, and one for another zkx command.
const demoReserve = 4

// connectionCapacity is how many connections the servers accept from this
// machine, as their maxClientCnxns says; total 0 means no known limit.
type connectionCapacity struct {
	perMember, members, total int
}

// serverCapacity asks the first member that answers conf. Each session
// connects to one member, in a random order, so an ensemble takes about
// members × the limit; three quarters of that leaves room for an uneven
// spread.
func serverCapacity(ctx context.Context, servers []string) connectionCapacity {
	for _, addr := range servers {
		limit, known, err := introspect.ConnectionLimit(ctx, addr, 2*time.Second, nil)
		switch {
		case err != nil:
			continue // ask the next member
		case !known || limit == 0:
			return connectionCapacity{} // no limit said, or none
		}
		total := limit
		if len(servers) > 1 {
			total = max(limit, limit*len(servers)*3/4)
		}
		return connectionCapacity{perMember: limit, members: len(servers), total: total}
	}
	return connectionCapacity{}
}

func (c connectionCapacity) limited() bool { return c.total > 0 }

// fitContenders returns how many contenders per lane fit beside the
// seeded sessions (wanted, or fewer), and the cap for adding more.
func fitContenders(c connectionCapacity, seeded, wanted int) (int, tui.DemoCap, error) {
	if !c.limited() {
		return wanted, tui.DemoCap{}, nil
	}
	most := (c.total - seeded - demoReserve) / len(demo.Strategies)
	if most < 2 {
		return 0, tui.DemoCap{}, fmt.Errorf("%s: too few for the demo's seeded state (%d sessions) and two contenders per lane; raise maxClientCnxns, or run the demo on the embedded server (no --server)", c, seeded)
	}
	return min(wanted, most), tui.DemoCap{Max: most, Reason: c.String()}, nil
}

// fits says whether n connections fit.
func (c connectionCapacity) fits(n int) error {
	if c.limited() && n > c.total {
		return fmt.Errorf("needs %d connections from this machine; %s: lower --contenders, or raise maxClientCnxns", n, c)
	}
	return nil
}

func (c connectionCapacity) String() string {
	if c.members > 1 {
		return fmt.Sprintf("the ensemble's members accept %d connections each from this address (maxClientCnxns), about %d in all", c.perMember, c.total)
	}
	return fmt.Sprintf("the server accepts %d connections from this address (maxClientCnxns)", c.perMember)
}

// startLanes starts every lane's contenders at once.
func startLanes(lanes []*demo.Lane, n int) error {
	errs := make([]error, len(lanes))
	var wg sync.WaitGroup
	for i, l := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Start(n); err != nil {
				errs[i] = fmt.Errorf("%s lane: %w", l.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// stopLanes closes every lane's contenders at once.
func stopLanes(lanes []*demo.Lane) {
	var wg sync.WaitGroup
	for _, l := range lanes {
		wg.Add(1)
		go func() { defer wg.Done(); l.Stop() }()
	}
	wg.Wait()
}

func writeDemoTable(out io.Writer, res demo.Result) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("LANE"), st.Header("CONTENDERS"), st.Header("ACQUISITIONS"), st.Header("ACQ/S"),
		st.Header("NOTIFICATIONS/RELEASE"), st.Header("READS/ACQ"), st.Header("CREATES/ACQ"),
		st.Header("HANDOFF P50"), st.Header("P99"), st.Header("VIOLATIONS"))
	for _, l := range res.Lanes {
		violations := st.Good("0")
		if l.Violations > 0 {
			violations = st.Warn(strconv.FormatUint(l.Violations, 10))
		}
		t.Row(l.Lane, strconv.Itoa(l.Contenders), strconv.FormatUint(l.Acquisitions, 10),
			fmt.Sprintf("%.1f", l.AcquisitionsPerSecond), fmt.Sprintf("%.2f", l.NotificationsPerRelease),
			fmt.Sprintf("%.2f", l.ReadsPerAcquisition), fmt.Sprintf("%.2f", l.CreatesPerAcquisition),
			fmt.Sprintf("%.2f ms", l.HandoffP50Ms), fmt.Sprintf("%.2f ms", l.HandoffP99Ms), violations)
	}
	return t.Flush()
}
