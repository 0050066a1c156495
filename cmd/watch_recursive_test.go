package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// lines is a writer tests wait on, line by line.
type lines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	wake chan struct{}
}

func newLines() *lines { return &lines{wake: make(chan struct{}, 1)} }

func (l *lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(b)
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return n, err
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSuffix(l.buf.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// waitFor waits until n lines came, or a line containing want, with a
// deadline; poke (when set) runs while it waits, at most every 200 ms.
func (l *lines) waitFor(t *testing.T, n int, poke func()) []string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if got := l.all(); len(got) >= n {
			return got
		}
		if poke != nil {
			poke()
		}
		select {
		case <-l.wake:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out with %d of %d lines:\n%s", len(l.all()), n, strings.Join(l.all(), "\n"))
		}
	}
}

// startWatch runs zkx watch ARGS until the test ends.
func startWatch(t *testing.T, args ...string) (out, errOut *lines) {
	t.Helper()
	out, errOut = newLines(), newLines()
	runBackground(t, "zkx watch", out, errOut, args...)
	return out, errOut
}

// TestWatchRecursiveUnderABurst: zkx watch --recursive prints every change
// of a burst written in one transaction (faster than any one-shot watch
// can be set again), in order, one JSON line each.
func TestWatchRecursiveUnderABurst(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		populate(t, connect, map[string]int32{base: 0, base + "/x": 0})
		out, _ := startWatch(t, "--server", connect, "watch", "--recursive", base, "-o", "json")
		c, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		i := 0
		first := out.waitFor(t, 1, func() { // until the watch is in place
			i++
			if _, err := c.Set(base+"/x", []byte(fmt.Sprint("warm-up ", i)), -1); err != nil {
				t.Error(err)
			}
		})
		const n = 50
		var ops []any
		for k := range n {
			ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("%s/t%02d", base, k), Data: []byte("t"), Acl: zk.WorldACL(zk.PermAll)},
				&zk.DeleteRequest{Path: fmt.Sprintf("%s/t%02d", base, k), Version: -1})
		}
		if _, err := c.Multi(ops...); err != nil {
			t.Fatal(err)
		}
		got := out.waitFor(t, len(first)+2*n, nil)
		var burst []changeJSON
		for _, line := range got {
			var ch changeJSON
			if err := json.Unmarshal([]byte(line), &ch); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if strings.Contains(ch.Path, "/t") {
				burst = append(burst, ch)
			}
		}
		if len(burst) != 2*n {
			t.Fatalf("%d lines of the burst, want %d:\n%s", len(burst), 2*n, strings.Join(got, "\n"))
		}
		for k := range n {
			p := fmt.Sprintf("%s/t%02d", base, k)
			if burst[2*k].Kind != "created" || burst[2*k].Path != p || burst[2*k+1].Kind != "deleted" || burst[2*k+1].Path != p {
				t.Fatalf("line %d: %+v %+v, want %s created then deleted", 2*k, burst[2*k], burst[2*k+1], p)
			}
			if burst[2*k].NotRead == "" {
				t.Errorf("%s created: data shown although it was deleted before any read", p)
			}
		}
	})
}

// TestWatchRecursiveOnAnOlderServer: a server that does not know addWatch
// is followed with one-shot watches, and zkx says so.
func TestWatchRecursiveOnAnOlderServer(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{UnknownOps: []jute.Op{jute.OpAddWatch}})
	connect := srv.ConnectString()
	base := zktest.Path(t)
	populate(t, connect, map[string]int32{base: 0, base + "/x": 0})
	out, errOut := startWatch(t, "--server", connect, "watch", "--recursive", base)
	c, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	i := 0
	got := out.waitFor(t, 1, func() {
		i++
		if _, err := c.Set(base+"/x", []byte(fmt.Sprint(i)), -1); err != nil {
			t.Error(err)
		}
	})
	if !strings.Contains(got[0], "data v") {
		t.Errorf("first line %q", got[0])
	}
	if notes := strings.Join(errOut.all(), "\n"); !strings.Contains(notes, "does not offer persistent watches") || !strings.Contains(notes, "one-shot") {
		t.Errorf("no note of the fallback: %q", notes)
	}
}

// TestWhoamiAndQuota: zkx whoami names the identities (and says unknown
// before 3.7); zkx quota lists a quota with its usage.
func TestWhoamiAndQuota(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		out, _, err := run(t, "--server", connect, "--auth", "digest:alice:secret", "whoami", "-o", "json")
		var who whoamiJSON
		if jerr := json.Unmarshal([]byte(out), &who); err != nil || jerr != nil || !who.Known || len(who.Identities) != 2 {
			t.Errorf("whoami: %v %v %s", err, jerr, out)
		}
		base := zktest.Path(t)
		populate(t, connect, map[string]int32{base: 0, base + "/q": 0, base + "/q/a": 0,
			"/zookeeper/quota" + base: 0, "/zookeeper/quota" + base + "/q": 0})
		// As zkCli's setquota -N 2 writes them (StatsTrack.toString).
		c, _, err := zk.Connect([]string{connect}, 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		q := "/zookeeper/quota" + base + "/q"
		if _, err := c.Create(q+"/zookeeper_limits", []byte("count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=2"), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(q+"/zookeeper_stats", []byte("count=2,bytes=2"), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		out, _, err = run(t, "--server", connect, "quota", base)
		if err != nil || !strings.Contains(out, base+"/q") || !strings.Contains(out, "2 (hard 2)") || !strings.Contains(out, "within") {
			t.Errorf("quota: %v\n%s", err, out)
		}
		if _, err := c.Create(base+"/q/b", nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		out, _, err = run(t, "--server", connect, "quota", base+"/q/a", "-o", "json")
		var qs []quotaJSON
		if jerr := json.Unmarshal([]byte(out), &qs); err != nil || jerr != nil || len(qs) != 1 || qs[0].Usage == nil || qs[0].Usage.Count != 3 ||
			strings.Join(qs[0].Exceeded, ",") != "count (hard) 3 > 2" {
			t.Errorf("quota of a node below the quota's root: %v %v\n%s", err, jerr, out)
		}
		for _, p := range []string{q + "/zookeeper_stats", q + "/zookeeper_limits", q, "/zookeeper/quota" + base} {
			if err := c.Delete(p, -1); err != nil {
				t.Error(err)
			}
		}
	})
	srv := zktest.EmbeddedServer(t, zkserver.Config{UnknownOps: []jute.Op{jute.OpWhoAmI}})
	out, _, err := run(t, "--server", srv.ConnectString(), "whoami")
	if err != nil || !strings.Contains(out, "unknown (the server is older than ZooKeeper 3.7") {
		t.Errorf("whoami on an older server: %v %s", err, out)
	}
}
