package promtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Sample is one series of an instant query's answer.
type Sample struct {
	// Labels are the series' labels, __name__ included when the
	// expression keeps it.
	Labels map[string]string
	Value  float64
	// Time is the evaluation's timestamp.
	Time time.Time
}

// Alert is an alert the server's rules hold, pending or firing.
type Alert struct {
	// Name is the alertname label.
	Name string
	// Labels are the alert's labels: the series' labels, the rule's, and
	// alertname.
	Labels map[string]string
	// Annotations are the rule's annotations, templates expanded.
	Annotations map[string]string
	// State is "pending" (its for: is running) or "firing".
	State string
	// ActiveAt is when its expression first held.
	ActiveAt time.Time
	// Value is the expression's value, as Prometheus prints it.
	Value string
}

// Firing reports whether the alert fires (its for: has passed).
func (a Alert) Firing() bool { return a.State == "firing" }

// Target is one scrape target as the server last saw it.
type Target struct {
	// Labels are the target's labels after relabelling (job, instance).
	Labels    map[string]string
	ScrapeURL string
	// Health is "up", "down" or "unknown" (not scraped yet).
	Health string
	// LastError is the last scrape's error, "" when it succeeded.
	LastError string
	// LastScrape is when it was last scraped; zero before the first.
	LastScrape time.Time
}

// apiAnswer is the envelope of every /api/v1 answer.
type apiAnswer struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

// get asks an /api/v1 endpoint and decodes its data into v.
func (s *Server) get(ctx context.Context, endpoint string, query url.Values, v any) error {
	u := s.URL + endpoint
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("GET %s: read the answer: %w", endpoint, err)
	}
	var a apiAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("GET %s answered %s, not the API's JSON: %w: %.200q", endpoint, resp.Status, err, body)
	}
	if a.Status != "success" {
		return fmt.Errorf("GET %s: %s: %s (%s)", endpoint, a.ErrorType, a.Error, resp.Status)
	}
	if err := json.Unmarshal(a.Data, v); err != nil {
		return fmt.Errorf("GET %s: unexpected data: %w: %.200q", endpoint, err, a.Data)
	}
	return nil
}

// Query evaluates expr now (/api/v1/query) and returns its samples: the
// series of a vector, or one sample without labels for a scalar.
func (s *Server) Query(ctx context.Context, expr string) ([]Sample, error) {
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := s.get(ctx, "/api/v1/query", url.Values{"query": {expr}}, &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	switch data.ResultType {
	case "vector":
		var series []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(data.Result, &series); err != nil {
			return nil, fmt.Errorf("query %s: a vector that does not read as one: %w", expr, err)
		}
		out := make([]Sample, 0, len(series))
		for _, one := range series {
			smp, err := sampleOf(one.Metric, one.Value)
			if err != nil {
				return nil, fmt.Errorf("query %s: %w", expr, err)
			}
			out = append(out, smp)
		}
		return out, nil
	case "scalar":
		var value [2]any
		if err := json.Unmarshal(data.Result, &value); err != nil {
			return nil, fmt.Errorf("query %s: a scalar that does not read as one: %w", expr, err)
		}
		smp, err := sampleOf(map[string]string{}, value)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", expr, err)
		}
		return []Sample{smp}, nil
	default:
		return nil, fmt.Errorf("query %s: result type %q: Query reads vectors and scalars", expr, data.ResultType)
	}
}

// sampleOf reads the API's [unix seconds, "value"] pair.
func sampleOf(labels map[string]string, pair [2]any) (Sample, error) {
	at, ok := pair[0].(float64)
	text, ok2 := pair[1].(string)
	if !ok || !ok2 {
		return Sample{}, fmt.Errorf("a sample that is not [time, \"value\"]: %v", pair)
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("sample value %q: %w", text, err)
	}
	if labels == nil {
		labels = map[string]string{}
	}
	return Sample{Labels: labels, Value: v, Time: time.UnixMilli(int64(at * 1000))}, nil
}

// Alerts returns every alert the server's rules hold now, pending or
// firing (/api/v1/alerts).
func (s *Server) Alerts(ctx context.Context) ([]Alert, error) {
	var data struct {
		Alerts []struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
			State       string            `json:"state"`
			ActiveAt    time.Time         `json:"activeAt"`
			Value       string            `json:"value"`
		} `json:"alerts"`
	}
	if err := s.get(ctx, "/api/v1/alerts", nil, &data); err != nil {
		return nil, err
	}
	out := make([]Alert, 0, len(data.Alerts))
	for _, a := range data.Alerts {
		out = append(out, Alert{Name: a.Labels["alertname"], Labels: a.Labels, Annotations: a.Annotations,
			State: a.State, ActiveAt: a.ActiveAt, Value: a.Value})
	}
	return out, nil
}

// Targets returns the active scrape targets (/api/v1/targets).
func (s *Server) Targets(ctx context.Context) ([]Target, error) {
	var data struct {
		ActiveTargets []struct {
			Labels     map[string]string `json:"labels"`
			ScrapeURL  string            `json:"scrapeUrl"`
			Health     string            `json:"health"`
			LastError  string            `json:"lastError"`
			LastScrape time.Time         `json:"lastScrape"`
		} `json:"activeTargets"`
	}
	if err := s.get(ctx, "/api/v1/targets", url.Values{"state": {"active"}}, &data); err != nil {
		return nil, err
	}
	out := make([]Target, 0, len(data.ActiveTargets))
	for _, t := range data.ActiveTargets {
		last := t.LastScrape
		if last.Year() < 1970 {
			last = time.Time{} // never scraped: the API says 0001-01-01
		}
		out = append(out, Target{Labels: t.Labels, ScrapeURL: t.ScrapeURL, Health: t.Health, LastError: t.LastError, LastScrape: last})
	}
	return out, nil
}
