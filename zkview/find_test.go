package zkview

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestFindQueryMatch(t *testing.T) {
	t.Parallel()
	now := time.UnixMilli(1_700_000_000_000)
	node := func(p string, owner int64, age time.Duration, data string) WalkNode {
		return WalkNode{Path: p, Stat: &zk.Stat{EphemeralOwner: owner, Mtime: now.Add(-age).UnixMilli()}, Data: []byte(data)}
	}
	mustName := func(s string) *NamePattern {
		p, err := ParseNamePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	mustData := func(s string) FindQuery {
		re, err := ParseDataPattern(s)
		if err != nil {
			t.Fatal(err)
		}
		return FindQuery{Data: re, Now: now}
	}
	lock := node("/app/locks/lock-0000000003", 0x1000a, time.Minute, "10.0.0.5")
	conf := node("/app/config.json", 0, 48*time.Hour, `{"enabled": false}`)
	container := node("/app/c", -1<<63, time.Hour, "")
	cases := []struct {
		name string
		q    FindQuery
		n    WalkNode
		want bool
	}{
		{"empty query matches all", FindQuery{Now: now}, conf, true},
		{"glob", FindQuery{Name: mustName("lock-*"), Now: now}, lock, true},
		{"glob on name only, not the path", FindQuery{Name: mustName("app*"), Now: now}, lock, false},
		{"regex", FindQuery{Name: mustName(`/^lock-\d{10}$/`), Now: now}, lock, true},
		{"regex miss", FindQuery{Name: mustName(`/^_c_/`), Now: now}, lock, false},
		{"data", mustData(`/"enabled": *false/`), conf, true},
		{"data without slashes", mustData(`10\.0\.`), lock, true},
		{"data miss", mustData(`/true/`), conf, false},
		{"ephemeral", FindQuery{Ephemeral: true, Now: now}, lock, true},
		{"persistent is not ephemeral", FindQuery{Ephemeral: true, Now: now}, conf, false},
		{"container is not ephemeral", FindQuery{Ephemeral: true, Now: now}, container, false},
		{"owner", FindQuery{Owner: 0x1000a, Now: now}, lock, true},
		{"other owner", FindQuery{Owner: 0x1000b, Now: now}, lock, false},
		{"older", FindQuery{Older: 24 * time.Hour, Now: now}, conf, true},
		{"not older", FindQuery{Older: 24 * time.Hour, Now: now}, lock, false},
		{"unreadable node fails stat conditions", FindQuery{Ephemeral: true, Now: now}, WalkNode{Path: "/x", Err: zk.ErrNoAuth}, false},
		{"unreadable node still matches by name", FindQuery{Name: mustName("x"), Now: now}, WalkNode{Path: "/x", Err: zk.ErrNoAuth}, true},
	}
	for _, c := range cases {
		if got := c.q.Match(c.n); got != c.want {
			t.Errorf("%s: Match(%s) = %v, want %v", c.name, c.n.Path, got, c.want)
		}
	}
}

func TestFindPatternErrors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "[a-", "/(/"} {
		if _, err := ParseNamePattern(s); err == nil {
			t.Errorf("ParseNamePattern(%q) accepted", s)
		}
	}
	if _, err := ParseDataPattern("/(/"); err == nil {
		t.Error("ParseDataPattern accepted /(/")
	}
	for _, s := range []string{"", "0x", "zz", "0"} {
		if _, err := ParseOwner(s); err == nil {
			t.Errorf("ParseOwner(%q) accepted", s)
		}
	}
	if id, err := ParseOwner("0x1000A2B3c4d0001"); err != nil || id != 0x1000a2b3c4d0001 {
		t.Errorf("ParseOwner: %x %v", id, err)
	}
}

// TestFind: matches come in preorder, with data read when asked, on
// both a batched reader and the client itself.
func TestFind(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base, "/a", "/a/lock-1", "/a/x", "/b", "/b/lock-2", "/b/lock-2/lock-3")
		w, _ := c.Writer()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := w.Create(ctx, base+"/b/eph", []byte("mine"), zk.FlagEphemeral); err != nil {
			t.Fatal(err)
		}
		name, _ := ParseNamePattern("lock-*")
		data, _ := ParseDataPattern("/mine/")
		b, err := c.DialBulk(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for _, r := range []Reader{c, b} {
			var got []string
			st, err := Find(ctx, r, base, FindQuery{Name: name}, WalkOptions{Concurrency: 4}, nil, func(n WalkNode) error {
				got = append(got, strings.TrimPrefix(n.Path, base))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != "/a/lock-1,/b/lock-2,/b/lock-2/lock-3" || st.Visited != 8 || st.Matched != 3 {
				t.Errorf("%T: find lock-*: %v (%+v)", r, got, st)
			}
			got = nil
			_, err = Find(ctx, r, base, FindQuery{Data: data, Ephemeral: true, Owner: c.SessionID()}, WalkOptions{}, nil, func(n WalkNode) error {
				got = append(got, strings.TrimPrefix(n.Path, base)+"="+string(n.Data))
				return nil
			})
			if err != nil || strings.Join(got, ",") != "/b/eph=mine" {
				t.Errorf("%T: find ephemeral with data: %v %v", r, got, err)
			}
		}
	})
}
