package zktest

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/zkserver"
)

func TestMain(m *testing.M) { Main(m) }

// realAvailable tells whether real-ZooKeeper tests can run here.
func realAvailable() bool {
	_, err := locate()
	return err == nil
}

func ruok(addr string, timeout time.Duration) error {
	out, err := FourLetter(addr, "ruok", timeout)
	if err != nil {
		return err
	}
	if out != "imok" {
		return errors.New("ruok answered " + out)
	}
	return nil
}

func TestEmbedded(t *testing.T) {
	t.Parallel()
	addr := Embedded(t)
	if err := ruok(addr, 5*time.Second); err != nil {
		t.Fatalf("embedded ruok: %v", err)
	}
	out, err := FourLetter(addr, "srvr", 5*time.Second)
	if err != nil {
		t.Fatalf("embedded srvr: %v", err)
	}
	if mode, err := parseMode(out); err != nil || mode != "standalone" {
		t.Fatalf("embedded srvr mode = %q, %v; want standalone", mode, err)
	}
}

func TestEmbeddedServerClosedAtCleanup(t *testing.T) {
	t.Parallel()
	var addr string
	t.Run("inner", func(t *testing.T) {
		s := EmbeddedServer(t, zkserver.Config{FourLetterWords: []string{"ruok"}})
		addr = s.ConnectString()
		if err := ruok(addr, 5*time.Second); err != nil {
			t.Fatalf("ruok: %v", err)
		}
		out, err := FourLetter(addr, "srvr", 5*time.Second)
		if err != nil || !strings.Contains(out, "not in the whitelist") {
			t.Fatalf("srvr with ruok-only whitelist = %q, %v; want refusal", out, err)
		}
	})
	if err := ruok(addr, time.Second); err == nil {
		t.Fatalf("embedded server %s still answers after its test ended", addr)
	}
}

func TestRealStandalone(t *testing.T) {
	t.Parallel()
	e := Real(t, 1)
	ms := e.Members()
	if len(ms) != 1 {
		t.Fatalf("Members() = %d, want 1", len(ms))
	}
	m := ms[0]
	if m.ID() != 1 || e.ConnectString() != m.Addr() {
		t.Fatalf("ID %d, ConnectString %q, Addr %q", m.ID(), e.ConnectString(), m.Addr())
	}
	if mode, err := m.Mode(); err != nil || mode != "standalone" {
		t.Fatalf("Mode() = %q, %v; want standalone", mode, err)
	}
	if l := e.Leader(t); l != m {
		t.Fatalf("Leader() = %v, want %v", l, m)
	}

	m.Pause(t)
	if out, err := FourLetter(m.Addr(), "ruok", 300*time.Millisecond); err == nil {
		t.Fatalf("paused server answered ruok: %q", out)
	}
	if _, err := m.Mode(); err == nil {
		t.Fatal("paused server reported a mode")
	}
	m.Resume(t)
	Eventually(t, 10*time.Second, "ruok after Resume", func() error { return ruok(m.Addr(), time.Second) })
	e.WaitServing(t)
}

func TestRealEnsemble(t *testing.T) {
	t.Parallel()
	e := Real(t, 3)
	ms := e.Members()
	if len(ms) != 3 {
		t.Fatalf("Members() = %d, want 3", len(ms))
	}
	addrs := strings.Split(e.ConnectString(), ",")
	seen := map[string]bool{}
	for i, m := range ms {
		if m.ID() != i+1 || addrs[i] != m.Addr() || seen[m.Addr()] {
			t.Fatalf("member %d: ID %d Addr %s; ConnectString %s", i, m.ID(), m.Addr(), e.ConnectString())
		}
		seen[m.Addr()] = true
	}

	leaders, followers := 0, 0
	for _, m := range ms {
		mode, err := m.Mode()
		if err != nil {
			t.Fatalf("%v Mode: %v", m, err)
		}
		switch mode {
		case "leader":
			leaders++
		case "follower":
			followers++
		default:
			t.Fatalf("%v mode %q", m, mode)
		}
	}
	if leaders != 1 || followers != 2 {
		t.Fatalf("%d leaders, %d followers; want 1 and 2", leaders, followers)
	}

	old := e.Leader(t)
	old.Kill(t)
	if mode, err := old.Mode(); err == nil {
		t.Fatalf("killed leader still reports mode %q", mode)
	}
	begin := time.Now()
	next := e.Leader(t)
	if next == old {
		t.Fatalf("new leader is the killed one, %v", old)
	}
	t.Logf("new leader %v after %v", next, time.Since(begin).Round(time.Millisecond))

	old.Restart(t)
	begin = time.Now()
	e.WaitServing(t)
	t.Logf("restarted %v serving after %v", old, time.Since(begin).Round(time.Millisecond))
	if mode, err := old.Mode(); err != nil || mode != "follower" {
		t.Fatalf("restarted old leader: Mode() = %q, %v; want follower", mode, err)
	}
	if l := e.Leader(t); l != next {
		t.Fatalf("leader changed on restart: %v, want %v", l, next)
	}

	// A paused follower answers nothing; resumed, it serves again.
	var follower *Member
	for _, m := range ms {
		if m != next {
			follower = m
			break
		}
	}
	follower.Pause(t)
	if out, err := FourLetter(follower.Addr(), "srvr", 300*time.Millisecond); err == nil {
		t.Fatalf("paused follower answered srvr: %q", out)
	}
	follower.Resume(t)
	e.WaitServing(t)

	// A paused member can be killed, and restarted.
	follower.Pause(t)
	follower.Kill(t)
	if st, _ := follower.state(); st != stateDown {
		t.Fatalf("%v after Kill: state %v, want down", follower, st)
	}
	follower.Restart(t)
	e.WaitServing(t)
	if mode, err := follower.Mode(); err != nil || mode != "follower" {
		t.Fatalf("%v after Pause, Kill, Restart: Mode() = %q, %v; want follower", follower, mode, err)
	}
}

