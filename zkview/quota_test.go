package zkview

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func mustWriter(t *testing.T, c *Client) *Writer {
	t.Helper()
	w, err := c.Writer()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestParseStatsTrack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want QuotaValues
	}{
		// As ZooKeeper's StatsTrack.toString writes them: 3.4-style, and
		// with the hard limits 3.7 added after a "=" old readers ignore.
		{"count=10,bytes=-1", QuotaValues{Count: 10, Bytes: -1, CountHard: -1, BytesHard: -1}},
		{"count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=5", QuotaValues{Count: -1, Bytes: -1, CountHard: 5, BytesHard: -1}},
		{"count=2,bytes=3", QuotaValues{Count: 2, Bytes: 3, CountHard: -1, BytesHard: -1}},
		{"count=,bytes=7", QuotaValues{Count: -1, Bytes: 7, CountHard: -1, BytesHard: -1}},
		{"", QuotaValues{Count: -1, Bytes: -1, CountHard: -1, BytesHard: -1}},
	}
	for _, c := range cases {
		got, err := ParseStatsTrack(c.text)
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{"count", "count=x"} {
		if _, err := ParseStatsTrack(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestQuotasAsZkCliSetsThem: quotas set by zkCli.sh's setquota (soft and
// hard limits) are read back with the usage the server keeps, on the
// embedded server and on real ZooKeeper, through a chroot too.
func TestQuotasAsZkCliSetsThem(t *testing.T) {
	t.Parallel()
	zkCli := zktest.DebianFile(t, "zookeeper", "/bin/zkCli.sh", "apt-get install -y zookeeper")
	zktest.LookPath(t, "java", "apt-get install -y default-jre-headless")
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base, "/q", "/q/a", "/q/a/b", "/h", "/free")
		script := fmt.Sprintf("setquota -b 100 %s/q\nsetquota -N 3 %s/h\nlistquota %s/q\n", base, base, base)
		p := zktest.RunProgram(t, 2*time.Minute, script, true, zkCli, "-server", connect)
		var exit *exec.ExitError
		if p.Err != nil && (!errors.As(p.Err, &exit) || p.TimedOut) { // zkCli.sh exits with its last command's status
			p.Log(t)
			t.Fatal(p.Err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		q, err := c.QuotaFor(ctx, base+"/q/a/b")
		if err != nil || q == nil {
			p.Log(t)
			t.Fatalf("quota for %s/q/a/b: %+v, %v", base, q, err)
		}
		// q holds q, a, b: 3 nodes, data "/q" "/q/a" "/q/a/b" = 2+4+6 bytes.
		want := Quota{Path: base + "/q", Limits: QuotaValues{Count: -1, Bytes: 100, CountHard: -1, BytesHard: -1},
			Usage: QuotaValues{Count: 3, Bytes: 12, CountHard: -1, BytesHard: -1}, HasUsage: true}
		if q.Path != want.Path || q.Limits != want.Limits || q.Usage != want.Usage || !q.HasUsage || q.Err != nil {
			p.Log(t)
			t.Errorf("quota: %+v\nwant %+v", *q, want)
		}
		makeTree(t, c, base, "/q/big")
		if _, err := mustWriter(t, c).Set(ctx, base+"/q/big", make([]byte, 200), -1); err != nil {
			t.Fatal(err)
		}
		if q, err := c.QuotaFor(ctx, base+"/q"); err != nil || fmt.Sprint(q.Exceeded()) != "[bytes 212 > 100]" {
			t.Errorf("past the soft byte limit: %+v, %v", q, err)
		}
		if q, err := c.QuotaFor(ctx, base+"/free"); err != nil || q != nil {
			t.Errorf("a node under no quota: %+v, %v", q, err)
		}
		all, err := c.Quotas(ctx, base)
		if err != nil || len(all) != 2 || all[0].Path != base+"/h" || all[0].Limits.CountHard != 3 || all[1].Path != base+"/q" {
			t.Errorf("quotas under %s: %+v, %v", base, all, err)
		}
		// Past /h's hard limit of 3 nodes (itself counted): ZooKeeper 3.8
		// refuses only with zookeeper.enforceQuota, which neither server
		// has, so the usage passes it and zkx says so.
		makeTree(t, c, base, "/h/1", "/h/2", "/h/3")
		hq, err := c.QuotaFor(ctx, base+"/h")
		if err != nil || hq == nil || fmt.Sprint(hq.Exceeded()) != "[count (hard) 4 > 3]" {
			t.Errorf("/h: %+v, %v: exceeded %v", hq, err, hq.Exceeded())
		}
		// Through a chroot: the quota's path is named under it.
		cr := dialTest(t, connect+base)
		q2, err := cr.QuotaFor(ctx, "/q/a")
		if err != nil || q2 == nil || q2.Path != "/q" || q2.Outside {
			t.Errorf("through the chroot %s: %+v, %v", base, q2, err)
		}
	})
}
