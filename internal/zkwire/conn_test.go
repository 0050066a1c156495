package zkwire

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// dialSession opens a session of 5 s on connect, and a context of 30 s
// for the test's calls.
func dialSession(t *testing.T, connect string) (context.Context, *Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := Dial(ctx, connect, Options{SessionTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, c
}

// TestCalls: a session, a read, a refusal with its code, credentials, a
// call that ctx ends, and calls after Close.
func TestCalls(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		ctx, c := dialSession(t, connect)
		if c.SessionID() == 0 {
			t.Error("no session id")
		}
		var children jute.StringsResponse
		if err := c.Call(ctx, jute.OpGetChildren, &jute.PathWatchRequest{Path: "/"}, &children); err != nil || len(children.Strings) == 0 {
			t.Errorf("getChildren /: %v %v", children.Strings, err)
		}
		var se *ServerError
		err := c.Call(ctx, jute.OpGetData, &jute.PathWatchRequest{Path: "/no/such/node"}, &jute.GetDataResponse{})
		if !errors.As(err, &se) || se.Code != jute.ErrNoNode || !errors.Is(err, jute.ErrNoNode) {
			t.Errorf("getData of a missing node: %v, want ErrNoNode", err)
		}
		if err := c.AddAuth(ctx, "digest", []byte("alice:pw")); err != nil {
			t.Errorf("addAuth: %v", err)
		}
		done, stop := context.WithCancel(ctx)
		stop()
		if err := c.Call(done, jute.OpGetChildren, &jute.PathWatchRequest{Path: "/"}, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("call on an ended context: %v", err)
		}
		c.Close()
		if err := c.Call(ctx, jute.OpGetChildren, &jute.PathWatchRequest{Path: "/"}, nil); !errors.Is(err, ErrClosed) {
			t.Errorf("call after Close: %v", err)
		}
	})
}

// TestCallAll: many requests in one write, each with its own answer in
// its own place (a refusal among them), on an ended context and after
// Close.
func TestCallAll(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		ctx, c := dialSession(t, connect)
		defer c.Close()
		paths := []string{"/", "/no/such/node", "/zookeeper", "/zookeeper/quota"}
		reqs := make([]Request, len(paths))
		acls := make([]jute.GetACLResponse, len(paths))
		for i, p := range paths {
			reqs[i] = Request{Op: jute.OpGetACL, Req: &jute.PathRequest{Path: p}, Resp: &acls[i]}
		}
		errs := c.CallAll(ctx, reqs)
		for i, p := range paths {
			if p == "/no/such/node" {
				if !errors.Is(errs[i], jute.ErrNoNode) {
					t.Errorf("getACL %s: %v, want ErrNoNode", p, errs[i])
				}
				continue
			}
			if errs[i] != nil || len(acls[i].ACL) == 0 {
				t.Errorf("getACL %s: %v %v", p, acls[i].ACL, errs[i])
			}
		}
		// Each answer is its own request's: /zookeeper has children
		// (quota, config), /zookeeper/quota none.
		if acls[2].Stat.NumChildren == 0 || acls[3].Stat.NumChildren != 0 {
			t.Errorf("stats out of place: /zookeeper %+v, /zookeeper/quota %+v", acls[2].Stat, acls[3].Stat)
		}
		done, stop := context.WithCancel(ctx)
		stop()
		for i, err := range c.CallAll(done, reqs) {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("request %d on an ended context: %v", i, err)
			}
		}
		c.Close()
		for i, err := range c.CallAll(ctx, reqs) {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("request %d after Close: %v", i, err)
			}
		}
	})
}

// TestServerGoes: calls in flight fail, not hang, when the server drops
// the connection.
func TestServerGoes(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, srv.ConnectString(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held, release := make(chan struct{}), make(chan struct{})
	srv.SetFaultHook(func(r zkserver.Request) zkserver.Fault {
		if r.Path == "/held" {
			close(held)
			<-release
			return zkserver.DropBeforeApply
		}
		return zkserver.Proceed
	})
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, jute.OpGetData, &jute.PathWatchRequest{Path: "/held"}, nil) }()
	<-held
	close(release)
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call in flight when the connection went: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the call hung after the connection went")
	}
}

// TestNotificationsInOrder: with Notify set, a persistent recursive
// watch's notifications come numbered in the server's order, and a read
// says how many came before its answer — all those of the writes it
// reflects.
func TestNotificationsInOrder(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		type note struct {
			ev  jute.WatcherEvent
			seq uint64
		}
		notes := make(chan note, 100)
		w, err := Dial(ctx, connect, Options{Notify: func(ev jute.WatcherEvent, seq uint64) { notes <- note{ev, seq} }})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		writer, err := Dial(ctx, connect, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer writer.Close()
		base := zktest.Path(t)
		if err := w.Call(ctx, jute.OpAddWatch, &jute.PathIntRequest{Path: base, Value: jute.AddWatchPersistentRecursive}, &jute.IntResponse{}); err != nil {
			t.Fatal(err)
		}
		open := []jute.ACL{{Perms: jute.PermAll, ID: jute.Id{Scheme: "world", ID: "anyone"}}}
		for _, p := range []string{base, base + "/a"} {
			if err := writer.Call(ctx, jute.OpCreate, &jute.CreateRequest{Path: p, ACL: open}, &jute.PathResponse{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := writer.Call(ctx, jute.OpSetData, &jute.SetDataRequest{Path: base + "/a", Data: []byte("1"), Version: -1}, &jute.StatResponse{}); err != nil {
			t.Fatal(err)
		}
		// A read on the watching connection after the writes: its answer
		// comes after all three notifications.
		var got jute.GetDataResponse
		seen, err := w.CallOrdered(ctx, jute.OpGetData, &jute.PathWatchRequest{Path: base + "/a"}, &got)
		if err != nil || seen != 3 || string(got.Data) != "1" {
			t.Fatalf("read after the writes: seen %d, data %q, %v; want 3 and \"1\"", seen, got.Data, err)
		}
		want := []struct {
			typ  jute.EventType
			path string
		}{{jute.EventNodeCreated, base}, {jute.EventNodeCreated, base + "/a"}, {jute.EventNodeDataChanged, base + "/a"}}
		for i, wn := range want {
			var n note
			select {
			case n = <-notes: // all three were handed over before the read's answer
			default:
				t.Fatalf("notification %d had not been handed over before the read's answer", i+1)
			}
			if n.seq != uint64(i+1) || n.ev.Type != wn.typ || n.ev.Path != wn.path {
				t.Errorf("notification %d: %+v seq %d, want type %d on %s", i+1, n.ev, n.seq, wn.typ, wn.path)
			}
		}
	})
}
