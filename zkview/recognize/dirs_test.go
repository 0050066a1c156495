package recognize

import (
	"context"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/zkview"
)

func TestDirs(t *testing.T) {
	t.Parallel()
	f := recScanTree().
		add("/app/kq/entry-100-0000000000", "x").
		add("/app/leases-alone/"+curLease(1), "", ephemeralOf(12))
	res, err := Scan(context.Background(), f, "/", Options{Now: recEpoch})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res.All() {
		got[r.Info().Path] = strings.Join(r.Dirs(), " ")
	}
	want := map[string]string{
		"/app/ksem":          "/app/ksem /app/ksem-__lock__",
		"/app/locks/orders":  "/app/locks/orders",
		"/app/locks/rw":      "/app/locks/rw",
		"/app/sem":           "/app/sem /app/sem/leases /app/sem/locks",
		"/app/leases-alone":  "/app/leases-alone",
		"/app/tutorial":      "/app/tutorial",
		"/app/leader":        "/app/leader",
		"/app/jobs":          "/app/jobs",
		"/app/lq":            "/app/lq /app/lq/entries /app/lq/taken",
		"/app/kq":            "/app/kq",
		"/app/db":            "/app/db",
		"/app/start-barrier": "/app/start-barrier",
		"/app/config/a/b":    "",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("Dirs of %s = %q, want %q", p, got[p], w)
		}
	}
	// An empty semaphore or Kazoo queue shows no contenders: the
	// component directories its layout may have are included.
	if d := (&Lock{Path: "/s", Recipe: "semaphore", Format: "curator"}).Dirs(); strings.Join(d, " ") != "/s /s/leases /s/locks" {
		t.Errorf("empty semaphore: %q", d)
	}
	if d := (&Queue{Path: "/q", Format: "kazoo"}).Dirs(); strings.Join(d, " ") != "/q /q/entries /q/taken" {
		t.Errorf("empty kazoo queue: %q", d)
	}
}

func TestScanVisit(t *testing.T) {
	t.Parallel()
	f := recScanTree()
	visited := map[string]int64{} // Visit runs on Scan's goroutine
	_, err := Scan(context.Background(), f, "/app", Options{Now: recEpoch, Visit: func(n zkview.WalkNode) {
		if n.Stat != nil {
			visited[n.Path] = n.Stat.Pzxid
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/app", "/app/locks", "/app/locks/orders", "/app/jobs", "/app/config/a"} {
		if _, ok := visited[p]; !ok {
			t.Errorf("Visit did not see %s (saw %d nodes)", p, len(visited))
		}
	}
	for p := range visited {
		if strings.Contains(p, "/qn-") || strings.Contains(p, "-lock-0") {
			t.Errorf("Visit saw member %s, which the scan does not list", p)
		}
	}
}
