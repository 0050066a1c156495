package cmd

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The tests in this file run zkx's on-call commands against a real
// 3-member ZooKeeper in its default configuration (four-letter words: srvr
// only; the members' AdminServers on free ports) while it is sick: a
// follower frozen with SIGSTOP, a Curator holder frozen the same way.

// sickEnsemble starts the ensemble and returns it, its leader, a follower
// (the one to freeze) and the AdminServers as --admin-url takes them.
func sickEnsemble(t *testing.T, extra ...string) (e *zktest.Ensemble, leader, follower *zktest.Member, admins string) {
	t.Helper()
	e = zktest.RealWith(t, zktest.RealOptions{Nodes: 3, AdminServer: true, FourLetterWords: []string{"srvr"}, ExtraConfig: extra})
	leader = e.Leader(t)
	var urls []string
	for _, m := range e.Members() {
		urls = append(urls, m.AdminURL())
		if m != leader && follower == nil {
			follower = m
		}
	}
	return e, leader, follower, strings.Join(urls, ",")
}

// others is the connect string of every member but m.
func others(e *zktest.Ensemble, m *zktest.Member) string {
	var out []string
	for _, o := range e.Members() {
		if o != m {
			out = append(out, o.Addr())
		}
	}
	return strings.Join(out, ",")
}

// goInternalWords are the Go network stack's own words, which no message
// of zkx's may carry.
var goInternalWords = []string{"use of closed network connection", "context deadline exceeded", "read tcp", "dial tcp", "i/o timeout", `Get "`}

func checkPlainWords(t *testing.T, what, text string) {
	t.Helper()
	for _, bad := range goInternalWords {
		if strings.Contains(text, bad) {
			t.Errorf("%s says %q:\n%s", what, bad, text)
		}
	}
}

// lockWithEnsemble is a lock of zkx locks -o json with its ensemble notes.
type lockWithEnsemble struct {
	recognize.Lock
	Ensemble []introspect.MemberNote `json:"ensemble"`
}

