package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zkx-dev/zkx/internal/testkit/promtest"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// The alerting rules shipped for the exporter, their promtool tests, and
// the metrics contract they follow.
const (
	rulesFile     = "docs/alerts/zkx.rules.yml"
	rulesTestFile = "docs/alerts/zkx.rules.test.yml"
	metricsDoc    = "docs/metrics.md"
	// alarmKindsDir is the package whose Alarm… constants are the kinds
	// zkx computes today.
	alarmKindsDir = "zkview/recognize"
)

// TestAlertRulesPromtool runs promtool on the shipped rules: their syntax
// and expressions (check rules), and their unit tests (test rules).
func TestAlertRulesPromtool(t *testing.T) {
	t.Parallel()
	promtool := promtest.Program(t, "promtool")
	for _, args := range [][]string{{"check", "rules", rulesFile}, {"test", "rules", rulesTestFile}} {
		p := zktest.RunProgram(t, 2*time.Minute, "", true, promtool, args...)
		if p.Err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), p.Err, p.Stdout)
			continue
		}
		t.Logf("promtool %s:\n%s", strings.Join(args, " "), p.Stdout)
	}
}

// ruleGroups is the part of a Prometheus rule file these tests read.
type ruleGroups struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// ruleTests is the part of a promtool test file these tests read.
type ruleTests struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		Name  string `yaml:"name"`
		Cases []struct {
			EvalTime  string `yaml:"eval_time"`
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestAlertRulesCoverEveryAlert checks, without promtool, that every
// shipped alert has a severity, a summary that names the next step, and
// promtool tests both firing and not firing.
func TestAlertRulesCoverEveryAlert(t *testing.T) {
	t.Parallel()
	var rules ruleGroups
	var tests ruleTests
	readYAML(t, rulesFile, &rules)
	readYAML(t, rulesTestFile, &tests)
	if !slices.Contains(tests.RuleFiles, "zkx.rules.yml") {
		t.Errorf("%s tests %v, not zkx.rules.yml", rulesTestFile, tests.RuleFiles)
	}
	firing, quiet := map[string]int{}, map[string]int{}
	for _, g := range tests.Tests {
		for _, c := range g.Cases {
			if len(c.ExpAlerts) > 0 {
				firing[c.Alertname]++
			} else {
				quiet[c.Alertname]++
			}
		}
	}
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			switch r.Labels["severity"] {
			case "critical", "warning":
			default:
				t.Errorf("%s: severity %q, want critical or warning", r.Alert, r.Labels["severity"])
			}
			if !strings.Contains(r.Annotations["summary"], "Next: ") {
				t.Errorf("%s: summary %q does not say the next step (Next: …)", r.Alert, r.Annotations["summary"])
			}
			if strings.Contains(r.Expr, "zkx_recipe_alarm") && !strings.Contains(r.Annotations["summary"], "{{ $labels.path }}") {
				t.Errorf("%s: summary %q does not name the path", r.Alert, r.Annotations["summary"])
			}
			if firing[r.Alert] == 0 || quiet[r.Alert] == 0 {
				t.Errorf("%s: %d promtool cases firing and %d not firing in %s, want both", r.Alert, firing[r.Alert], quiet[r.Alert], rulesTestFile)
			}
		}
	}
	if alerts == 0 {
		t.Fatalf("%s: no alert read", rulesFile)
	}
	t.Logf("%d alerts, each tested firing and not firing", alerts)
}

// alarmKindRow is a row of the alarm kinds table of docs/metrics.md.
var alarmKindRow = regexp.MustCompile("^\\| `([a-z-]+)` \\|")

