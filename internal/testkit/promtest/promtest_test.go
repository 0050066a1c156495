package promtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitLimit bounds each wait of these tests: a scrape and an evaluation
// happen every DefaultInterval, so a condition that has not shown in this
// long will not.
const waitLimit = time.Minute

// fakeTarget serves a few series in Prometheus's text format, the alarm
// series only while alarm is set, and answers 503 while broken is set.
// Hand-written exposition is fine here: this is the test's fake exporter.
type fakeTarget struct {
	alarm, broken atomic.Bool
}

func (f *fakeTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.NotFound(w, r)
		return
	}
	if f.broken.Load() {
		http.Error(w, "broken on purpose", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintln(w, "# HELP promtest_fake_up Always 1.")
	fmt.Fprintln(w, "# TYPE promtest_fake_up gauge")
	fmt.Fprintln(w, "promtest_fake_up 1")
	if f.alarm.Load() {
		fmt.Fprintln(w, "# HELP promtest_fake_alarm 1 while the fake alarm holds.")
		fmt.Fprintln(w, "# TYPE promtest_fake_alarm gauge")
		fmt.Fprintln(w, `promtest_fake_alarm{path="/app/locks/orders",kind="two-holders"} 1`)
	}
}

const fakeRules = `groups:
  - name: promtest
    rules:
      - alert: FakeAlarm
        expr: promtest_fake_alarm == 1
        for: 1s
        labels:
          severity: page
        annotations:
          summary: "alarm {{ $labels.kind }} on {{ $labels.path }}"
`

// TestServerSeesSeriesAndAlerts runs Prometheus against a fake target: its
// series are queried, an alert goes pending then firing with its labels
// and annotations (its for: of 1s is four evaluations and twenty polls,
// enough to see it pending on a loaded machine), clears when the series
// goes, and a target that fails its scrapes reads as up == 0.
func TestServerSeesSeriesAndAlerts(t *testing.T) {
	t.Parallel()
	target := &fakeTarget{}
	web := httptest.NewServer(target)
	t.Cleanup(web.Close)
	host := strings.TrimPrefix(web.URL, "http://")
	rules := filepath.Join(t.TempDir(), "fake.rules.yml")
	if err := os.WriteFile(rules, []byte(fakeRules), 0o644); err != nil {
		t.Fatal(err)
	}

	prom := Start(t, Config{Targets: []string{host}, RuleFiles: []string{rules}})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := prom.WaitScraped(ctx, "up"); err != nil {
		t.Fatal(err)
	}
	got, err := prom.Query(ctx, "promtest_fake_up")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Value != 1 || got[0].Labels["job"] != DefaultJob || got[0].Labels["instance"] != host {
		t.Fatalf("promtest_fake_up = %+v, want one sample 1 with job %q and instance %q", got, DefaultJob, host)
	}
	if _, err := prom.Query(ctx, "sum(("); err == nil || !strings.Contains(err.Error(), "bad_data") {
		t.Errorf("a malformed expression: error %v, want the server's bad_data", err)
	}

	target.alarm.Store(true)
	labels := map[string]string{"path": "/app/locks/orders", "kind": "two-holders"}
	pending, err := prom.WaitAlert(ctx, "FakeAlarm", "pending", labels)
	if err != nil {
		t.Fatal(err)
	}
	firing, err := prom.WaitAlert(ctx, "FakeAlarm", "firing", labels)
	if err != nil {
		t.Fatal(err)
	}
	if want := "alarm two-holders on /app/locks/orders"; firing.Annotations["summary"] != want {
		t.Errorf("summary = %q, want %q", firing.Annotations["summary"], want)
	}
	if firing.Labels["severity"] != "page" || firing.Labels["instance"] != host {
		t.Errorf("labels = %v, want severity page and instance %s", firing.Labels, host)
	}
	if firing.ActiveAt.IsZero() || !firing.ActiveAt.Equal(pending.ActiveAt) {
		t.Errorf("activeAt pending %v, firing %v: want the same, set", pending.ActiveAt, firing.ActiveAt)
	}

	target.alarm.Store(false)
	if err := prom.WaitNoAlert(ctx, "FakeAlarm", labels); err != nil {
		t.Fatal(err)
	}
	if _, err := prom.WaitQuery(ctx, "promtest_fake_alarm", func(s []Sample) bool { return len(s) == 0 }); err != nil {
		t.Fatal(err)
	}

	target.broken.Store(true)
	if _, err := prom.WaitQuery(ctx, fmt.Sprintf("up{job=%q}", DefaultJob), func(s []Sample) bool { return len(s) == 1 && s[0].Value == 0 }); err != nil {
		t.Fatal(err)
	}
	down, err := prom.WaitScraped(ctx, "down")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(down[0].LastError, "503") {
		t.Errorf("last scrape error %q, want it to name the 503", down[0].LastError)
	}
}

// TestWaitGivesUpAtTheDeadline checks that a wait for what never comes
// ends with the context and says what it last saw.
func TestWaitGivesUpAtTheDeadline(t *testing.T) {
	t.Parallel()
	web := httptest.NewServer(&fakeTarget{})
	t.Cleanup(web.Close)
	prom := Start(t, Config{Targets: []string{strings.TrimPrefix(web.URL, "http://")}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := prom.WaitAlert(ctx, "NeverDefined", "firing", nil)
	// What was last seen is "no alert", or "nothing yet" on a machine so
	// loaded that no answer came before the deadline.
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "alert NeverDefined firing") ||
		!(strings.Contains(err.Error(), "last seen: no alert") || strings.Contains(err.Error(), "last seen: nothing yet")) {
		t.Fatalf("err = %v, want a timeout naming the alert and what was seen", err)
	}
}

func TestShortenRuleFor(t *testing.T) {
	t.Parallel()
	out, err := shortenRuleFor([]byte(fakeRules), 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"for: 1500ms", "alert: FakeAlarm", "expr: promtest_fake_alarm == 1", "severity: page", `{{ $labels.path }}`} {
		if !strings.Contains(text, want) {
			t.Errorf("rewritten rules lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "for: 1s") {
		t.Errorf("for: 1s left:\n%s", text)
	}
	if _, err := shortenRuleFor([]byte("groups:\n  - name: g\n    rules:\n      - record: r\n        expr: up\n"), time.Second); err == nil {
		t.Error("a file with no for: was accepted")
	}
	if _, err := shortenRuleFor([]byte("groups: [unclosed"), time.Second); err == nil {
		t.Error("malformed YAML was accepted")
	}
}

func TestQueryReadsTheAPIsShapes(t *testing.T) {
	t.Parallel()
	answers := map[string]string{
		"vec":    `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"zkx"},"value":[1700000000.5,"1"]}]}}`,
		"scalar": `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"42"]}}`,
		"matrix": `{"status":"success","data":{"resultType":"matrix","result":[]}}`,
		"nan":    `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"NaN"]}]}}`,
		"broken": `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,7]}]}}`,
		"html":   `<html>not the API</html>`,
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, _ := url.ParseQuery(r.URL.RawQuery)
		fmt.Fprint(w, answers[q.Get("query")])
	}))
	t.Cleanup(api.Close)
	s := &Server{URL: api.URL, client: api.Client()}
	ctx := context.Background()

	got, err := s.Query(ctx, "vec")
	if err != nil || len(got) != 1 || got[0].Value != 1 || got[0].Labels["job"] != "zkx" || got[0].Time.UnixMilli() != 1700000000500 {
		t.Errorf("vector: %+v, %v", got, err)
	}
	got, err = s.Query(ctx, "scalar")
	if err != nil || len(got) != 1 || got[0].Value != 42 || len(got[0].Labels) != 0 {
		t.Errorf("scalar: %+v, %v", got, err)
	}
	got, err = s.Query(ctx, "nan")
	if err != nil || len(got) != 1 || !math.IsNaN(got[0].Value) {
		t.Errorf("NaN: %+v, %v", got, err)
	}
	for _, bad := range []string{"matrix", "broken", "html"} {
		if _, err := s.Query(ctx, bad); err == nil || !strings.Contains(err.Error(), "query "+bad) {
			t.Errorf("%s: error %v, want one naming the query", bad, err)
		}
	}
}