func TestEach(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]string{}
	Each(t, func(t *testing.T, connect string) {
		if err := ruok(connect, 5*time.Second); err != nil {
			t.Fatalf("ruok %s: %v", connect, err)
		}
		mu.Lock()
		got[t.Name()] = connect
		mu.Unlock()
	})
	want := []string{"TestEach/embedded"}
	if realAvailable() {
		want = append(want, "TestEach/real")
	}
	if len(got) != len(want) {
		t.Fatalf("subtests run: %v, want %v", got, want)
	}
	for _, name := range want {
		if got[name] == "" {
			t.Fatalf("subtest %s did not run (ran: %v)", name, got)
		}
	}
	if realAvailable() && got["TestEach/real"] != Shared(t) {
		t.Fatalf("real subtest used %s, not the shared server %s", got["TestEach/real"], Shared(t))
	}
}

func TestShared(t *testing.T) {
	t.Parallel()
	a := Shared(t)
	b := Shared(t)
	if a != b {
		t.Fatalf("Shared returned %q then %q", a, b)
	}
	if err := ruok(a, 5*time.Second); err != nil {
		t.Fatalf("shared ruok: %v", err)
	}
}

func TestPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want string // regexp
	}{
		{"plain", `^/zkt-TestPath_plain-[0-9a-f]{8}$`},
		{"with space/and slash", `^/zkt-TestPath_with_space_and_slash-[0-9a-f]{8}$`},
		{"unicode ü", `^/zkt-TestPath_unicode__-[0-9a-f]{8}$`},
		{strings.Repeat("x", 200), `^/zkt-TestPath_x{71}-[0-9a-f]{8}$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p1, p2 := Path(t), Path(t)
			if !regexp.MustCompile(tc.want).MatchString(p1) {
				t.Fatalf("Path = %q, want match %s", p1, tc.want)
			}
			if p1 == p2 {
				t.Fatalf("Path twice = %q", p1)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.0/0\nMode: follower\nNode count: 5\n", "follower", false},
		{"Mode: leader\n", "leader", false},
		{"Mode: standalone\n", "standalone", false},
		{"This ZooKeeper instance is not currently serving requests\n", "", true},
		{"", "", true},
	}
	for _, tc := range tests {
		got, err := parseMode(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("parseMode(%q) = %q, %v; want %q, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestUnavailableMessage(t *testing.T) {
	t.Parallel()
	cause := errors.New("java is not on PATH (fix: install a JDK)")
	tests := []struct {
		required  bool
		wantFatal bool
		prefix    string
	}{
		{false, false, "SKIPPING real ZooKeeper test: java is not on PATH"},
		{true, true, "real ZooKeeper test cannot run but ZKX_REAL_ZK=required: java is not on PATH"},
	}
	for _, tc := range tests {
		msg, fatal := unavailable(cause, tc.required)
		if fatal != tc.wantFatal || !strings.HasPrefix(msg, tc.prefix) || !strings.Contains(msg, "fix:") {
			t.Errorf("unavailable(required=%v) = %q, %v", tc.required, msg, fatal)
		}
	}
}

func TestFindJarOverride(t *testing.T) {
	jar := filepath.Join(t.TempDir(), "zookeeper.jar")
	t.Setenv(envJar, jar)
	if _, err := findJar(); err == nil || !strings.Contains(err.Error(), envJar) {
		t.Fatalf("missing override jar: err = %v, want one naming %s", err, envJar)
	}
	if err := os.WriteFile(jar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := findJar(); err != nil || got != jar {
		t.Fatalf("findJar() = %q, %v; want %q", got, err, jar)
	}
}

func TestFreePortsDistinct(t *testing.T) {
	t.Parallel()
	ports, err := freePorts(9)
	if err != nil {
		t.Fatal(err)
	}
	more, err := freePorts(9)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range append(ports, more...) {
		if seen[p] {
			t.Fatalf("port %d handed out twice: %v %v", p, ports, more)
		}
		seen[p] = true
	}
}
