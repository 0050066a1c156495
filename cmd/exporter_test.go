package cmd

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// scrapeValue reads one series' value from the exporter's /metrics;
// ok is false when the series is absent.
func scrapeValue(t *testing.T, addr, series string) (float64, bool) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("scrape %s: %v", addr, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				t.Fatalf("%s: value %q: %v", series, rest, err)
			}
			return v, true
		}
	}
	return 0, false
}

// waitSeries waits until a series satisfies ok, or fails the test.
func waitSeries(t *testing.T, addr, series, what string, ok func(v float64, present bool) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, present := scrapeValue(t, addr, series)
		if ok(v, present) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s: %s is %v (present %v)", what, series, v, present)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestExporterSurvivesSessionExpiry: the exporter serves a stale queue's
// alarm; its session is expired by the server; the expiry is counted, a
// new session is made and the alarm is served again from the model
// rebuilt on it.
func TestExporterSurvivesSessionExpiry(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	connect := srv.ConnectString()
	base := staleQueue(t, connect)

	before := srv.SessionIDs()
	addr := startExporter(t, "--server", connect, "exporter", "--tables-every", "200ms", "--queue-stale", "15m", base)
	alarm := fmt.Sprintf(`zkx_recipe_alarm{kind="queue-stale",path=%q,recipe="queue"}`, base+"/jobs")
	waitSeries(t, addr, alarm, "the stale queue's alarm", func(v float64, ok bool) bool { return ok && v == 1 })
	waitSeries(t, addr, "zkx_up", "zkx_up 1", func(v float64, ok bool) bool { return ok && v == 1 })

	expired := 0
	for _, id := range srv.SessionIDs() {
		if !slices.Contains(before, id) && srv.ExpireSession(id) {
			expired++
		}
	}
	if expired != 1 {
		t.Fatalf("expired %d sessions, want the exporter's one", expired)
	}
	waitSeries(t, addr, `zkx_refresh_errors_total{reason="session-expired"}`, "the expiry counted", func(v float64, ok bool) bool { return ok && v >= 1 })
	waitSeries(t, addr, "zkx_up", "zkx_up 1 on a new session", func(v float64, ok bool) bool { return ok && v == 1 })
	waitSeries(t, addr, alarm, "the alarm served again", func(v float64, ok bool) bool { return ok && v == 1 })
	waitSeries(t, addr, "zkx_up", "zkx_up 1", func(v float64, ok bool) bool { return ok && v == 1 })
	if ids := srv.SessionIDs(); len(ids) != len(before)+1 {
		t.Errorf("sessions after the expiry: %x, want those before the exporter (%x) and its one new one", ids, before)
	}
}

// TestExporterRetriesAHostileServer: a "server" that answers garbage
// keeps the exporter serving /metrics with zkx_up 0, and its failed
// connects counted, again after a backoff.
func TestExporterRetriesAHostileServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.0 400 Bad Request\r\n\r\nthis is not ZooKeeper"))
			c.Close()
		}
	}()
	addr := startExporter(t, "--server", ln.Addr().String(), "exporter")
	waitSeries(t, addr, `zkx_refresh_errors_total{reason="connect"}`, "two failed connects", func(v float64, ok bool) bool { return ok && v >= 2 })
	if v, ok := scrapeValue(t, addr, "zkx_up"); !ok || v != 0 {
		t.Errorf("zkx_up = %v (present %v), want 0", v, ok)
	}
}

// startExporter runs zkx exporter in this process on a free port until
// the test ends, and returns its host:port.
func startExporter(t *testing.T, args ...string) string {
	t.Helper()
	return startExporterOn(t, holdPort(t), args...)
}

// holdPort listens on a free loopback port (the kit's, from below the
// ephemeral range), which keeps it from anyone else until startExporterOn
// takes it over: a test gives Prometheus the exporter's address before it
// has the peers the exporter watches. Meanwhile Prometheus's scrapes of it
// time out, as of an exporter down.
func holdPort(t *testing.T) net.Listener {
	t.Helper()
	var err error
	for range 3 { // a port is free only until something binds it
		var ln net.Listener
		if ln, err = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", zktest.FreePort(t))); err == nil {
			t.Cleanup(func() { ln.Close() })
			return ln
		}
	}
	t.Fatal(err)
	return nil
}

// startExporterOn runs zkx exporter in this process on held's address
// (closing held first) until the test ends, and returns its host:port.
func startExporterOn(t *testing.T, held net.Listener, args ...string) string {
	t.Helper()
	addr := held.Addr().String()
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	var errs strings.Builder
	t.Cleanup(func() { t.Logf("zkx exporter's stderr:\n%s", errs.String()) }) // after the exporter's end: cleanups run last first
	exporter := runBackground(t, "zkx exporter", io.Discard, &lockedWriter{out: &errs}, append(args, "--listen", addr)...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			resp.Body.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("zkx exporter does not answer on %s: %v", addr, err)
		}
		select {
		case <-exporter.done:
			t.Fatalf("zkx exporter ended: %v", exporter.err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
