package zktest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	// startTimeout bounds how long Real waits for new servers to serve.
	startTimeout = 60 * time.Second
	// waitTimeout bounds Leader and WaitServing.
	waitTimeout = 30 * time.Second
	// pollInterval is how often the harness polls servers it waits for.
	pollInterval = 50 * time.Millisecond
	// pollTimeout bounds one four-letter exchange while polling.
	pollTimeout = time.Second
)

// Ensemble is a set of real ZooKeeper servers started by Real: one
// standalone server or a 3-node ensemble.
type Ensemble struct {
	dir     string
	members []*Member
	// adminTLS is how the AdminServers speak https, when they do.
	adminTLS *Certs
}

// ConnectString returns the members' client addresses in member order,
// "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3".
func (e *Ensemble) ConnectString() string {
	addrs := make([]string, len(e.members))
	for i, m := range e.members {
		addrs[i] = m.Addr()
	}
	return strings.Join(addrs, ",")
}

// Members returns the servers, ordered by ID.
func (e *Ensemble) Members() []*Member {
	return append([]*Member(nil), e.members...)
}

// standalone reports whether the ensemble is a single standalone server.
func (e *Ensemble) standalone() bool { return len(e.members) == 1 }

// Leader waits (up to 30s) until exactly one live member (running, not
// paused) reports Mode: leader, or standalone for a single server, and
// returns it.
func (e *Ensemble) Leader(t testing.TB) *Member {
	t.Helper()
	var leader *Member
	err := e.poll(waitTimeout, func() (bool, string) {
		var leaders []*Member
		var status []string
		for _, m := range e.members {
			if st, _ := m.state(); st != stateRunning {
				continue
			}
			mode, err := m.mode(pollTimeout)
			status = append(status, describeMode(m, mode, err))
			if mode == "leader" || mode == "standalone" {
				leaders = append(leaders, m)
			}
		}
		if len(leaders) == 1 {
			leader = leaders[0]
			return true, ""
		}
		return false, fmt.Sprintf("%d leaders: %s", len(leaders), strings.Join(status, ", "))
	})
	if err != nil {
		t.Fatalf("zktest: no single leader: %v", err)
	}
	return leader
}

// WaitServing waits (up to 30s) until every running, unpaused member
// serves: a standalone server answers imok to ruok and reports Mode:
// standalone; ensemble members report leader or follower, with exactly one
// leader.
func (e *Ensemble) WaitServing(t testing.TB) {
	t.Helper()
	if err := e.waitServing(waitTimeout); err != nil {
		t.Fatalf("zktest: ensemble %s not serving: %v", e.ConnectString(), err)
	}
}

func (e *Ensemble) waitServing(timeout time.Duration) error {
	return e.poll(timeout, e.serving)
}

// serving checks once whether every live member serves.
func (e *Ensemble) serving() (bool, string) { return e.checkServing(true) }

// servingBySrvr is serving without ruok, which a restricted whitelist may
// refuse: every live member reports its mode, with one leader in an
// ensemble.
func (e *Ensemble) servingBySrvr() (bool, string) { return e.checkServing(false) }

// checkServing checks once whether every live member serves: a standalone
// one answers imok to ruok (when askRuok) and every one reports its mode.
func (e *Ensemble) checkServing(askRuok bool) (bool, string) {
	var status []string
	live, leaders, ok := 0, 0, true
	for _, m := range e.members {
		if st, _ := m.state(); st != stateRunning {
			continue
		}
		live++
		if askRuok && e.standalone() {
			if out, err := FourLetter(m.Addr(), "ruok", pollTimeout); err != nil || out != "imok" {
				status = append(status, fmt.Sprintf("%v: ruok: %q %v", m, out, err))
				ok = false
				continue
			}
		}
		mode, err := m.mode(pollTimeout)
		status = append(status, describeMode(m, mode, err))
		switch {
		case err != nil:
			ok = false
		case e.standalone() && mode != "standalone":
			ok = false
		case !e.standalone() && mode == "leader":
			leaders++
		case !e.standalone() && mode != "follower":
			ok = false
		}
	}
	if live == 0 {
		return false, "no member is running"
	}
	if !e.standalone() && leaders != 1 {
		ok = false
		status = append(status, fmt.Sprintf("%d leaders", leaders))
	}
	return ok, strings.Join(status, ", ")
}

func describeMode(m *Member, mode string, err error) string {
	if err != nil {
		return fmt.Sprintf("%v: %v", m, err)
	}
	return fmt.Sprintf("%v: %s", m, mode)
}

// poll calls check every pollInterval until it succeeds or timeout passes;
// it gives up at once when a member that should run has exited.
func (e *Ensemble) poll(timeout time.Duration, check func() (bool, string)) error {
	deadline := time.Now().Add(timeout)
	for {
		for _, m := range e.members {
			if st, p := m.state(); st == stateExited {
				return fmt.Errorf("%v exited on its own: %s", m, p.describeExit())
			}
		}
		done, status := check()
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still not there after %v: %s", timeout, status)
		}
		time.Sleep(pollInterval)
	}
}

// Real starts nodes (1 or 3) real ZooKeeper servers on free loopback ports
// in t.TempDir(), waits (up to 60s) until they serve (see WaitServing), and
// kills them at test cleanup. It skips the test when java or the zookeeper
// jar is missing (fails it under ZKX_REAL_ZK=required).
func Real(t testing.TB, nodes int) *Ensemble {
	t.Helper()
	rt := requireRuntime(t)
	if nodes != 1 && nodes != 3 {
		t.Fatalf("zktest: Real(%d): nodes must be 1 or 3", nodes)
	}
	dir := t.TempDir() // before the cleanup below, so removed after it
	e, err := newEnsemble(dir, nodes, rt)
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
	begin := e.launch(t, func() error { return e.waitServing(startTimeout) })
	t.Logf("zktest: real ZooKeeper (%s) serving at %s after %v", e.kind(), e.ConnectString(), time.Since(begin).Round(time.Millisecond))
	return e
}

