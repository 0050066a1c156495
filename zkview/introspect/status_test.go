package introspect

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func TestServerStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name  string
		words []string
		fails string // part of the error, "" for success
	}{
		{name: "srvr", words: nil},
		{name: "mntr when srvr is refused", words: []string{"mntr"}},
		{name: "both refused", words: []string{"ruok"}, fails: "srvr and mntr on"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := zktest.EmbeddedServer(t, zkserver.Config{FourLetterWords: c.words})
			st, err := ServerStatus(ctx, srv.ConnectString(), time.Second, Options{})
			if c.fails != "" {
				if err == nil || !strings.Contains(err.Error(), c.fails) {
					t.Fatalf("err %v, want it to contain %q", err, c.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode != ModeStandalone || st.NodeCount < 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
	t.Run("real", func(t *testing.T) {
		st, err := ServerStatus(ctx, zktest.Shared(t), time.Second, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode != ModeStandalone || st.NodeCount < 1 || !strings.HasPrefix(st.Version, "3.8") {
			t.Fatalf("stats %+v", st)
		}
	})
}

// TestStatuses: every member at once, each within the timeout; a paused
// member and a closed port are told apart, in plain words.
func TestStatuses(t *testing.T) {
	t.Parallel()
	live := zktest.EmbeddedServer(t, zkserver.Config{})
	paused := zktest.EmbeddedServer(t, zkserver.Config{})
	paused.Pause()
	t.Cleanup(paused.Resume)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	got := Statuses(context.Background(), []string{live.ConnectString(), paused.ConnectString(), closed}, Options{Timeout: 300 * time.Millisecond})
	want := []struct{ brief, trouble string }{{"", ""}, {"no answer", "no answer within 300ms"}, {"connection refused", "connection refused"}}
	for i, w := range want {
		if got[i].Brief() != w.brief || got[i].Trouble() != w.trouble || (got[i].Stats != nil) != (w.brief == "") {
			t.Errorf("%s: brief %q, trouble %q, stats %v; want %q, %q", got[i].Addr, got[i].Brief(), got[i].Trouble(), got[i].Stats, w.brief, w.trouble)
		}
	}
}

func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := func(t *testing.T, addr string, wantLimit int, wantKnown bool) {
		t.Helper()
		limit, known, err := ConnectionLimit(ctx, addr, 5*time.Second, Options{})
		if err != nil || limit != wantLimit || known != wantKnown {
			t.Fatalf("ConnectionLimit = %d, %v, %v; want %d, %v", limit, known, err, wantLimit, wantKnown)
		}
	}
	t.Run("embedded: no limit", func(t *testing.T) {
		check(t, zktest.EmbeddedServer(t, zkserver.Config{}).ConnectString(), 0, true)
	})
	t.Run("conf refused: unknown", func(t *testing.T) {
		check(t, zktest.EmbeddedServer(t, zkserver.Config{FourLetterWords: []string{"ruok"}}).ConnectString(), 0, false)
	})
	t.Run("real, maxClientCnxns=25", func(t *testing.T) {
		check(t, zktest.RealWith(t, zktest.RealOptions{MaxClientCnxns: 25}).ConnectString(), 25, true)
	})
	t.Run("nobody there", func(t *testing.T) {
		if _, _, err := ConnectionLimit(ctx, "127.0.0.1:1", time.Second, Options{}); err == nil || !strings.Contains(err.Error(), "conf on 127.0.0.1:1") {
			t.Fatalf("err %v, want one naming conf and the address", err)
		}
	})
}
