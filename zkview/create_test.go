package zkview

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestCreateModes: each mode makes the node ZooKeeper says it is.
func TestCreateModes(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		c := dialTest(t, connect)
		base := zktest.Path(t)
		makeTree(t, c, base)
		w := mustWriter(t, c)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, m := range CreateModes() {
			p, err := w.CreateAs(ctx, base+"/"+m.String(), []byte("x"), m, 300*time.Millisecond)
			if err != nil {
				t.Fatalf("%v: %v", m, err)
			}
			st, err := c.Exists(ctx, p)
			if err != nil || st == nil {
				t.Fatalf("%v: %s not there: %v", m, p, err)
			}
			owner := st.EphemeralOwner
			ok := false
			switch m {
			case Persistent:
				ok = owner == 0 && p == base+"/persistent"
			case Sequential:
				ok = owner == 0 && strings.HasPrefix(p, base+"/sequential") && len(p) == len(base+"/sequential")+10
			case Container, TTL:
				// A client sees no owner for them (DataTree.copyStat): the
				// server's reaping below tells them apart.
				ok = owner == 0
			case Ephemeral:
				ok = owner == c.SessionID()
			}
			if !ok {
				t.Errorf("%v: %s with owner %#x", m, p, owner)
			}
		}
		// The server reaps a container once its last child goes, and a
		// TTL node untouched and childless for its TTL.
		kid, err := w.CreateAs(ctx, base+"/container/kid", nil, Persistent, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Delete(ctx, kid, -1); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{base + "/container", base + "/ttl"} {
			waitGone(t, c, p)
		}
		if st, _ := c.Exists(ctx, base+"/persistent"); st == nil {
			t.Error("the persistent node went too")
		}
		if _, err := w.CreateAs(ctx, base+"/zero", nil, TTL, 0); err == nil {
			t.Error("a TTL of 0: no error")
		}
	})
}

// waitGone waits, on an exists watch, until the server deletes p.
func waitGone(t *testing.T, c *Client, p string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		st, w, err := c.ExistsW(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if st == nil {
			return
		}
		select {
		case <-w:
		case <-deadline:
			t.Fatalf("%s was not reaped", p)
		}
	}
}

// TestTTLDisabledIsNamed: a server without extended types refuses a TTL
// node with a named error, on the embedded server and on real ZooKeeper
// started without zookeeper.extendedTypesEnabled.
func TestTTLDisabledIsNamed(t *testing.T) {
	t.Parallel()
	for name, connect := range map[string]func(t *testing.T) string{
		"embedded": func(t *testing.T) string {
			return zktest.EmbeddedServer(t, zkserver.Config{NoExtendedTypes: true}).ConnectString()
		},
		"real": func(t *testing.T) string {
			return zktest.RealWith(t, zktest.RealOptions{NoExtendedTypes: true}).ConnectString()
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := dialTest(t, connect(t))
			_, err := mustWriter(t, c).CreateAs(context.Background(), "/ttl-"+name, nil, TTL, time.Minute)
			if !errors.Is(err, ErrTTLDisabled) || !strings.Contains(err.Error(), "extendedTypesEnabled") {
				t.Errorf("TTL create without extended types: %v", err)
			}
		})
	}
}
