//go:build linux

package zkserver_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestInterop shows that real ZooKeeper clients work unchanged against
// `zkx serve`: Apache Curator (Java), Kazoo (Python) and zkCli.sh, as Debian
// ships them. Each client program (testdata/interop/) runs against the zkx
// binary and, as a control that the program itself is right, against a real
// ZooKeeper; both runs must print the same summary line. The zkCli.sh session
// must produce the same normalised transcript on both servers.
//
// The clients are external programs. A missing one skips its subtest with
// the apt-get command that installs it, or fails it under ZKX_REAL_ZK=required.
func TestInterop(t *testing.T) {
	t.Parallel()
	addr := startZkxServe(t)
	// Every program works under a path of its own (a random base, or
	// zktest.Path): they all run side by side.
	t.Run("curator", func(t *testing.T) { t.Parallel(); testInteropCurator(t, addr) })
	t.Run("kazoo", func(t *testing.T) { t.Parallel(); testInteropKazoo(t, addr) })
	t.Run("zkcli", func(t *testing.T) { t.Parallel(); testInteropZkCli(t, addr) })
}

// interopTimeout bounds every external program.
const interopTimeout = 2 * time.Minute

// interopScenario is a scenario the Curator and Kazoo programs run, with
// the line each prints on success (after "curator " or "kazoo "). The
// lines are the same against any correct server.
type interopScenario struct {
	name           string
	curator, kazoo string
}

// interopScenarios are the scenarios, in the order the programs run them.
var interopScenarios = []interopScenario{
	{
		name:    "mutex",
		curator: "mutex clients=3 acquisitions=600 violations=0",
		kazoo:   "mutex clients=3 acquisitions=600 violations=0",
	},
	{
		name:    "watches",
		curator: "watches data=v1,v2,v3,deleted children=+kid,-kid exists=created cache=~w=c1,~w=c2,~w=c3,+sub,-sub",
		kazoo:   "watches data=v1,v2,v3,deleted children=+kid,-kid exists=created recreate=seen",
	},
	{
		name: "transactions",
		curator: "transactions commit=[CREATE:tx SET_DATA:tx(v1) CHECK:tx CREATE:tx/s-->tx/s-0000000000]" +
			" bad_version=[OK OK BADVERSION RUNTIMEINCONSISTENCY] node_exists=[OK NODEEXISTS RUNTIMEINCONSISTENCY]" +
			" applied_after_failures=none",
		kazoo: "transactions commit=[tx v1 True tx/s-0000000000]" +
			" bad_version=[RolledBackError RolledBackError BadVersionError RuntimeInconsistency]" +
			" node_exists=[RolledBackError NodeExistsError RuntimeInconsistency] applied_after_failures=none",
	},
}

// interopServers runs fn as two subtests: "zkx" against the zkx serve at
// addr, and "zookeeper" against the shared real ZooKeeper.
func interopServers(t *testing.T, addr string, fn func(t *testing.T, connect string)) {
	t.Run("zkx", func(t *testing.T) { t.Parallel(); fn(t, addr) })
	t.Run("zookeeper", func(t *testing.T) { t.Parallel(); fn(t, zktest.Shared(t)) })
}

// ---- Curator --------------------------------------------------------------------------------

func testInteropCurator(t *testing.T, addr string) {
	java := zktest.Java(t)
	cp := zktest.CompileCurator(t, filepath.Join("..", "..", "testdata", "interop", "curator", "CuratorInterop.java"))
	interopServers(t, addr, func(t *testing.T, connect string) {
		args := append(append([]string{}, zktest.JavaQuietFlags...), "-cp", cp, "CuratorInterop", connect)
		p := zktest.RunProgram(t, interopTimeout, "", false, java, append(args, interopScenarioNames()...)...)
		expectScenarioLines(t, p, func(sc interopScenario) string { return "curator " + sc.curator })
	})
}

// ---- Kazoo ----------------------------------------------------------------------------------

func testInteropKazoo(t *testing.T, addr string) {
	py := zktest.KazooPython(t)
	script := filepath.Join("..", "..", "testdata", "interop", "kazoo", "interop.py")
	interopServers(t, addr, func(t *testing.T, connect string) {
		p := zktest.RunProgram(t, interopTimeout, "", false, py, append([]string{script, connect}, interopScenarioNames()...)...)
		expectScenarioLines(t, p, func(sc interopScenario) string { return "kazoo " + sc.kazoo })
	})
}

// interopScenarioNames are the scenarios' names, as the programs take
// them: one process runs them all, one after the other (a JVM costs half
// a CPU-second before it runs any).
func interopScenarioNames() []string {
	var names []string
	for _, sc := range interopScenarios {
		names = append(names, sc.name)
	}
	return names
}

// expectScenarioLines checks, a subtest per scenario, that p printed the
// scenario's line, and that p succeeded (a failed scenario says why on
// stderr, which a failure shows).
func expectScenarioLines(t *testing.T, p zktest.Program, line func(interopScenario) string) {
	t.Helper()
	if p.Err != nil {
		p.Log(t)
		t.Errorf("%v", p.Err)
	}
	for _, sc := range interopScenarios {
		t.Run(sc.name, func(t *testing.T) {
			want := line(sc)
			if !p.HasLine(want) {
				t.Errorf("want the line\n\t%s\ngot:\n%s", want, p.Stdout)
				return
			}
			t.Logf("%s (the program's whole run: %v)", want, p.Elapsed.Round(time.Millisecond))
		})
	}
}

