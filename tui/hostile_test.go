package tui

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestHostileData: what the server holds may be anything. Binary and
// 1 MiB values, names with spaces, unicode and control characters, nodes
// we may not read and a tree 1,000 levels deep all render, escaped where
// a terminal would obey them, and the explorer goes on.
func TestHostileData(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		admin := zktest.Conn(t, connect)
		mustCreate(t, admin, base, "", 0)
		binary := make([]byte, 512)
		if _, err := rand.Read(binary); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Create(base+"/binary", binary, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Create(base+"/big", []byte(strings.Repeat("0123456789abcdef", 65000)), zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		// ZooKeeper refuses control characters in paths, but not the
		// invisible ones that reorder or hide text.
		for _, name := range []string{"with space", "ünïcödé-名前", "zero\u200bwidth", "rtl\u202eevil"} {
			mustCreate(t, admin, base+"/"+name, "x", 0)
		}
		secret := base + "/secret"
		if _, err := admin.Create(secret, []byte("hidden"), zk.FlagPersistent, zk.DigestACL(zk.PermAll, "owner", "pw")); err != nil {
			t.Fatal(err)
		}
		deep := base + "/deep"
		p := deep
		mustCreate(t, admin, p, "", 0)
		var ops []any
		for i := 0; i < 999; i++ {
			p += "/d"
			ops = append(ops, &zk.CreateRequest{Path: p, Acl: zk.WorldACL(zk.PermAll)})
			if len(ops) == 100 {
				if _, err := admin.Multi(ops...); err != nil {
					t.Fatal(err)
				}
				ops = nil
			}
		}
		if len(ops) > 0 {
			if _, err := admin.Multi(ops...); err != nil {
				t.Fatal(err)
			}
		}

		app := newTestApp(t, connect, false)
		d := newDriver(t, app, 120, 30)
		d.waitText("zookeeper")
		cd := func(path string) {
			d.key(":")
			d.typeText("cd " + path)
			d.key("enter")
		}
		cd(base + "/binary")
		s := d.waitText("hex · 512 bytes")
		if !strings.Contains(s, "00000000: ") {
			t.Fatalf("binary data is not shown as a hex dump:\n%s", s)
		}
		cd(base + "/big")
		d.waitText("text · 1015.6 KiB")
		cd(base + "/with space")
		s = d.waitText("with space")
		for _, want := range []string{`zero\u200bwidth`, `rtl\u202eevil`, "ünïcödé-名前"} {
			if !strings.Contains(s, want) {
				t.Fatalf("%q not shown escaped:\n%s", want, s)
			}
		}
		if strings.ContainsAny(s, "\u200b\u202e") {
			t.Fatalf("a raw control character reached the screen:\n%q", s)
		}
		cd(secret)
		d.waitText("no access")
		d.key("]")
		d.key("]")
		d.waitText("acl  no access")
		d.key("[")
		d.key("[")
		cd(p)
		d.waitFor("the deepest node selected", func(s string) bool { return strings.Contains(s, "/d/d/d") && strings.Contains(s, "›") })
		d.key("?")
		d.waitText("any key closes")
	})
}

// TestHundredThousandChildren opens a node with 100,000 children: its
// first rows show, and the last is one key away.
func TestHundredThousandChildren(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	dir := zktest.Path(t)
	manyChildren(t, connect, dir, 100_000)
	app := newTestApp(t, connect, true)
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("cd " + dir + "/child-000000")
	d.key("enter")
	d.waitText("child-000030")
	d.key("G")
	d.waitText("child-099999")
}
