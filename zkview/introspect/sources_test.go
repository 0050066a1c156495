package introspect

import (
	"errors"
	"testing"
)

func TestSecureClientPort(t *testing.T) {
	t.Parallel()
	cfg := "tickTime=2000\n# a comment\n secureClientPort = 2281 \nssl.keyStore.password=hunter2\n"
	if got := secureClientPort(cfg); got != "2281" {
		t.Errorf("secureClientPort = %q", got)
	}
	if got := secureClientPort("clientPort=2181\n"); got != "" {
		t.Errorf("no secure port: %q", got)
	}
	id := adminIdentity{clientPort: "-1", securePort: "2281"}
	if !id.serves("zk1:2281") || id.serves("zk1:2181") || id.serves("not an address") {
		t.Error("a TLS-only member is matched by its secure port alone")
	}
}

func TestSourcesLine(t *testing.T) {
	t.Parallel()
	s := &Snapshot{
		Members: []Member{
			{Addr: "zk1:2181", Mode: ModeLeader, TablesFrom: TablesFromFourLetter},
			{Addr: "zk2:2181", Mode: ModeFollower, TablesFrom: TablesFromAdmin, AdminURL: "http://zk2:8080/commands"},
			{Addr: "zk3:2181", Mode: ModeFollower, TablesFrom: TablesRefused, AdminNote: "no AdminServer at http://zk3:8080/commands: connection refused"},
			{Addr: "zk4:2181", Mode: ModeUnreachable, TablesFrom: string(ModeUnreachable), Error: "i/o timeout"},
		},
		Refused: []Refusal{{Member: "zk3:2181", Command: "cons"}, {Member: "zk3:2181", Command: "mntr"}, {Member: "zk3:2181", Command: "dump"}},
		Problems: []Problem{
			{Member: "zk4:2181", Command: "srvr", Err: errors.New("i/o timeout")},
			{Member: "zk1:2181", Command: "wchc", Err: errors.New("garbled answer")},
		},
	}
	want := "tables: zk1:2181 4lw · zk2:2181 AdminServer (http://zk2:8080/commands) · " +
		"zk3:2181 refused (cons, dump refused; no AdminServer at http://zk3:8080/commands: connection refused)" // zk4 has its MemberNote
	if got := s.SourcesLine(); got != want {
		t.Errorf("SourcesLine:\n got %s\nwant %s", got, want)
	}
	if ps := s.OtherProblems(); len(ps) != 1 || ps[0].Member != "zk1:2181" {
		t.Errorf("OtherProblems = %v: the unreachable member is in the line already", ps)
	}
	all4lw := &Snapshot{Members: []Member{{Addr: "zk1:2181", Mode: ModeLeader, TablesFrom: TablesFromFourLetter}}}
	if got := all4lw.SourcesLine(); got != "" {
		t.Errorf("every member on 4lw needs no line: %q", got)
	}
}
