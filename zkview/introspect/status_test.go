package introspect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

func TestServerStatus(t *testing.T) {
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

func TestConnectionLimit(t *testing.T) {
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
