package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/zkview/metrics"
)

// exporterFlags are zkx exporter's own flags.
type exporterFlags struct {
	listen      string
	maxRecipes  int
	tablesEvery time.Duration
	rescanEvery time.Duration
	heldTooLong time.Duration
	older       time.Duration
	settle      time.Duration
	maxes       []string
	maxFrom     []string
}

// defaultListen is where zkx exporter serves /metrics unless told.
const defaultListen = "127.0.0.1:9141"

func newExporterCommand(g *globalOptions) *cobra.Command {
	var flags exporterFlags
	cmd := &cobra.Command{
		Use:   "exporter [PATH]",
		Short: "Serve the recipes' health at or under PATH as Prometheus metrics (/metrics), from one session",
		Long: `exporter is a long-running process that keeps zkx's model of the recipes at
or under PATH (default /) current and serves it on /metrics in Prometheus's
format, with the alarm kinds of zkx locks --check, zkx check and the
explorer: two holders, a deadlock, a holder gone or silent or held too long,
an election leaderless or its leader silent, a stale queue, an item stuck in
flight, a partitioner stuck, a member down. docs/metrics.md is the contract
(every metric, label and alarm kind); docs/alerts/zkx.rules.yml the alert
rules that page on them.

It holds one ZooKeeper session and writes nothing (it runs as --readonly).
Recipes are found by a walk at start and every --rescan, and from the
servers' list of ephemeral nodes whenever a new directory of them appears;
each is then followed by watches and recognised again when its nodes change,
at most four times a second however busy it is. The servers' tables (who is
connected, when each session was last heard from, who watches what) are read
every --tables-every. A scrape reads what the last refresh found: it never
reads ZooKeeper.

When no member takes a session, the session expires or the servers answer
what zkx cannot read, zkx_up is 0, the error is counted in
zkx_refresh_errors_total{reason} and said on stderr, naming the server, and
zkx tries again with a backoff (1s doubling to 30s); after an expiry the
model is rebuilt on the new session. Nothing is written to stdout; stderr
says what happened, once per change.

The connection flags are those of every command (--server, contexts, TLS,
SASL, --auth or $ZKX_AUTH, --admin-url / --admin-port for the AdminServers).`,
		Example: `  zkx exporter --server zk1:2181,zk2:2181,zk3:2181
  zkx exporter --listen 0.0.0.0:9141 --admin-port 8080 --held-too-long 15m /app
  zkx --context prod-a exporter --max-recipes 5000
  curl -s http://127.0.0.1:9141/metrics | grep zkx_recipe_alarm
  # prometheus.yml:  scrape_configs: [{job_name: zkx, static_configs: [{targets: ['127.0.0.1:9141']}]}]`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := "/"
			if len(args) == 1 {
				var err error
				if root, err = checkPath(args[0]); err != nil {
					return err
				}
			}
			return runExporter(cmd, g, &flags, root)
		},
	}
	f := cmd.Flags()
	f.StringVar(&flags.listen, "listen", defaultListen, "the address to serve /metrics on (host:port)")
	f.IntVar(&flags.maxRecipes, "max-recipes", metrics.DefaultMaxRecipes, "at most this many recipes get series of their own (those with an alarm first); the rest are counted in zkx_recipes_dropped_total")
	f.DurationVar(&flags.tablesEvery, "tables-every", 5*time.Second, "how often the servers' tables are read (liveness, connections, watches)")
	// A walk of a million znodes costs about 40 s of a core: every hour
	// is about 1 % of a core on average.
	f.DurationVar(&flags.rescanEvery, "rescan", time.Hour, "how often the tree is walked again for new recipes (queues and barriers; locks and elections are found sooner, from the servers' ephemeral nodes); a walk of a million znodes costs about 40 s of a core")
	f.DurationVar(&flags.heldTooLong, "held-too-long", 10*time.Minute, "a lock holder that has held longer than this is an alarm (held-too-long)")
	f.DurationVar(&flags.older, "queue-stale", 10*time.Minute, "a queue whose item has waited longer than this is an alarm (queue-stale)")
	f.DurationVar(&flags.settle, "settle", 2*time.Minute, "a partitioner whose item locks were not taken again this long after its party changed is an alarm (allocation-stuck)")
	f.StringArrayVar(&flags.maxes, "max", nil, "a Curator semaphore's maximum: SEMAPHORE=N; repeatable")
	f.StringArrayVar(&flags.maxFrom, "max-from", nil, "the SharedCount a Curator semaphore reads its maximum from: SEMAPHORE=COUNT; repeatable")
	return cmd
}

// runExporter serves /metrics and refreshes until interrupted (SIGINT,
// SIGTERM).
func runExporter(cmd *cobra.Command, g *globalOptions, flags *exporterFlags, root string) error {
	switch {
	case flags.tablesEvery < 100*time.Millisecond:
		return fmt.Errorf("--tables-every %v: at least 100ms", flags.tablesEvery)
	case flags.rescanEvery < time.Second:
		return fmt.Errorf("--rescan %v: at least 1s", flags.rescanEvery)
	case flags.maxRecipes < 1:
		return fmt.Errorf("--max-recipes must be at least 1")
	case flags.heldTooLong <= 0 || flags.older <= 0 || flags.settle <= 0:
		return fmt.Errorf("--held-too-long, --queue-stale and --settle must be positive")
	}
	maxima, err := semaphoreMaxima(flags.maxes, flags.maxFrom, root)
	if err != nil {
		return err
	}
	if _, err := g.connect(); err != nil {
		return err
	}
	g.readonly = true // the exporter writes nothing
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	exp := metrics.New(metrics.Options{MaxRecipes: flags.maxRecipes, RefreshEvery: flags.tablesEvery, Version: currentBuild().Version})
	ln, err := net.Listen("tcp", flags.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", flags.listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", exp.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "zkx exporter: the metrics are on /metrics (docs/metrics.md)")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	notef(cmd.ErrOrStderr(), "serving /metrics on http://%s for %s at or under %s", ln.Addr(), g.server, root)

	w := &watchtower{globals: g, flags: flags, root: root, maxima: maxima, exp: exp, log: cmd.ErrOrStderr()}
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	select {
	case <-ctx.Done():
	case err = <-served:
		stop()
	}
	<-done
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	}
	return nil
}
