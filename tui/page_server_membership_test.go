package tui

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestServerMembershipAndWhoami: :server shows who the servers take the
// explorer to be and /zookeeper/config's members beside the live modes, on
// a real ensemble of three; a standalone server has no configuration.
func TestServerMembershipAndWhoami(t *testing.T) {
	t.Parallel()
	e := zktest.Real(t, 3)
	app := newTestApp(t, e.ConnectString(), true, func(c *Config) {})
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("server")
	d.key("enter")
	s := d.waitFor("the members and the configuration", func(s string) bool {
		return strings.Contains(s, "server.3") && strings.Contains(s, "ensemble of 3")
	})
	for _, want := range []string{"you are ip:127.0.0.1", "/zookeeper/config, version 0: 3 members", "server.1", "server.2", "server.3", "participant"} {
		if !strings.Contains(s, want) {
			t.Errorf(":server lacks %q:\n%s", want, s)
		}
	}
	for _, m := range e.Members() {
		if !strings.Contains(s, m.Addr()) {
			t.Errorf(":server does not list the member %s (live modes):\n%s", m.Addr(), s)
		}
	}

	standalone := newTestApp(t, zktest.Embedded(t), false)
	d = newDriver(t, standalone, 120, 40)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("server")
	d.key("enter")
	d.waitText("none in /zookeeper/config (a standalone server)")
}

// TestStatTabQuota: the Stat tab of a node under a quota shows its limits
// and the usage the server counts, on both servers.
func TestStatTabQuota(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		admin := zktest.Conn(t, connect)
		mustCreate(t, admin, base, "", 0)
		mustCreate(t, admin, base+"/q", "ab", 0)
		mustCreate(t, admin, base+"/q/a", "cd", 0)
		mustCreate(t, admin, base+"/free", "", 0)
		mustCreate(t, admin, "/zookeeper/quota"+base, "", 0)
		mustCreate(t, admin, "/zookeeper/quota"+base+"/q", "", 0)
		// As zkCli's setquota -n 1 -B 1024 writes them (StatsTrack.toString).
		mustCreate(t, admin, "/zookeeper/quota"+base+"/q/zookeeper_limits", "count=1,bytes=-1=;byteHardLimit=1024;countHardLimit=-1", 0)
		mustCreate(t, admin, "/zookeeper/quota"+base+"/q/zookeeper_stats", "count=0,bytes=0", 0)
		t.Cleanup(func() {
			for _, p := range []string{"/q/zookeeper_stats", "/q/zookeeper_limits", "/q", ""} {
				admin.Delete("/zookeeper/quota"+base+p, -1)
			}
		})
		app := newTestApp(t, connect, false)
		d := newDriver(t, app, 120, 40)
		d.waitText("zookeeper")
		d.key(":")
		d.typeText("cd " + base + "/q/a")
		d.key("enter")
		d.waitText("2 bytes · version 0")
		d.key("]")
		s := strings.Join(strings.Fields(d.waitText("quota over")), " ")
		for _, want := range []string{"quota on " + base + "/q", "quota nodes 2 of 1", "quota bytes 4 (hard 1024)", "quota over count 2 > 1"} {
			if !strings.Contains(s, want) {
				t.Errorf("Stat tab lacks %q:\n%s", want, s)
			}
		}
		d.key(":")
		d.typeText("cd " + base + "/free")
		d.key("enter")
		d.waitFor("no quota", func(s string) bool {
			return strings.Contains(strings.Join(strings.Fields(s), " "), "│ quota none") && !strings.Contains(s, "quota nodes")
		})
	})
}
