package promtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// pollEvery is how often a wait asks the server again. Prometheus's API
// has no push and no long poll: a series or an alert changes only at a
// scrape or an evaluation (every DefaultInterval here), so asking five
// times as often, under the caller's deadline, is how a test waits for
// that event.
const pollEvery = 50 * time.Millisecond

// poll calls check until it reports done, returns an error, or ctx ends;
// then the error says what was waited for and the last state check saw
// (a request cut short by the deadline is the deadline, not a failure).
func poll(ctx context.Context, what string, check func(ctx context.Context) (done bool, state string, err error)) error {
	begin := time.Now()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	lastSeen := "nothing yet"
	timedOut := func() error {
		return fmt.Errorf("waited %v for %s: %w; last seen: %s", time.Since(begin).Round(time.Millisecond), what, ctx.Err(), lastSeen)
	}
	for {
		done, state, err := check(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return timedOut()
		case err != nil:
			return fmt.Errorf("waiting for %s: %w", what, err)
		case done:
			return nil
		}
		lastSeen = state
		select {
		case <-ctx.Done():
			return timedOut()
		case <-tick.C:
		}
	}
}

// WaitQuery evaluates expr until cond holds for its samples and returns
// them; it fails when ctx ends first (the error shows the last answer) or
// when the server refuses the expression.
func (s *Server) WaitQuery(ctx context.Context, expr string, cond func([]Sample) bool) ([]Sample, error) {
	var last []Sample
	err := poll(ctx, "query "+expr, func(ctx context.Context) (bool, string, error) {
		got, err := s.Query(ctx, expr)
		if err != nil {
			return false, "", err
		}
		last = got
		return cond(got), describeSamples(got), nil
	})
	return last, err
}

// WaitAlert waits until an alert named name with every label of labels is
// in state ("pending" or "firing") and returns it.
func (s *Server) WaitAlert(ctx context.Context, name, state string, labels map[string]string) (Alert, error) {
	var found Alert
	err := poll(ctx, fmt.Sprintf("alert %s%s %s", name, describeLabels(labels), state), func(ctx context.Context) (bool, string, error) {
		alerts, err := s.Alerts(ctx)
		if err != nil {
			return false, "", err
		}
		for _, a := range alerts {
			if a.Name == name && a.State == state && hasLabels(a.Labels, labels) {
				found = a
				return true, "", nil
			}
		}
		return false, describeAlerts(alerts), nil
	})
	return found, err
}

// WaitNoAlert waits until no alert named name with every label of labels
// is held, pending or firing: the condition cleared.
func (s *Server) WaitNoAlert(ctx context.Context, name string, labels map[string]string) error {
	return poll(ctx, fmt.Sprintf("alert %s%s to clear", name, describeLabels(labels)), func(ctx context.Context) (bool, string, error) {
		alerts, err := s.Alerts(ctx)
		if err != nil {
			return false, "", err
		}
		for _, a := range alerts {
			if a.Name == name && hasLabels(a.Labels, labels) {
				return false, describeAlerts(alerts), nil
			}
		}
		return true, "", nil
	})
}

// WaitScraped waits until every target has been scraped at least once
// with health, "up" or "down", and returns the targets.
func (s *Server) WaitScraped(ctx context.Context, health string) ([]Target, error) {
	var last []Target
	err := poll(ctx, "every target scraped "+health, func(ctx context.Context) (bool, string, error) {
		targets, err := s.Targets(ctx)
		if err != nil {
			return false, "", err
		}
		last = targets
		var states []string
		done := len(targets) > 0
		for _, t := range targets {
			states = append(states, fmt.Sprintf("%s %s %q", t.ScrapeURL, t.Health, t.LastError))
			if t.Health != health || t.LastScrape.IsZero() {
				done = false
			}
		}
		return done, "[" + strings.Join(states, "; ") + "]", nil
	})
	return last, err
}

// hasLabels reports whether have holds every label of want.
func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func describeLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func describeSamples(samples []Sample) string {
	if len(samples) == 0 {
		return "no series"
	}
	var parts []string
	for _, smp := range samples {
		parts = append(parts, fmt.Sprintf("%s %g", describeLabels(smp.Labels), smp.Value))
	}
	return strings.Join(parts, "; ")
}

func describeAlerts(alerts []Alert) string {
	if len(alerts) == 0 {
		return "no alert"
	}
	var parts []string
	for _, a := range alerts {
		parts = append(parts, fmt.Sprintf("%s %s", a.State, describeLabels(a.Labels)))
	}
	return strings.Join(parts, "; ")
}