// TestAlarmKindsDocumented checks that every alarm kind zkx computes
// (recognize's Alarm… constants) is in docs/metrics.md's table of kinds,
// and that every kind of that table has an alert rule: a kind added in
// code, in the contract or in the rules alone fails here.
func TestAlarmKindsDocumented(t *testing.T) {
	t.Parallel()
	inCode := alarmKindConstants(t)
	doc, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Alarm kinds\n")
	if !ok {
		t.Fatalf("%s has no section ## Alarm kinds", metricsDoc)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var inDoc []string
	for _, line := range strings.Split(section, "\n") {
		if m := alarmKindRow.FindStringSubmatch(line); m != nil {
			inDoc = append(inDoc, m[1])
		}
	}
	for _, k := range inCode {
		if !slices.Contains(inDoc, k) {
			t.Errorf("alarm kind %q (%s) is not in %s's table of alarm kinds", k, alarmKindsDir, metricsDoc)
		}
	}
	var rules ruleGroups
	readYAML(t, rulesFile, &rules)
	var exprs []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
		}
	}
	for _, k := range inDoc {
		want := fmt.Sprintf(`zkx_recipe_alarm{kind=%q}`, k)
		if k == "member-down" {
			want = "zkx_member_up == 0" // members are no recipe: their own series
		}
		if !slices.ContainsFunc(exprs, func(e string) bool { return strings.Contains(e, want) }) {
			t.Errorf("alarm kind %q of %s has no rule on %s in %s", k, metricsDoc, want, rulesFile)
		}
	}
	if len(inCode) == 0 || len(inDoc) == 0 {
		t.Fatalf("read %d kinds in %s and %d in %s: the test reads nothing", len(inCode), alarmKindsDir, len(inDoc), metricsDoc)
	}
	t.Logf("kinds in code %v; in the contract %v", inCode, inDoc)
}

// alarmKindConstants returns the values of the string constants named
// Alarm… in zkview/recognize.
func alarmKindConstants(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(alarmKindsDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, alarmKindsOf(t, f)...)
	}
	return kinds
}

// alarmKindsOf returns the values of a file's string constants named Alarm….
func alarmKindsOf(t *testing.T, f *ast.File) []string {
	t.Helper()
	var kinds []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Alarm") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				kinds = append(kinds, v)
			}
		}
	}
	return kinds
}

// fakeExporter serves the contract's series for one lock by hand, the
// two-holders alarm while alarm is set, and fails every scrape while
// broken is set. The exporter itself will use client_golang; this
// stands in for it to show the shipped rules working in a real server.
type fakeExporter struct{ alarm, broken atomic.Bool }

func (f *fakeExporter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.broken.Load() {
		http.Error(w, "down on purpose", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprint(w, "# TYPE zkx_up gauge\nzkx_up 1\n")
	fmt.Fprint(w, "# TYPE zkx_member_up gauge\nzkx_member_up{member=\"127.0.0.1:2181\"} 1\n")
	if f.alarm.Load() {
		fmt.Fprint(w, "# TYPE zkx_recipe_alarm gauge\n"+
			"zkx_recipe_alarm{path=\"/app/locks/orders\",recipe=\"mutex\",kind=\"two-holders\"} 1\n")
	}
}

// TestShippedRulesInPrometheus loads the shipped rules, their for:
// shortened to two evaluations (promtest.ShortFor), into Debian's
// Prometheus scraping a stand-in exporter, and sees through the API a
// two-holders alarm fire and clear, and the exporter-down alert fire and
// clear.
func TestShippedRulesInPrometheus(t *testing.T) {
	t.Parallel()
	exporter := &fakeExporter{}
	web := httptest.NewServer(exporter)
	t.Cleanup(web.Close)
	prom := promtest.Start(t, promtest.Config{
		Targets:    []string{strings.TrimPrefix(web.URL, "http://")},
		RuleFiles:  []string{rulesFile},
		ShortenFor: promtest.ShortFor,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := prom.WaitScraped(ctx, "up"); err != nil {
		t.Fatal(err)
	}

	exporter.alarm.Store(true)
	lock := map[string]string{"path": "/app/locks/orders", "kind": "two-holders"}
	a, err := prom.WaitAlert(ctx, "ZkxLockTwoHolders", "firing", lock)
	if err != nil {
		t.Fatal(err)
	}
	if a.Labels["severity"] != "critical" || !strings.Contains(a.Annotations["summary"], "zkx locks -l /app/locks/orders") {
		t.Errorf("ZkxLockTwoHolders: labels %v, summary %q: want critical, naming zkx locks -l /app/locks/orders", a.Labels, a.Annotations["summary"])
	}
	exporter.alarm.Store(false)
	if err := prom.WaitNoAlert(ctx, "ZkxLockTwoHolders", lock); err != nil {
		t.Fatal(err)
	}

	exporter.broken.Store(true)
	if _, err := prom.WaitAlert(ctx, "ZkxExporterDown", "firing", map[string]string{"job": promtest.DefaultJob}); err != nil {
		t.Fatal(err)
	}
	exporter.broken.Store(false)
	if err := prom.WaitNoAlert(ctx, "ZkxExporterDown", nil); err != nil {
		t.Fatal(err)
	}
	alerts, err := prom.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		t.Errorf("alert %s %s still held after the scene healed: %v", a.Name, a.State, a.Labels)
	}
}