// ---- zkCli.sh -------------------------------------------------------------------------------

func testInteropZkCli(t *testing.T, addr string) {
	zkCli := zktest.DebianFile(t, "zookeeper", "/bin/zkCli.sh", "apt-get install -y zookeeper")
	zktest.LookPath(t, "java", "apt-get install -y default-jre-headless")
	script, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", "zkcli", "commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	realAddr := zktest.Shared(t)
	base := zktest.Path(t)
	transcript := func(server, connect string) string {
		r := zktest.RunProgram(t, interopTimeout, prepareZkCliSession(string(script), base, connect), true, zkCli, "-server", connect)
		// zkCli.sh exits with the status of its last command, so a
		// non-zero status is part of the transcript, not a failure.
		var exit *exec.ExitError
		if r.Err != nil && (!errors.As(r.Err, &exit) || exit.ExitCode() < 0 || r.TimedOut) {
			r.Log(t)
			t.Fatalf("zkCli.sh against %s: %v", server, r.Err)
		}
		return fmt.Sprintf("%s(zkCli.sh exit status %d)\n", r.Stdout, r.ExitCode)
	}
	rawZkx := transcript("zkx serve", addr)
	rawReal := transcript("real ZooKeeper", realAddr)
	gotZkx, gotReal := normaliseZkCli(rawZkx, base), normaliseZkCli(rawReal, base)
	// The session removes what it made: its last command lists $BASE.
	if !strings.Contains(gotReal, "\nNode does not exist: $BASE\n(zkCli.sh exit status") {
		t.Errorf("the zkCli.sh session did not end by removing %s on real ZooKeeper:\n%s", base, rawReal)
	}
	if gotZkx != gotReal {
		t.Logf("zkCli.sh session (fed on stdin):\n%s", prepareZkCliSession(string(script), base, "$SERVER"))
		t.Logf("raw transcript against real ZooKeeper:\n%s", rawReal)
		t.Logf("raw transcript against zkx serve:\n%s", rawZkx)
		var numbered strings.Builder
		for i, line := range strings.Split(gotReal, "\n") {
			fmt.Fprintf(&numbered, "%4d  %s\n", i+1, line)
		}
		t.Logf("normalised transcript against real ZooKeeper:\n%s", numbered.String())
		t.Errorf("zkCli.sh transcripts differ after normalising (- real ZooKeeper, + zkx serve):\n%s",
			interopDiff(gotReal, gotZkx))
		return
	}
	t.Logf("zkCli.sh: %d commands, %d normalised transcript lines identical on zkx serve and real ZooKeeper",
		strings.Count(prepareZkCliSession(string(script), base, addr), "\n"), strings.Count(gotZkx, "\n"))
}

