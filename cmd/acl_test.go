package cmd

import (
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestSetACL: the digest helper's id is the one ZooKeeper checks
// (alice reads, an anonymous client does not), the ACL syntax is
// checked, and an ACL that takes away your ADMIN is refused without a
// terminal unless --force.
func TestSetACL(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		create(t, c, base, []byte("x"), 0, zk.WorldACL(zk.PermAll))
		id, _, err := run(t, "digest", "alice:secret")
		if err != nil {
			t.Fatal(err)
		}
		id = strings.TrimSpace(id)
		alice := []string{"--server", connect, "--auth", "digest:alice:secret"}
		out, _, err := run(t, append(alice, "setacl", base, id+":cdrwa,world:anyone:c")...)
		if err != nil || !strings.Contains(out, "world:anyone:cdrwa → "+id+":cdrwa,world:anyone:c") {
			t.Fatalf("setacl: %v\n%s", err, out)
		}
		if _, _, err := c.Get(base); err != zk.ErrNoAuth {
			t.Fatalf("an anonymous read after setacl: %v, want no auth", err)
		}
		if out, _, err := run(t, append(alice, "get", base)...); err != nil || !strings.Contains(out, "x") {
			t.Fatalf("alice's read: %v %s", err, out)
		}
		_, _, err = run(t, append(alice, "setacl", base, "world:anyone:r")...)
		if err == nil || !strings.Contains(err.Error(), "ADMIN") || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("setacl taking away ADMIN: %v", err)
		}
		if _, _, err := run(t, append(alice, "setacl", base, "world:anyone:r", "--version", "0")...); err == nil {
			t.Fatal("setacl with a stale --version went through")
		}
		for _, bad := range []string{"world:someone:r", "digest:alice:secret:cdrwa", "world:anyone:rx", "nocolons", ""} {
			if _, _, err := run(t, append(alice, "setacl", base, bad)...); err == nil {
				t.Errorf("setacl %q accepted", bad)
			}
		}
		if _, _, err := run(t, append(alice, "setacl", base, "auth::cdrwa,world:anyone:r", "--version", "1")...); err != nil {
			t.Fatalf("setacl auth::cdrwa: %v", err)
		}
		// Read as alice: ZooKeeper hides digest hashes ("alice:x") from
		// a reader without ADMIN.
		if masked, _, err := c.GetACL(base); err != nil || masked[0].ID != "alice:x" {
			t.Fatalf("an anonymous getACL: %+v %v, want the hash masked", masked, err)
		}
		if err := c.AddAuth("digest", []byte("alice:secret")); err != nil {
			t.Fatal(err)
		}
		acl, _, err := c.GetACL(base)
		if err != nil || len(acl) != 2 || acl[0].Scheme != "digest" || acl[0].ID != strings.TrimPrefix(id, "digest:") {
			t.Fatalf("auth::cdrwa became %+v %v, want alice's digest %q", acl, err, id)
		}
	})
}
