// Package metrics serves zkx's model of an ensemble's recipes as
// Prometheus metrics, by docs/metrics.md's contract, with
// github.com/prometheus/client_golang: the exporter's refresh publishes a
// State, and a scrape copies out the series computed from the last one
// (it never reads ZooKeeper).
package metrics

import (
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultMaxRecipes is the default cap on recipes with series of their own.
const DefaultMaxRecipes = 1000

// Options configure an Exporter.
type Options struct {
	// MaxRecipes caps the recipes with series of their own (default
	// DefaultMaxRecipes).
	MaxRecipes int
	// RefreshEvery is how often the exporter refreshes: zkx_up is 0 when
	// no State was published for three of these.
	RefreshEvery time.Duration
	// Version is zkx's version, for zkx_build_info.
	Version string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Exporter is a prometheus.Collector of the contract's metrics, fed with
// Publish. Safe for concurrent use.
type Exporter struct {
	opts Options

	mu        sync.Mutex
	last      *series
	published time.Time
	roles     map[string]role // system roles seen, by path
	outside   map[string]bool // recipes left out by the cap at the last State

	refreshErrors *prometheus.CounterVec
	dropped       prometheus.Counter
	registry      *prometheus.Registry
}

// descriptions of the contract's gauges (the counters are client_golang's
// own).
var (
	descUp           = prometheus.NewDesc("zkx_up", "1 when the last refresh reached the ensemble and the model is current.", nil, nil)
	descMemberUp     = prometheus.NewDesc("zkx_member_up", "1 when the member answered within its deadline at the last read of the servers' tables and serves clients.", []string{"member"}, nil)
	descRefresh      = prometheus.NewDesc("zkx_refresh_seconds", "How long the last refresh took.", nil, nil)
	descRecipes      = prometheus.NewDesc("zkx_recipes", "Recipes recognised and followed, by class, those left out by --max-recipes included.", []string{"class"}, nil)
	descBuild        = prometheus.NewDesc("zkx_build_info", "Always 1; the labels say which zkx serves the metrics.", []string{"version", "goversion"}, nil)
	descAlarm        = prometheus.NewDesc("zkx_recipe_alarm", "1 while the alarm kind holds on the recipe at path; absent when it does not.", []string{"path", "recipe", "kind"}, nil)
	descLockHolders  = prometheus.NewDesc("zkx_lock_holders", "Contenders that hold the lock for certain by their library's rule.", []string{"path"}, nil)
	descLockWaiters  = prometheus.NewDesc("zkx_lock_waiters", "Contenders in line for the lock.", []string{"path"}, nil)
	descLockHeld     = prometheus.NewDesc("zkx_lock_held_seconds", "How long the holder has held (the longest, with several); absent when zkx did not see it begin.", []string{"path"}, nil)
	descLockAge      = prometheus.NewDesc("zkx_lock_holder_age_seconds", "The age of the holder's node (the oldest, with several): an upper bound of how long it has held.", []string{"path"}, nil)
	descLockHeard    = prometheus.NewDesc("zkx_lock_holder_last_heard_seconds", "How long the holder's session had not been heard from by its server (the longest, with several); absent when the tables do not say.", []string{"path"}, nil)
	descCandidates   = prometheus.NewDesc("zkx_election_candidates", "Candidates in line, the leader not counted.", []string{"path"}, nil)
	descLeaderHeard  = prometheus.NewDesc("zkx_election_leader_last_heard_seconds", "How long the leader's session had not been heard from; absent when nobody leads or the tables do not say.", []string{"path"}, nil)
	descQueueItems   = prometheus.NewDesc("zkx_queue_items", "Items in the queue.", []string{"path"}, nil)
	descQueueOldest  = prometheus.NewDesc("zkx_queue_oldest_item_age_seconds", "The age of the oldest item's node; absent when the queue is empty.", []string{"path"}, nil)
	descRolePresent  = prometheus.NewDesc("zkx_system_role_present", "1 while the system recognised at root has its leader role held, 0 while it is vacant.", []string{"system", "root", "role"}, nil)
	gaugeDescs       = []*prometheus.Desc{descUp, descMemberUp, descRefresh, descRecipes, descBuild, descAlarm, descLockHolders, descLockWaiters, descLockHeld, descLockAge, descLockHeard, descCandidates, descLeaderHeard, descQueueItems, descQueueOldest, descRolePresent}
	refreshErrorHelp = "Errors met while refreshing, by reason."
)

// New returns an Exporter that has published nothing yet (zkx_up 0).
func New(opts Options) *Exporter {
	if opts.MaxRecipes <= 0 {
		opts.MaxRecipes = DefaultMaxRecipes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	e := &Exporter{
		opts:          opts,
		roles:         map[string]role{},
		outside:       map[string]bool{},
		refreshErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "zkx_refresh_errors_total", Help: refreshErrorHelp}, []string{"reason"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "zkx_recipes_dropped_total",
			Help: "Recipes left out of the per-recipe series because --max-recipes was reached, counted each time one is left out."}),
		registry: prometheus.NewRegistry(),
	}
	for _, r := range Reasons {
		e.refreshErrors.WithLabelValues(r)
	}
	e.registry.MustRegister(e, e.refreshErrors, e.dropped)
	return e
}

// Handler serves the metrics in Prometheus's exposition formats.
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Registry is the registry the metrics are in (for tests and for
// serving them with other collectors).
func (e *Exporter) Registry() *prometheus.Registry { return e.registry }

// Publish makes st the state scrapes read from now on.
func (e *Exporter) Publish(st State) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := computeSeries(st, e.opts.MaxRecipes, e.roles)
	outside := make(map[string]bool, len(s.dropped))
	for _, p := range s.dropped {
		if !e.outside[p] {
			e.dropped.Inc() // newly left out: counted once while it stays out
		}
		outside[p] = true
	}
	e.outside = outside
	if !st.Up {
		// A model that is not current says nothing of the recipes: its
		// alarms would be stale (the ensemble-unreachable alert says it).
		s.alarm = nil
	}
	e.last, e.published = s, st.At
	if !st.Up {
		e.published = time.Time{}
	}
}

// RefreshFailed counts an error of a refresh under its reason (one of
// Reasons; another is counted as other).
func (e *Exporter) RefreshFailed(reason string) {
	known := false
	for _, r := range Reasons {
		known = known || r == reason
	}
	if !known {
		reason = ReasonOther
	}
	e.refreshErrors.WithLabelValues(reason).Inc()
}

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range gaugeDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector: the series of the last State
// published, and zkx_up.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	s, published := e.last, e.published
	e.mu.Unlock()
	up := !published.IsZero() && (e.opts.RefreshEvery <= 0 || e.opts.Now().Sub(published) <= 3*e.opts.RefreshEvery)
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, boolValue(up))
	ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, 1, e.opts.Version, runtime.Version())
	if s == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descRefresh, prometheus.GaugeValue, s.refreshSeconds)
	for _, group := range []struct {
		desc    *prometheus.Desc
		samples []sample
	}{
		{descMemberUp, s.members}, {descRecipes, s.recipes}, {descAlarm, s.alarm},
		{descLockHolders, s.lockHolders}, {descLockWaiters, s.lockWaiters}, {descLockHeld, s.lockHeld},
		{descLockAge, s.lockHolderAge}, {descLockHeard, s.lockLastHeard},
		{descCandidates, s.candidates}, {descLeaderHeard, s.leaderHeard},
		{descQueueItems, s.queueItems}, {descQueueOldest, s.queueOldest}, {descRolePresent, s.rolePresent},
	} {
		for _, smp := range group.samples {
			ch <- prometheus.MustNewConstMetric(group.desc, prometheus.GaugeValue, smp.value, smp.labels...)
		}
	}
}
