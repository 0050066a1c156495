package promtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

const (
	// DefaultJob is the scrape job's name when Config.Job is empty: the
	// one docs/alerts/zkx.rules.yml expects of the exporter's scrape.
	DefaultJob = "zkx"
	// DefaultInterval is the scrape and evaluation interval when
	// Config.Interval is zero: a quarter of a second, so that each step of
	// an alert (scraped, pending, firing, resolved) takes a fraction of a
	// second. Prometheus takes sub-second intervals; the scrape timeout,
	// which may not exceed the interval, is the interval: a loopback scrape
	// of a test's target answers in milliseconds.
	DefaultInterval = 250 * time.Millisecond
	// ShortFor is a for: to give ShortenFor: two evaluations at
	// DefaultInterval, so that an alert is pending before it fires.
	ShortFor = 2 * DefaultInterval
	// startDeadline bounds a start: the server answering /-/ready.
	startDeadline = time.Minute
	// startAttempts is how many free ports are tried: a port is free only
	// until something else binds it.
	startAttempts = 5
	// requestTimeout bounds one request to the API.
	requestTimeout = 10 * time.Second
	// logLines is how much of the server's log a failure shows.
	logLines = 30
)

// Config is what a test's Prometheus scrapes and evaluates.
type Config struct {
	// Job names the scrape job (the job label of its series and of up);
	// DefaultJob when empty.
	Job string
	// Targets are the host:port addresses scraped over HTTP at MetricsPath.
	Targets []string
	// MetricsPath is the path scraped; /metrics when empty.
	MetricsPath string
	// Interval is both the scrape and the evaluation interval;
	// DefaultInterval when zero.
	Interval time.Duration
	// RuleFiles are alerting and recording rule files, copied into the
	// server's directory (rewritten when ShortenFor is set).
	RuleFiles []string
	// ShortenFor, when positive, replaces the for: of every rule of
	// RuleFiles with this duration, so that a shipped rule that waits
	// minutes before firing fires within seconds in a test.
	ShortenFor time.Duration
}

// Server is a running Prometheus.
type Server struct {
	// URL is the server's base address, "http://127.0.0.1:PORT".
	URL    string
	daemon *zktest.Daemon
	client *http.Client
}

// Start starts Prometheus with cfg in a temporary directory on a free
// loopback port, waits until it is ready, and stops it when the test ends.
// It skips the test when prometheus is not installed (fails it under
// ZKX_REAL_ZK=required).
//
// It is ready within a fraction of a second, but its first scrape comes
// about five seconds after it starts: Prometheus hands its targets to the
// scrapers on a tick of five seconds (--scrape.discovery-reload-interval,
// which Debian's 2.42 raises to 5s when given less). A test with slow
// setup of its own (peers to start) starts Prometheus first, with its
// targets' addresses, so that this wait overlaps the setup; a target not
// listening yet is scraped as down meanwhile.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	bin := Program(t, "prometheus")
	dir := t.TempDir()
	configPath, err := writeConfig(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var problems []error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		s, err := start(t, bin, dir, configPath, attempt)
		if err == nil {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s log (last %d lines):\n%s", s.daemon, logLines, s.daemon.Log(logLines))
				}
			})
			return s
		}
		problems = append(problems, err)
	}
	t.Fatalf("start Prometheus (%d attempts): %v", startAttempts, errors.Join(problems...))
	return nil
}

// start runs one attempt on a new port; an error means the server stopped
// (most likely its port was taken meanwhile) or never became ready.
func start(t testing.TB, bin, dir, configPath string, attempt int) (*Server, error) {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(zktest.FreePort(t))
	logPath := filepath.Join(dir, fmt.Sprintf("prometheus-%d.log", attempt))
	d := zktest.StartDaemon(t, logPath, bin,
		"--config.file="+configPath,
		"--storage.tsdb.path="+filepath.Join(dir, fmt.Sprintf("data-%d", attempt)),
		"--web.listen-address="+addr,
		// A test's server is new and short-lived: nothing to keep.
		"--storage.tsdb.retention.time=1h",
	)
	s := &Server{URL: "http://" + addr, daemon: d, client: &http.Client{Timeout: requestTimeout}}
	ctx, cancel := context.WithTimeout(context.Background(), startDeadline)
	defer cancel()
	err := poll(ctx, "Prometheus on "+addr+" to answer /-/ready", func(ctx context.Context) (bool, string, error) {
		select {
		case <-d.Exited():
			return false, "", fmt.Errorf("%s exited: %v", d, d.ExitErr())
		default:
		}
		ready, status := s.ready(ctx)
		return ready, status, nil
	})
	if err != nil {
		stopErr := d.Stop()
		return nil, errors.Join(fmt.Errorf("%w\n%s", err, d.Log(logLines)), stopErr)
	}
	return s, nil
}

// ready asks /-/ready, which answers 200 once the configuration and rules
// are loaded; status says what it answered otherwise.
func (s *Server) ready(ctx context.Context) (bool, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
	if err != nil {
		return false, err.Error()
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false, err.Error()
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, resp.Status
}

// Log returns the last lines of the server's log.
func (s *Server) Log(lines int) string { return s.daemon.Log(lines) }

// promConfig is Prometheus's configuration file, the parts a test sets.
// It is written as JSON, which Prometheus's YAML reader takes as it is.
type promConfig struct {
	Global        promGlobal   `json:"global"`
	RuleFiles     []string     `json:"rule_files,omitempty"`
	ScrapeConfigs []promScrape `json:"scrape_configs"`
}

type promGlobal struct {
	ScrapeInterval     string `json:"scrape_interval"`
	ScrapeTimeout      string `json:"scrape_timeout"`
	EvaluationInterval string `json:"evaluation_interval"`
}

type promScrape struct {
	JobName       string        `json:"job_name"`
	MetricsPath   string        `json:"metrics_path"`
	StaticConfigs []promTargets `json:"static_configs"`
}

type promTargets struct {
	Targets []string `json:"targets"`
}

// writeConfig writes the configuration and the rule files into dir and
// returns the configuration's path.
func writeConfig(dir string, cfg Config) (string, error) {
	if cfg.Job == "" {
		cfg.Job = DefaultJob
	}
	if cfg.MetricsPath == "" {
		cfg.MetricsPath = "/metrics"
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	interval := promDuration(cfg.Interval)
	pc := promConfig{
		Global: promGlobal{ScrapeInterval: interval, ScrapeTimeout: interval, EvaluationInterval: interval},
		ScrapeConfigs: []promScrape{{
			JobName: cfg.Job, MetricsPath: cfg.MetricsPath,
			StaticConfigs: []promTargets{{Targets: append([]string{}, cfg.Targets...)}},
		}},
	}
	for i, src := range cfg.RuleFiles {
		dst := filepath.Join(dir, fmt.Sprintf("rules-%d-%s", i, filepath.Base(src)))
		if err := copyRules(src, dst, cfg.ShortenFor); err != nil {
			return "", err
		}
		pc.RuleFiles = append(pc.RuleFiles, dst)
	}
	b, err := json.MarshalIndent(pc, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", fmt.Errorf("write Prometheus configuration: %w", err)
	}
	return path, nil
}

// promDuration spells d as Prometheus reads durations: whole
// milliseconds ("1500ms"), which every version accepts.
func promDuration(d time.Duration) string {
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10) + "ms"
}
