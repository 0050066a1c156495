package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestFitContenders(t *testing.T) {
	one := connectionCapacity{perMember: 60, members: 1, total: 60}
	cases := []struct {
		name             string
		capacity         connectionCapacity
		seeded, wanted   int
		want, wantCap    int
		wantErrSubstring string
	}{
		{"no limit", connectionCapacity{}, 19, 40, 40, 0, ""},
		{"fits", one, 19, 12, 12, 12, ""},
		{"too many", one, 19, 30, 12, 12, ""},
		{"no room", connectionCapacity{perMember: 20, members: 1, total: 20}, 19, 12, 0, 0, "too few for the demo's seeded state"},
	}
	for _, c := range cases {
		got, dc, err := fitContenders(c.capacity, c.seeded, c.wanted, 3)
		if c.wantErrSubstring != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSubstring) || !strings.Contains(err.Error(), "maxClientCnxns") {
				t.Errorf("%s: error %v, want one saying %q and naming maxClientCnxns", c.name, err, c.wantErrSubstring)
			}
			continue
		}
		if err != nil || got != c.want || dc.Max != c.wantCap {
			t.Errorf("%s: fitContenders = %d, cap %d, %v; want %d, cap %d", c.name, got, dc.Max, err, c.want, c.wantCap)
		}
		if dc.Max > 0 && !strings.Contains(dc.Reason, "maxClientCnxns") {
			t.Errorf("%s: the cap's reason %q does not name maxClientCnxns", c.name, dc.Reason)
		}
	}
}

// TestDemoRespectsConnectionLimit: against a real ZooKeeper that accepts 30
// connections from one address, the demo reads the limit from conf, and a
// headless run that would need more refuses before opening any session.
func TestDemoRespectsConnectionLimit(t *testing.T) {
	e := zktest.RealWith(t, zktest.RealOptions{MaxClientCnxns: 30})
	connect := e.ConnectString()
	c := serverCapacity(context.Background(), []string{connect})
	if c.total != 30 || c.perMember != 30 {
		t.Fatalf("serverCapacity = %+v, want 30 connections", c)
	}
	_, _, err := run(t, "--server", connect, "demo", "--headless", "--contenders", "40", "--duration", "1s")
	if err == nil || !strings.Contains(err.Error(), "needs 44 connections") || !strings.Contains(err.Error(), "maxClientCnxns") {
		t.Fatalf("zkx demo --headless --contenders 40: error %v, want one naming the 44 connections and maxClientCnxns", err)
	}
	if c := serverCapacity(context.Background(), []string{zktest.Embedded(t)}); c.limited() {
		t.Errorf("the embedded server has no connection limit, got %+v", c)
	}
}