// launch starts the members, stops them at the test's cleanup (with their
// logs' tails when it failed), and waits until serving says they serve;
// it returns when it began.
func (e *Ensemble) launch(t testing.TB, serving func() error) time.Time {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			e.logTails(t)
		}
		if err := e.stop(); err != nil {
			t.Errorf("zktest: stop ensemble: %v", err)
		}
	})
	begin := time.Now()
	if err := e.start(); err != nil {
		t.Fatalf("zktest: start real ZooKeeper: %v", err)
	}
	if err := serving(); err != nil {
		t.Fatalf("zktest: real ZooKeeper %s did not serve: %v", e.ConnectString(), err)
	}
	// What answered may be another process's server on a port a member
	// could not bind.
	if err := e.exitedMember(); err != nil {
		t.Fatalf("zktest: real ZooKeeper %s: %v", e.ConnectString(), err)
	}
	return begin
}

func (e *Ensemble) kind() string {
	if e.standalone() {
		return "standalone"
	}
	return fmt.Sprintf("%d-node ensemble", len(e.members))
}

// newEnsemble picks ports and writes each member's configuration under dir.
func newEnsemble(dir string, nodes int, rt runtimePaths) (*Ensemble, error) {
	perMember := 3
	if nodes == 1 {
		perMember = 1
	}
	ports, err := freePorts(nodes * perMember)
	if err != nil {
		return nil, err
	}
	e := &Ensemble{dir: dir}
	for i := range nodes {
		m := &Member{id: i + 1, clientPort: ports[i*perMember], rt: rt}
		if nodes > 1 {
			m.quorumPort, m.electionPort = ports[i*perMember+1], ports[i*perMember+2]
		}
		m.dir = filepath.Join(dir, fmt.Sprintf("zk%d", m.id))
		m.cfgPath = filepath.Join(m.dir, "zoo.cfg")
		m.logPath = filepath.Join(m.dir, "zookeeper.log")
		e.members = append(e.members, m)
	}
	for _, m := range e.members {
		if err := e.writeConfig(m); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// writeConfig writes m's zoo.cfg and, in an ensemble, its myid.
func (e *Ensemble) writeConfig(m *Member) error {
	data := filepath.Join(m.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=100\ninitLimit=50\nsyncLimit=20\n")
	fmt.Fprintf(&b, "minSessionTimeout=200\nmaxSessionTimeout=60000\n")
	fmt.Fprintf(&b, "dataDir=%s\n", data)
	fmt.Fprintf(&b, "clientPort=%d\nclientPortAddress=127.0.0.1\n", m.clientPort)
	fmt.Fprintf(&b, "4lw.commands.whitelist=*\nadmin.enableServer=false\nmaxClientCnxns=0\n")
	if e.standalone() {
		fmt.Fprintf(&b, "standaloneEnabled=true\n")
	} else {
		fmt.Fprintf(&b, "reconfigEnabled=false\n")
		for _, o := range e.members {
			fmt.Fprintf(&b, "server.%d=127.0.0.1:%d:%d\n", o.id, o.quorumPort, o.electionPort)
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), fmt.Appendf(nil, "%d\n", m.id), 0o644); err != nil {
			return fmt.Errorf("write myid: %w", err)
		}
	}
	if err := os.WriteFile(m.cfgPath, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write zoo.cfg: %w", err)
	}
	return nil
}

// start launches every member without waiting for them to serve.
func (e *Ensemble) start() error {
	for _, m := range e.members {
		if err := m.start(); err != nil {
			return fmt.Errorf("%v: %w", m, err)
		}
	}
	return nil
}

// exitedMember says which member died on its own, if one did: its error
// is errPortTaken when it could not bind a port.
func (e *Ensemble) exitedMember() error {
	for _, m := range e.members {
		st, p := m.state()
		switch {
		case st == stateExited && strings.Contains(m.logTail(), "Address already in use"):
			return fmt.Errorf("%v: %w", m, errPortTaken)
		case st == stateExited:
			return fmt.Errorf("%v %s", m, p.describeExit())
		case st == stateRunning && !listensOn(p.cmd.Process.Pid, m.clientPort):
			// Its JVM has not died of the BindException yet.
			return fmt.Errorf("%v does not listen on its client port: %w", m, errPortTaken)
		}
	}
	return nil
}

// listensOn says whether process pid listens on port; true where /proc
// cannot tell.
func listensOn(pid, port int) bool {
	sockets, err := ListeningTCP(pid)
	if err != nil {
		return true
	}
	suffix := fmt.Sprintf(":%04X", port)
	for _, s := range sockets {
		if strings.HasSuffix(s, suffix) {
			return true
		}
	}
	return false
}

// stop kills every member and waits for them to exit.
func (e *Ensemble) stop() error {
	var errs []error
	for _, m := range e.members {
		if err := m.kill(); err != nil {
			errs = append(errs, fmt.Errorf("%v: %w", m, err))
		}
	}
	return errors.Join(errs...)
}

// logTails prints the end of every member's log.
func (e *Ensemble) logTails(t testing.TB) {
	t.Helper()
	for _, m := range e.members {
		t.Logf("zktest: tail of %s (%v):\n%s", m.logPath, m, m.logTail())
	}
}
