package connstr

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		servers []string
		chroot  string
		err     string
	}{
		{in: "127.0.0.1:2181", servers: []string{"127.0.0.1:2181"}},
		{in: "zk1:2181,zk2:2182,zk3", servers: []string{"zk1:2181", "zk2:2182", "zk3:2181"}},
		{in: "zk1,zk2/app/prod", servers: []string{"zk1:2181", "zk2:2181"}, chroot: "/app/prod"},
		{in: "zk1/", servers: []string{"zk1:2181"}},
		{in: "[::1]:2181", servers: []string{"[::1]:2181"}},
		{in: " zk1:2181 , zk2:2181 ", servers: []string{"zk1:2181", "zk2:2181"}},
		{in: "", err: "empty connect string"},
		{in: "zk1:2181,", err: "empty server address"},
		{in: "zk1:abc", err: "port must be a number"},
		{in: "zk1:70000", err: "port must be a number"},
		{in: ":2181", err: "has no host"},
		{in: "::1", err: "IPv6"},
		{in: "zk1/app/", err: "must not end with /"},
		{in: "zk1/app//x", err: "not a valid absolute path"},
		{in: "zk1/../etc", err: "not a valid absolute path"},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q): error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got.Servers, c.servers) || got.Chroot != c.chroot {
			t.Errorf("Parse(%q) = %+v, want servers %v chroot %q", c.in, got, c.servers, c.chroot)
		}
	}
}

func TestChrootMapping(t *testing.T) {
	t.Parallel()
	cs, err := Parse("zk1/app")
	if err != nil {
		t.Fatal(err)
	}
	for user, server := range map[string]string{"/": "/app", "/locks/a": "/app/locks/a"} {
		if got := cs.Abs(user); got != server {
			t.Errorf("Abs(%q) = %q, want %q", user, got, server)
		}
		if got := cs.Rel(server); got != user {
			t.Errorf("Rel(%q) = %q, want %q", server, got, user)
		}
	}
	plain, _ := Parse("zk1")
	if plain.Abs("/x") != "/x" || plain.Rel("/x") != "/x" {
		t.Error("no chroot must map paths to themselves")
	}
}
