package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/demo/sweepchart"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/tui"
	"github.com/zkx-dev/zkx/zkview"
)

// demoOptions are zkx demo's flags.
type demoOptions struct {
	globals        *globalOptions
	headless       bool
	contenders     int
	duration       time.Duration
	hold           time.Duration
	poll           time.Duration
	output         string
	lanes          string
	redis          string
	lease          time.Duration
	sessionTimeout time.Duration
	crashEvery     int
	stall          time.Duration
	stallEvery     int
	sweep          string
	chart          string
	// heldTooLong is short in the demo so the seeded stuck lock is
	// flagged within a minute: no server can backdate a node's ctime.
	heldTooLong time.Duration

	format cliout.Format // -o, once checked
	kinds  []demo.Kind   // --lanes, once checked
	// serverGiven: --server was given, so the demo runs there rather than
	// on an embedded server.
	serverGiven bool
	// headlessGiven are the flags given that only --headless takes.
	headlessGiven []string
}

// demoHeadlessFlags are the flags only --headless takes.
var demoHeadlessFlags = []string{"duration", "output"}

// Settings of the demo view.
const (
	demoHeldTooLong = 30 * time.Second
	// demoRotate is how long a seeded lock's holder holds before the next
	// one's turn, so only the stuck lock ages past demoHeldTooLong.
	demoRotate = 10 * time.Second
)