// TestSickFollowerCommandsNameIt: with a follower frozen (its client port
// and its AdminServer accept connections and answer nothing), every
// on-call command ends with its answer, names the frozen member once on
// stderr (or, for locks --check, on stdout with the alarms) and in its
// JSON, in plain words; and the live clients' silence is measured on their
// own member's clock, so it stays small: the writer asks its member
// something every 500 ms.
func TestSickFollowerCommandsNameIt(t *testing.T) {
	t.Parallel()
	e, _, frozen, admins := sickEnsemble(t)
	base := zktest.Path(t)
	healthy := others(e, frozen)
	reader := zktest.StartCuratorRoles(t, healthy, 10*time.Second, 0, "read:"+base+"/rw", "latch:"+base+"/leader", "mutex:"+base+"/mutex")
	writer := zktest.StartCuratorRoles(t, healthy, 10*time.Second, 500*time.Millisecond, "write:"+base+"/rw")
	zktest.StartCuratorRoles(t, healthy, 10*time.Second, 0, "latch:"+base+"/leader")
	reader.WaitLine(t, 0, "HOLDING latch")
	readerSession, writerSession := sessionOf(t, reader), sessionOf(t, writer)

	frozen.Pause(t)
	defer frozen.Resume(t)
	u, err := url.Parse(frozen.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	named := "member " + frozen.Addr() + " (AdminServer :" + u.Port() + "): no answer within 2s on its client port or its AdminServer"
	zkx := func(args ...string) (string, string, error) {
		t.Helper()
		out, errs, err := run(t, append([]string{"--server", e.ConnectString(), "--admin-url", admins}, args...)...)
		checkPlainWords(t, "zkx "+strings.Join(args, " "), out+errs)
		return out, errs, err
	}
	// The commands that only read run at once: each waits out the frozen
	// member's 2s on its own, and none changes what another sees. Every
	// answer is in before any is checked (a check may end the test).
	type answer struct {
		out, errs string
		err       error
	}
	var asking sync.WaitGroup
	ask := func(args ...string) *answer {
		a := &answer{}
		asking.Go(func() { a.out, a.errs, a.err = zkx(args...) })
		return a
	}
	locksAnswer := ask("locks", "-o", "json", base)
	electionsAnswer := ask("elections", "-o", "json", base)
	sessionsAnswer := ask("sessions", "-o", "json")
	storyAnswer := ask("sessions", writerSession, "-o", "json")
	checkAnswer := ask("locks", "--check", base)
	asking.Wait()
	onceOnStderr := func(what, errs string) {
		t.Helper()
		if n := strings.Count(errs, named); n != 1 {
			t.Errorf("%s: stderr names the frozen member %d times, want once:\n%s", what, n, errs)
		}
	}
	namedIn := func(what string, ensemble []introspect.MemberNote) {
		t.Helper()
		if len(ensemble) != 1 || ensemble[0].Member != frozen.Addr() || ensemble[0].Kind != introspect.NoteNoAnswer || !strings.HasPrefix(ensemble[0].Text, named) {
			t.Errorf("%s: ensemble %+v, want the frozen member, not answering", what, ensemble)
		}
	}

	out, errs, err := locksAnswer.out, locksAnswer.errs, locksAnswer.err
	var locks []lockWithEnsemble
	if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 2 {
		t.Fatalf("zkx locks: %v\n%s\n%s", err, out, errs)
	}
	onceOnStderr("locks", errs)
	for _, l := range locks {
		namedIn("locks "+l.Path, l.Ensemble)
		if l.Path != base+"/rw" {
			continue
		}
		for _, c := range l.Lineup() {
			if c.LastHeardMs == nil || c.Silent {
				t.Errorf("%s %s: last_heard_ms %v, silent %v: a live client", c.Role, c.Session, c.LastHeardMs, c.Silent)
				continue
			}
			// The writer asks every 500 ms; the reader pings every third
			// of its 10 s timeout.
			limit := int64(time.Second / time.Millisecond)
			if c.Session == readerSession {
				limit = 10_000/3 + 500
			}
			if c.Session != writerSession && c.Session != readerSession {
				t.Errorf("an unknown contender %s", c.Session)
			}
			if *c.LastHeardMs > limit {
				t.Errorf("%s %s: last_heard_ms %d, more than %d: its silence is stretched", c.Role, c.Session, *c.LastHeardMs, limit)
			}
		}
	}

	out, errs, err = electionsAnswer.out, electionsAnswer.errs, electionsAnswer.err
	var elections []struct {
		recognize.Election
		Ensemble []introspect.MemberNote `json:"ensemble"`
	}
	if err != nil || json.Unmarshal([]byte(out), &elections) != nil || len(elections) != 1 || elections[0].Leader == nil || elections[0].Leader.Session != readerSession {
		t.Fatalf("zkx elections: %v\n%s\n%s", err, out, errs)
	}
	onceOnStderr("elections", errs)
	namedIn("elections", elections[0].Ensemble)

	out, errs, err = sessionsAnswer.out, sessionsAnswer.errs, sessionsAnswer.err
	var sessions []sessionJSON
	if err != nil || json.Unmarshal([]byte(out), &sessions) != nil || len(sessions) == 0 {
		t.Fatalf("zkx sessions: %v\n%s\n%s", err, out, errs)
	}
	onceOnStderr("sessions", errs)
	for _, s := range sessions {
		namedIn("sessions "+s.Session, s.Ensemble)
		if s.Session == writerSession && (s.LastHeardMs == nil || *s.LastHeardMs > 1000) {
			t.Errorf("zkx sessions: the writer heard from %v ms ago", s.LastHeardMs)
		}
	}

	out, errs, err = storyAnswer.out, storyAnswer.errs, storyAnswer.err
	var story sessionStoryJSON
	if err != nil || json.Unmarshal([]byte(out), &story) != nil || story.sessionJSON.Session != writerSession {
		t.Fatalf("zkx sessions %s: %v\n%s\n%s", writerSession, err, out, errs)
	}
	onceOnStderr("sessions "+writerSession, errs)
	namedIn("the story of "+writerSession, story.Ensemble)

	out, errs, err = checkAnswer.out, checkAnswer.errs, checkAnswer.err
	if exitCode(err) != 0 || !strings.Contains(out, "ensemble: "+named) || strings.Contains(errs, named) {
		t.Errorf("zkx locks --check: exit %d, want 0 (no lock alarm) with the frozen member in its answer:\n%s\n%s", exitCode(err), out, errs)
	}

	out, errs, err = zkx("unlock", base+"/mutex", "--yes")
	if err != nil || !strings.HasPrefix(out, "deleted "+base+"/mutex/") {
		t.Errorf("zkx unlock: %v\n%s\n%s", err, out, errs)
	}
	onceOnStderr("unlock", errs)
}

// TestSickHolderExpiryNeverEarly: a Curator holder connected to a
// follower is frozen. zkx calls it silent, and the moment it gives for its
// session's expiry "at the latest" (the tick read from the AdminServers'
// configuration, tickTime 1000 here) is never before the leader actually
// expires it: the holder's node is seen to go at or before it.
func TestSickHolderExpiryNeverEarly(t *testing.T) {
	t.Parallel()
	e, leader, follower, admins := sickEnsemble(t, "tickTime=1000")
	dir := zktest.Path(t) + "/mutex"
	// Four ticks: silent a third of it after the freeze, expired by about
	// five ticks, which is what the test waits for.
	holder := zktest.StartCuratorRoles(t, follower.Addr(), 4*time.Second, 0, "mutex:"+dir)
	holder.WaitLine(t, 0, "HOLDING mutex")
	// A live client on the same member, as a member serving an
	// application has: its answers tell the member's present moment when
	// zkx's own session is on another member. (On a member nobody else
	// talks to, a silence can only be read as "at least" a moment.)
	zktest.StartCuratorRoles(t, follower.Addr(), 6*time.Second, 200*time.Millisecond, "latch:"+dir+"-busy")
	session := sessionOf(t, holder)

	// The node's end, seen from a session of the test's own on the leader.
	watcher := zktest.Conn(t, leader.Addr())
	children, _, err := watcher.Children(dir)
	if err != nil || len(children) != 1 {
		t.Fatalf("children of %s: %v %v", dir, children, err)
	}
	exists, _, gone, err := watcher.ExistsW(dir + "/" + children[0])
	if err != nil || !exists {
		t.Fatalf("watch the holder's node: %v %v", exists, err)
	}

	holder.Pause(t)
	defer holder.Resume(t)
	var h recognize.Contender
	deadline := time.Now().Add(time.Minute)
	for {
		out, errs, err := run(t, "--server", e.ConnectString(), "--admin-url", admins, "locks", "-o", "json", dir)
		var locks []recognize.Lock
		if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != 1 {
			t.Fatalf("zkx locks: %v\n%s\n%s", err, out, errs)
		}
		if len(locks[0].Holders) == 1 && locks[0].Holders[0].Silent {
			h = locks[0].Holders[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the frozen holder was not called silent within a minute:\n%s", out)
		}
		select {
		case ev := <-gone:
			t.Fatalf("the holder's node went (%v) before zkx called it silent", ev.Type)
		case <-time.After(200 * time.Millisecond): // zkx is asked again; the node's end is a watch event
		}
	}
	if h.Session != session || h.ExpiresByAbout {
		t.Fatalf("silent holder %+v: want session %s, its expiry bound from the tick", h, session)
	}
	bound, err := time.Parse(time.RFC3339, h.ExpiresBy)
	if err != nil {
		t.Fatalf("expires_by %q: %v", h.ExpiresBy, err)
	}
	select {
	case ev := <-gone:
		seen := time.Now()
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("watch event %v, want the node deleted", ev.Type)
		}
		if seen.After(bound) {
			t.Errorf("the holder's node went at %v, after zkx's \"at the latest\" %v: the bound is early by %v",
				seen.Format("15:04:05.000"), bound.Format("15:04:05"), seen.Sub(bound))
		}
		t.Logf("expiry seen at %s; zkx's bound %s (%v later)", seen.Format("15:04:05.000"), bound.Format("15:04:05"), bound.Sub(seen).Round(time.Millisecond))
	case <-time.After(time.Minute):
		t.Fatal("the frozen holder's session did not expire within a minute")
	}
}
