package zkdial

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/fakezk"
)

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// testAnswerTimeout stands for DefaultAnswerTimeout (see
// TestAnswerTimeoutDefault): a silent fake is named after it.
const testAnswerTimeout = time.Second

// connectGoZK connects go-zookeeper to members through a watch, as zkview
// and recipes do, and waits for a session or the watch's abort.
func connectGoZK(t *testing.T, sessionTimeout time.Duration, members ...string) (*zk.Conn, *Watch, error) {
	t.Helper()
	w := NewWatch(members, Options{AnswerTimeout: testAnswerTimeout})
	conn, events, err := zk.Connect(members, sessionTimeout, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false),
		zk.WithMaxBufferSize(DefaultMaxFrame), zk.WithDialer(w.Dialer()), zk.WithHostProvider(&Hosts{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	go func() {
		for range events {
		}
	}()
	deadline := time.After(20 * time.Second)
	for conn.State() != zk.StateHasSession {
		select {
		case err := <-w.Abort():
			return conn, w, err
		case <-deadline:
			t.Fatal("no session and no abort within 20s")
		case <-time.After(10 * time.Millisecond): // polling go-zookeeper's state, with a deadline
		}
	}
	return conn, w, nil
}

// TestGoZookeeperOverFakeServers: go-zookeeper behind the watch, against
// each misbehaving fake server, never panics (a panic in its goroutines
// would end this test binary) and never hangs; what went wrong is named.
func TestGoZookeeperOverFakeServers(t *testing.T) {
	t.Parallel()
	notZK := func(want string) func(t *testing.T, addr string) {
		return func(t *testing.T, addr string) {
			begin := time.Now()
			_, _, err := connectGoZK(t, 10*time.Second, addr)
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Kind != NotZooKeeper || !strings.Contains(err.Error(), want) {
				t.Fatalf("abort %v, want the member named as not ZooKeeper: %q", err, want)
			}
			if took := time.Since(begin); took > testAnswerTimeout+5*time.Second { // generous: a bound on hanging
				t.Errorf("named after %v", took)
			}
		}
	}
	badInSession := func(want string, ask func(*zk.Conn) error) func(t *testing.T, addr string) {
		return func(t *testing.T, addr string) {
			// The session may be given up before it is even open (a
			// flood right after the handshake).
			conn, w, _ := connectGoZK(t, 10*time.Second, addr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := Probe(ctx, conn, w); err != nil && !strings.Contains(err.Error(), want) {
				t.Fatalf("probe: %v", err)
			}
			if w.Fatal() == nil && ask != nil {
				if err := ask(conn); err == nil {
					t.Fatal("the request succeeded")
				}
			}
			var pe *ProtocolError
			if fatal := w.Fatal(); !errors.As(fatal, &pe) || !strings.Contains(fatal.Error(), want) {
				t.Fatalf("the watch gave up with %v, want %q", fatal, want)
			}
		}
	}
	children := func(c *zk.Conn) error { _, _, err := c.Children("/"); return err }
	cases := map[string]func(t *testing.T, addr string){
		"timeout-zero":       notZK("session timeout of 0 ms"),
		"random-bytes":       notZK("announces a frame of"),
		"huge-frame":         notZK("announces a frame of 2147483648 bytes"),
		"http":               notZK(`it answered in HTTP ("HTTP/1.1 400 Bad Request")`),
		"silent":             notZK("no answer to the session request within 1s"),
		"huge-vector":        badInSession("vector length 2147483647", children),
		"wrong-xids":         badInSession("a reply to request 1001", nil),
		"notification-flood": badInSession("which this session does not watch", nil),
	}
	for name, check := range cases {
		c, ok := fakezk.Lookup(name)
		if !ok {
			t.Fatalf("no fake %s", name)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			check(t, fakezk.New(t, c.Behaviour).Addr())
		})
	}
}

// TestAnswerTimeoutDefault: a member has DefaultAnswerTimeout to begin
// its answer unless Options say otherwise.
func TestAnswerTimeoutDefault(t *testing.T) {
	t.Parallel()
	if got := (Options{}).answerTimeout(); got != DefaultAnswerTimeout {
		t.Errorf("default answer timeout %v, want %v", got, DefaultAnswerTimeout)
	}
	if got := (Options{AnswerTimeout: testAnswerTimeout}).answerTimeout(); got != testAnswerTimeout {
		t.Errorf("answer timeout %v, want %v", got, testAnswerTimeout)
	}
}

// TestGoZookeeperStall: a server that answers pings and nothing else is
// found out within a session timeout of the request it left unanswered.
func TestGoZookeeperStall(t *testing.T) {
	t.Parallel()
	s := fakezk.New(t, fakezk.PingsOnly())
	conn, w, err := connectGoZK(t, 2*time.Second, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = Probe(ctx, conn, w)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Kind != Stalled || !strings.Contains(err.Error(), "exists / has waited") {
		t.Fatalf("probe: %v, want a stall named", err)
	}
}

// TestProbeEndsWithItsContext: the probe of a server that answers
// nothing but pings ends with its context, saying what it waits for.
func TestProbeEndsWithItsContext(t *testing.T) {
	t.Parallel()
	s := fakezk.New(t, fakezk.PingsOnly())
	conn, w, err := connectGoZK(t, 10*time.Second, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	err = Probe(ctx, conn, w)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "has not answered exists /") {
		t.Fatalf("probe: %v", err)
	}
}

// TestSilentAfterHandshakeNamed: a server that goes silent after opening
// the session is named when go-zookeeper gives up on the connection.
func TestSilentAfterHandshakeNamed(t *testing.T) {
	t.Parallel()
	s := fakezk.New(t, fakezk.SilentAfterHandshake())
	conn, w, err := connectGoZK(t, 2*time.Second, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := conn.Exists("/"); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("exists: %v", err)
	}
	if b := w.Broken(); b == nil || !strings.Contains(b.Error(), "went silent: it answered neither exists / nor its pings") {
		t.Fatalf("broken: %v", b)
	}
}

func TestHonestFakeThroughTheWatch(t *testing.T) {
	t.Parallel()
	s := fakezk.New(t, fakezk.Honest())
	conn, w, err := connectGoZK(t, 10*time.Second, s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if err := Probe(context.Background(), conn, w); err != nil {
		t.Fatal(err)
	}
	kids, _, err := conn.Children("/")
	if err != nil || len(kids) != 1 {
		t.Fatalf("children: %v %v", kids, err)
	}
	if w.Fatal() != nil {
		t.Fatal(w.Fatal())
	}
}