// prepareZkCliSession turns commands.txt into zkCli.sh's stdin: zkCli.sh has
// no comments, so '#' lines and empty lines go; $BASE becomes base and
// $SERVER the server's address.
func prepareZkCliSession(script, base, server string) string {
	var b strings.Builder
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b.WriteString(strings.NewReplacer("$BASE", base, "$SERVER", server).Replace(line))
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	// zkCliPrompt is JLine's prompt, printed before each command when
	// stdin is a terminal: "[zk: 127.0.0.1:2181(CONNECTED) 3] ".
	zkCliPrompt = regexp.MustCompile(`^\[zk: [^\]]*\] ?`)
	// zkCliLog is a log record, in case a logging backend is on the
	// classpath: it starts with a date and time.
	zkCliLog = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d`)
	// zkCliZxid is a stat line holding a zxid.
	zkCliZxid = regexp.MustCompile(`^([cmp]Zxid) = 0x[0-9a-f]+$`)
	// zkCliTime is a stat line holding a time.
	zkCliTime = regexp.MustCompile(`^([cm]time) = .*$`)
	// zkCliCredential is a credential whoami lists: "digest: alice".
	zkCliCredential = regexp.MustCompile(`^[a-z][a-z0-9]*: \S+$`)
	// zkCliOwner is an ephemeral node's owner, a session id. Not matched:
	// 0x0 (persistent), 0x8000000000000000 (container) and 0xff… (a TTL
	// node's TTL), which are the same on every server.
	zkCliOwner = regexp.MustCompile(`^ephemeralOwner = 0x([1-9a-e][0-9a-f]*|f[0-9a-e][0-9a-f]*|f)$`)
)

// normaliseZkCli keeps what a zkCli.sh transcript says about the server and
// drops what differs between any two runs, one rule per kind of difference.
func normaliseZkCli(out, base string) string {
	var lines, events []string
	whoami := -1 // where the credentials listed by the last whoami start
	raw := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	for i, line := range raw {
		// JLine's prompt, printed before each command when stdin is a terminal.
		line = zkCliPrompt.ReplaceAllString(line, "")
		next := ""
		if i+1 < len(raw) {
			next = raw[i+1]
		}
		switch {
		case line == "" && (next == "WATCHER::" || strings.HasPrefix(next, "WatchedEvent ")):
			// The event thread prints "\nWATCHER::" and "\nWatchedEvent …",
			// each in one write: the blank line goes with its event.
			continue
		case line == "WATCHER::", strings.HasPrefix(line, "JLine support is"):
			// The header of each event; JLine's banner.
			continue
		case strings.HasPrefix(line, "SLF4J:"), zkCliLog.MatchString(line):
			// The client's logging.
			continue
		case strings.HasPrefix(line, "WatchedEvent "):
			// The event thread prints watch events while the main thread
			// goes on with the next commands, so where an event lands is a
			// race; which events came and their order is not. Events are
			// listed after the transcript, in order.
			events = append(events, strings.ReplaceAll(line, base, "$BASE"))
			continue
		}
		// The base path is fresh for each run.
		line = strings.ReplaceAll(line, base, "$BASE")
		if whoami >= 0 && zkCliCredential.MatchString(line) {
			// whoami lists a session's credentials; ZooKeeper keeps them
			// in a hash set.
			lines = append(lines, line)
			slices.Sort(lines[whoami:])
			continue
		}
		whoami = -1
		if line == "Auth scheme: User" {
			whoami = len(lines) + 1
		}
		switch {
		case strings.HasPrefix(line, "Connecting to "):
			// The server's address.
			line = "Connecting to SERVER"
		case zkCliZxid.MatchString(line):
			// Zxids depend on everything the server did before.
			line = zkCliZxid.ReplaceAllString(line, "$1 = ZXID")
		case zkCliTime.MatchString(line):
			// Wall-clock times.
			line = zkCliTime.ReplaceAllString(line, "$1 = TIME")
		case zkCliOwner.MatchString(line):
			// Session ids.
			line = "ephemeralOwner = SESSION"
		case (strings.HasPrefix(line, "[/") || strings.HasPrefix(line, "[$BASE")) && strings.HasSuffix(line, "]"):
			// getEphemerals lists paths in the order of a hash set.
			paths := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"), ", ")
			slices.Sort(paths)
			line = "[" + strings.Join(paths, ", ") + "]"
		}
		lines = append(lines, line)
	}
	// close then connect: the closed client's event thread prints its
	// Closed while the new client's prints its SyncConnected, two threads
	// racing (seen on a loaded machine). The closed session's end goes
	// first, as it happened.
	const connected, closed = "WatchedEvent state:SyncConnected type:None path:null", "WatchedEvent state:Closed type:None path:null"
	for i := 0; i+1 < len(events); i++ {
		if events[i] == connected && events[i+1] == closed {
			events[i], events[i+1] = closed, connected
		}
	}
	return strings.Join(lines, "\n") + "\nevents:\n" + strings.Join(events, "\n") + "\n"
}

// interopDiff is a small longest-common-subsequence diff of two texts by line:
// "-" lines only in a, "+" lines only in b, each with its line number.
func interopDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "+%4d  %s\n", j+1, y[j])
			j++
		default:
			fmt.Fprintf(&out, "-%4d  %s\n", i+1, x[i])
			i++
		}
	}
	return out.String()
}

// ---- zkx serve ------------------------------------------------------------------------------

// zkxListening is the line zkx serve prints once it accepts connections.
var zkxListening = regexp.MustCompile(`^zkx embedded ZooKeeper server listening on (\S+) \(Ctrl-C to stop\)$`)

// startZkxServe starts `zkx serve` (zktest.ZkxBinary) on a free
// loopback port and returns its address. At cleanup it stops the server
// with SIGTERM and waits for it; a server that exited early fails the test.
func startZkxServe(t *testing.T) string {
	bin := zktest.ZkxBinary(t)

	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--tick", "100ms", "--min-session-timeout", "200ms")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no server left behind by a crashed test
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start zkx serve: %v", err)
	}
	exited := make(chan error, 1)
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := zkxListening.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
		exited <- cmd.Wait() // after stdout is drained, as Wait requires
	}()
	startFailed := false
	t.Cleanup(func() {
		if startFailed {
			return
		}
		select {
		case err := <-exited:
			// A server that dies while the tests run is a failure of its own.
			t.Errorf("zkx serve exited before the tests ended: %v; its stderr:\n%s", err, stderr.String())
			return
		default:
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Errorf("SIGTERM zkx serve: %v", err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("zkx serve after SIGTERM: %v; its stderr:\n%s", err, stderr.String())
			} else if t.Failed() {
				t.Logf("zkx serve stderr:\n%s", stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("zkx serve did not stop within 10s of SIGTERM; its stderr:\n%s", stderr.String())
		}
	})
	select {
	case addr := <-addrc:
		t.Logf("zkx serve listening on %s", addr)
		return addr
	case err := <-exited:
		startFailed = true
		t.Fatalf("zkx serve exited before listening: %v; its stderr:\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("zkx serve printed no listening line within 30s; its stderr:\n%s", stderr.String())
	}
	return ""
}

// lockedBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
