package zkserver_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// TestClock: a fixed clock stamps nodes, the connections' last answers
// (cons lresp) and seeds session ids, so tests can draw the same screens
// every run.
func TestClock(t *testing.T) {
	t.Parallel()
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := zktest.EmbeddedServer(t, zkserver.Config{Clock: func() time.Time { return fixed }})
	conn, _ := gozkConnect(t, srv.ConnectString())
	if _, err := conn.Create("/stamped", nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	_, st, err := conn.Get("/stamped")
	if err != nil {
		t.Fatal(err)
	}
	if st.Ctime != fixed.UnixMilli() || st.Mtime != fixed.UnixMilli() {
		t.Fatalf("ctime %d mtime %d, want %d", st.Ctime, st.Mtime, fixed.UnixMilli())
	}
	if want := int64(uint64(fixed.UnixMilli())<<24>>8) | 1<<56; conn.SessionID() != want {
		t.Fatalf("session id %#x, want %#x", conn.SessionID(), want)
	}
	cons, err := zktest.FourLetter(srv.ConnectString(), "cons", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("sid=%#x,", conn.SessionID()); !strings.Contains(cons, want) ||
		!strings.Contains(cons, fmt.Sprintf(",lresp=%d,", fixed.UnixMilli())) {
		t.Fatalf("cons does not show session %#x last answered at the clock's %d:\n%s", conn.SessionID(), fixed.UnixMilli(), cons)
	}
}