func newDemoCommand(g *globalOptions, run runFunc[*demoOptions]) *cobra.Command {
	f := &demoOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show why ZooKeeper locks watch their predecessor, and what a Redis lock cannot do: chain vs herd vs spin vs redis",
		Long: `demo runs four lanes of lock contenders side by side, each with its own session:
  chain  each waiter watches the node just ahead of it (one notification per release)
  herd   every waiter watches the holder (every release wakes every waiter)
  spin   no watches: create one lock node, sleep, retry, as a Redis SET NX lock does
  redis  the real thing: SET key token NX PX lease, retried every --poll, a Lua
         compare-and-delete release, and a watchdog renewing the lease every lease/3
with counters measured as they run: acquisitions, notifications per release, reads
and creates (for Redis: SETs) per acquisition, handoff latency, lease renewals, and
violations (two holders at once) seen by an independent checker.

Every holder writes to a fenced store, which refuses a write whose fencing token (the
lock node's czxid) is older than one it has seen. Failure scenarios show what that is
for: --crash-every N (or k) kills a holder without a release, and its lock waits for
the session (--session-timeout) or the lease (--lease) to expire; --stall D
--stall-every N (or z) freezes a holder right after it acquires, with no pings and no
renewals, so its lock expires and passes on while it believes it holds; then it writes.
A ZooKeeper lane's stale write is refused by the token (stale_rejected); a Redis lease
has no token, so its write lands (unsafe_writes). Without the token check a ZooKeeper
lock would be just as unsafe.

The redis lane runs on an embedded in-process Redis (miniredis) unless --redis
HOST:PORT (or $ZKX_REDIS) names a real one; --lanes picks the lanes.

Without --server it starts zkx's embedded ZooKeeper-compatible server in-process; with
--server it runs under /zkx-demo on that ensemble and removes it on exit. Every contender
and seeded holder has a session of its own, all from this machine: the demo reads the
servers' maxClientCnxns (60 connections per client address by default) and runs fewer
contenders per lane when it must, keeping room for the explorer and one more zkx.

The demo view runs the lanes at once. Beside them it seeds state for the explorer
under /zkx-demo: services with JSON config, locks laid out as zkx, Curator and Kazoo
lay them out, a stuck lock, a read-write lock, a semaphore, a queue and an election.
Esc goes from the demo to the explorer, :demo comes back.

--headless runs the lanes one after another for --duration each and prints the figures;
with --sweep it runs them at each contender count in fresh sessions and prints (and with
--chart draws) how each lane scales.`,
		Example: `  zkx demo
  zkx demo --contenders 20 --server zk1:2181 --redis 127.0.0.1:6379
  zkx demo --lease 2s --session-timeout 2s        # z and k show their effect in seconds
  zkx demo --headless --contenders 20 --duration 10s
  zkx demo --headless -o json --server zk1:2181,zk2:2181,zk3:2181
  zkx demo --headless --lease 1s --session-timeout 1s --stall 3s --stall-every 20 --duration 15s
  zkx demo --headless --crash-every 10 --lease 2s --session-timeout 2s --duration 20s
  zkx demo --headless --sweep 10,50,100,200,400 --hold 0 --duration 5s --chart herd.svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.serverGiven = cmd.Flags().Changed("server")
			f.headlessGiven = nil
			for _, name := range demoHeadlessFlags {
				if cmd.Flags().Changed(name) {
					f.headlessGiven = append(f.headlessGiven, name)
				}
			}
			return runE(f, run)(cmd, args)
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
	fl.StringVar(&f.lanes, "lanes", "chain,herd,spin,redis", "the lanes to run, comma-separated")
	fl.StringVar(&f.redis, "redis", "", "HOST:PORT of a real Redis for the redis lane ($ZKX_REDIS; default: an embedded one)")
	fl.DurationVar(&f.lease, "lease", demo.DefaultLease, "the Redis lock's lease; its watchdog renews it every lease/3")
	fl.DurationVar(&f.sessionTimeout, "session-timeout", demo.DefaultSessionTimeout, "the ZooKeeper contenders' session timeout")
	fl.IntVar(&f.crashEvery, "crash-every", 0, "crash every Nth holder right after it acquires, without a release (0: never)")
	fl.DurationVar(&f.stall, "stall", 0, "how long a stalled holder freezes (default for z: the longer of --lease and --session-timeout, plus 2s)")
	fl.IntVar(&f.stallEvery, "stall-every", 0, "freeze every Nth holder for --stall right after it acquires (0: never)")
	fl.StringVar(&f.sweep, "sweep", "", "--headless: run at each of these contender counts (e.g. 10,50,100,200,400)")
	fl.StringVar(&f.chart, "chart", "", "--sweep: draw acquisitions/s and notifications/acquisition against contenders to FILE.svg (SVG only)")
	return cmd
}

func (f *demoOptions) complete([]string) (err error) {
	if f.format, err = cliout.ParseFormat(f.output); err != nil {
		return err
	}
	if f.contenders < 1 || f.contenders > 1000 {
		return fmt.Errorf("--contenders must be from 1 to 1000")
	}
	if f.duration <= 0 || f.hold < 0 || f.poll <= 0 {
		return fmt.Errorf("--duration and --poll must be positive, --hold not negative")
	}
	if f.kinds, err = demo.ParseKinds(f.lanes); err != nil {
		return fmt.Errorf("--lanes: %w", err)
	}
	if err := checkScenarioFlags(f); err != nil {
		return err
	}
	if f.globals.readonly {
		return fmt.Errorf("--readonly: the demo creates lock nodes")
	}
	if !f.headless {
		return checkDemoViewFlags(f)
	}
	return nil
}

// runDemo runs the lanes: in the demo view, or --headless one after
// another and prints the figures, or --sweep.
func runDemo(ctx context.Context, f *demoOptions, std streams) error {
	// Interrupted, the demo still cleans up after itself.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.sweep != "" {
		return runSweep(ctx, std, f)
	}
	servers, cleanup, err := demoServer(std.errOut, f)
	if err != nil {
		return err
	}
	defer cleanup()
	shared := laneSettings(f, servers)
	if demo.HasRedis(f.kinds) {
		addr, stopRedis, err := demo.StartRedis(ctx, redisFlag(f), std.errOut)
		if err != nil {
			return err
		}
		defer stopRedis()
		shared.Redis = addr
	}
	var capacity demo.Capacity
	if f.serverGiven {
		capacity = demo.ServerCapacity(ctx, servers)
	}
	if !f.headless {
		return runDemoView(ctx, std, f, shared, capacity)
	}
	if err := capacity.Fits(f.contenders + demo.Reserve); err != nil {
		return fmt.Errorf("--contenders %d: %w", f.contenders, err)
	}
	res, err := demo.RunHeadless(ctx, demo.HeadlessOptions{
		Lanes: f.kinds, Contenders: f.contenders, Duration: f.duration, Lane: shared, Progress: std.errOut,
	})
	if err != nil {
		return err
	}
	if f.format == cliout.JSON {
		return cliout.WriteJSON(std.out, res)
	}
	return writeDemoTable(std.out, res)
}

// checkScenarioFlags refuses settings the failure scenarios cannot use.
func checkScenarioFlags(f *demoOptions) error {
	switch {
	case f.lease < 3*time.Millisecond:
		return fmt.Errorf("--lease must be at least 3ms (the watchdog renews every lease/3)")
	case f.sessionTimeout <= 0:
		return fmt.Errorf("--session-timeout must be positive")
	case f.crashEvery < 0 || f.stallEvery < 0:
		return fmt.Errorf("--crash-every and --stall-every must not be negative")
	case f.stall < 0:
		return fmt.Errorf("--stall must not be negative")
	case f.stallEvery > 0 && f.stall == 0:
		return fmt.Errorf("--stall-every needs --stall D: how long each holder freezes")
	case f.chart != "" && f.sweep == "":
		return fmt.Errorf("--chart draws a --sweep")
	case f.sweep != "" && !f.headless:
		return fmt.Errorf("--sweep runs with --headless")
	}
	if f.chart != "" {
		// Refused now, not after the sweep has measured for minutes.
		return sweepchart.CheckPath(f.chart)
	}
	return nil
}

// laneSettings are the settings every lane shares.
func laneSettings(f *demoOptions, servers []string) demo.LaneConfig {
	return demo.LaneConfig{
		Servers: servers, Hold: f.hold, Poll: f.poll, Lease: f.lease, SessionTimeout: f.sessionTimeout,
		CrashEvery: f.crashEvery, Stall: f.stall, StallEvery: f.stallEvery,
	}
}

// redisFlag is --redis, else $ZKX_REDIS: a real Redis for the redis lane.
func redisFlag(f *demoOptions) string {
	if f.redis != "" {
		return f.redis
	}
	return os.Getenv("ZKX_REDIS")
}

// demoServer returns the servers the demo runs on: the embedded server,
// unless --server was given; then the demo's directory is removed at the end.
func demoServer(errOut io.Writer, f *demoOptions) ([]string, func(), error) {
	g := f.globals
	if !f.serverGiven {
		srv, err := zkserver.Start("127.0.0.1:0", zkserver.Config{TickTime: 200 * time.Millisecond})
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(errOut, "embedded ZooKeeper-compatible server on %s\n", srv.ConnectString())
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
			fmt.Fprintf(errOut, "could not remove %s: %v\n", demo.Base, err)
			return
		}
		defer c.Close()
		w, err := c.Writer()
		if err == nil {
			err = w.DeleteRecursive(ctx, demo.Base)
		}
		if err != nil && !zkview.IsNoNode(err) {
			fmt.Fprintf(errOut, "could not remove %s: %v\n", demo.Base, err)
		}
	}
	return target.Servers, cleanup, nil
}

// demoViewMaxContenders bounds the view's lanes: each contender is a
// session, and a row on screen.
const demoViewMaxContenders = 100

// checkDemoViewFlags refuses what only --headless takes, and more
// contenders than the view draws.
func checkDemoViewFlags(f *demoOptions) error {
	for _, name := range f.headlessGiven {
		return fmt.Errorf("--%s is for --headless; the demo view runs until you quit", name)
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
func runDemoView(ctx context.Context, std streams, f *demoOptions, shared demo.LaneConfig, capacity demo.Capacity) error {
	g, kinds, servers := f.globals, f.kinds, shared.Servers
	progress := std.errOut
	fmt.Fprintf(progress, "seeding %s (services, locks, a queue, an election)…\n", demo.Base)
	seeded, err := demo.Seed(ctx, demo.SeedOptions{Servers: servers, Rotate: demoRotate, Session: g.sessionOptions()})
	if err != nil {
		return err
	}
	defer seeded.Close()
	contenders, limit, err := capacity.Fit(seeded.Sessions(), f.contenders, demo.ZooKeeperLanes(kinds))
	if err != nil {
		return err
	}
	if contenders < f.contenders {
		fmt.Fprintf(progress, "%s: %d contenders per lane instead of %d\n", capacity, contenders, f.contenders)
	}

	fmt.Fprintf(progress, "starting %d contenders in each of %d lanes…\n", contenders, len(kinds))
	lanes := make([]*demo.Lane, len(kinds))
	for i, k := range kinds {
		lanes[i] = demo.NewLane(k, demo.LaneConfigFor(k, demo.Base, shared))
	}
	defer demo.StopLanes(lanes)
	if err := demo.StartLanes(lanes, contenders); err != nil {
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
		Client: client, Connect: connect, Path: demo.Base, Demo: lanes, HeldTooLong: f.heldTooLong, DemoLimit: limit,
	})
}

func writeDemoTable(out io.Writer, res demo.Result) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("LANE"), st.Header("CONTENDERS"), st.Header("ACQUISITIONS"), st.Header("ACQ/S"),
		st.Header("NOTIFICATIONS/RELEASE"), st.Header("READS/ACQ"), st.Header("CREATES/ACQ"),
		st.Header("HANDOFF P50"), st.Header("P99"), st.Header("VIOLATIONS"), st.Header("RENEWALS"),
		st.Header("UNSAFE WRITES"), st.Header("STALE REFUSED"), st.Header("CRASHES"), st.Header("RECOVERY P50"), st.Header("P99"))
	for _, l := range res.Lanes {
		violations := st.Good("0")
		if l.Violations > 0 {
			violations = st.Warn(strconv.FormatUint(l.Violations, 10))
		}
		unsafe := st.Good("0")
		if l.UnsafeWrites > 0 {
			unsafe = st.Warn(strconv.FormatUint(l.UnsafeWrites, 10))
		}
		t.Row(l.Lane, strconv.Itoa(l.Contenders), strconv.FormatUint(l.Acquisitions, 10),
			fmt.Sprintf("%.1f", l.AcquisitionsPerSecond), fmt.Sprintf("%.2f", l.NotificationsPerRelease),
			fmt.Sprintf("%.2f", l.ReadsPerAcquisition), fmt.Sprintf("%.2f", l.CreatesPerAcquisition),
			fmt.Sprintf("%.2f ms", l.HandoffP50Ms), fmt.Sprintf("%.2f ms", l.HandoffP99Ms), violations,
			strconv.FormatUint(l.Renewals, 10), unsafe, strconv.FormatUint(l.StaleRejected, 10), strconv.FormatUint(l.Crashes, 10),
			fmt.Sprintf("%.0f ms", l.RecoveryP50Ms), fmt.Sprintf("%.0f ms", l.RecoveryP99Ms))
	}
	return t.Flush()
}
