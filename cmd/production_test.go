package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestProductionEnsemble is the ensemble on-call engineers face: three
// members in ZooKeeper's default configuration (of the four-letter words
// only srvr answers) with an AdminServer each, Curator's clients on one
// member and Kazoo's on another. Given the AdminServers, every holder and
// waiter has its client address from the servers and every waiter's
// watch is observed; the sessions of all three members are listed.
// Without them, everything still works, clients unknown, and stderr says
// in one line why.
func TestProductionEnsemble(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{Nodes: 3, AdminServer: true, FourLetterWords: []string{"srvr"}})
	members := e.Members()
	base := zktest.Path(t)
	curator := zktest.StartCuratorRecipes(t, members[0].Addr(), base)
	kazoo := zktest.StartKazooRecipes(t, members[1].Addr(), base)
	third := zktest.Conn(t, members[2].Addr()) // a session on the third member
	curator.WaitReady(t)
	kazoo.WaitReady(t)
	connect := e.ConnectString()
	var urls []string
	for i := len(members) - 1; i >= 0; i-- { // any order: matched by what each says
		urls = append(urls, members[i].AdminURL())
	}
	admin := strings.Join(urls, ",")

	var locks []recognize.Lock
	out, errs, err := run(t, "--server", connect, "--admin-url", admin, patientWithMembers, "locks", "-o", "json", base)
	if err != nil || json.Unmarshal([]byte(out), &locks) != nil {
		t.Fatalf("zkx locks: %v\n%s\n%s", err, out, errs)
	}
	byPath := map[string]recognize.Lock{}
	for _, l := range locks {
		byPath[strings.TrimPrefix(l.Path, base)] = l
	}
	for _, dir := range []string{"/mutex", "/klock"} {
		l, ok := byPath[dir]
		if !ok || len(l.Holders) != 1 || len(l.Waiters) != 2 {
			t.Errorf("%s: %+v", dir, l)
			continue
		}
		for _, c := range append(append([]recognize.Contender{}, l.Holders...), l.Waiters...) {
			if c.Client == "" || c.ClientFrom != "" {
				t.Errorf("%s: %s has client %q (%s), want its address from the AdminServers", dir, c.Node, c.Client, c.ClientFrom)
			}
		}
		for _, w := range l.Waiters {
			if w.Watch != recognize.WatchObserved {
				t.Errorf("%s: waiter %s's watch is %s, want observed", dir, w.Node, w.Watch)
			}
		}
	}
	if strings.Contains(errs, "refused") {
		t.Errorf("every member's tables were read, yet:\n%s", errs)
	}

	var sessions []sessionJSON
	out, _, err = run(t, "--server", connect, "--admin-url", admin, patientWithMembers, "sessions", "-o", "json")
	if err != nil || json.Unmarshal([]byte(out), &sessions) != nil {
		t.Fatalf("zkx sessions: %v\n%s", err, out)
	}
	onMember := map[string]int{}
	for _, s := range sessions {
		onMember[s.Server]++
		if s.Session == display.Hex(third.SessionID()) && (s.Server != members[2].Addr() || s.Client == "") {
			t.Errorf("the third member's session: %+v", s)
		}
	}
	for _, m := range members {
		if onMember[m.Addr()] == 0 {
			t.Errorf("no session listed on %s: %v", m, onMember)
		}
	}

	// No AdminServer where zkx looks, and the words refused: the locks
	// are all there, their clients unknown to the servers, and one line
	// names each member's lot.
	out, errs, err = run(t, "--server", connect, "--admin-port", "1", patientWithMembers, "locks", "-o", "json", base)
	if err != nil || json.Unmarshal([]byte(out), &locks) != nil || len(locks) != len(byPath) {
		t.Fatalf("zkx locks without the tables: %v\n%s\n%s", err, out, errs)
	}
	for _, l := range locks {
		for _, c := range append(append([]recognize.Contender{}, l.Holders...), l.Waiters...) {
			if c.Client != "" && c.ClientFrom != recognize.ClientFromNodeData {
				t.Errorf("%s: client %q claimed from the servers", l.Path, c.Client)
			}
		}
	}
	if lines := strings.Count(errs, "\n"); lines != 1 || !strings.Contains(errs, "tables: ") {
		t.Errorf("want one line naming each member's tables, got:\n%s", errs)
	}
	for _, m := range members {
		if !strings.Contains(errs, m.Addr()+" refused") {
			t.Errorf("%s not named as refusing:\n%s", m, errs)
		}
	}
}

// patientWithMembers is the member timeout of tests whose every member
// answers and whose subject is not a slow member: a loaded machine's
// member (its AdminServer, its TLS port) may take longer than the default
// member timeout, which would then name it slow.
const patientWithMembers = "--member-timeout=10s"
