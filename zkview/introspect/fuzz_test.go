package introspect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var fuzzWords = []string{"srvr", "stat", "mntr", "cons", "wchc", "wchp", "dump", "conf", "ruok", "isro"}

// FuzzParseFourLetter feeds arbitrary answers to every four-letter parser
// and what they return to the sessions model: nothing may panic, and what
// parses must be usable.
//
//	go test ./zkview/introspect -run '^$' -fuzz FuzzParseFourLetter -fuzztime 60s
func FuzzParseFourLetter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.txt"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		cmd := strings.TrimSuffix(filepath.Base(name), ".txt")
		for i, w := range fuzzWords {
			if w == cmd {
				f.Add(uint8(i), string(b))
			}
		}
	}
	f.Add(uint8(0), notServingText+"\n")
	f.Add(uint8(4), "wchc"+refusalSuffix+"\n")
	f.Fuzz(func(t *testing.T, pick uint8, text string) {
		cmd := fuzzWords[int(pick)%len(fuzzWords)]
		v, err := parseFourLetter(cmd, text)
		if err != nil {
			return
		}
		m := Member{Addr: "zk1:2181", Mode: ModeFollower}
		switch v := v.(type) {
		case ServerStats:
			if v.Mode == "" {
				t.Fatalf("%s parsed without a mode: %q", cmd, text)
			}
		case []Connection:
			m.Connections = v
		case map[int64][]string:
			m.Watches = newWatchTable(v, nil)
		case map[string][]int64:
			m.Watches = newWatchTable(nil, v)
		case *Dump:
			m.Dump = v
			v.Sessions()
		}
		in := &Snapshot{Chroot: "/app", Members: []Member{m}}
		in.Sessions = buildSessions(in)
		tables := in.Tables()
		for _, s := range in.Sessions {
			tables.ClientAddress(s.ID)
			tables.Connected(s.ID)
			for _, p := range s.Watches {
				if w, known := tables.Watches(s.ID, p); !w || !known {
					t.Fatalf("session %s lists watch %s, tables say %v %v", s.Hex, p, w, known)
				}
			}
			for _, p := range append(append([]string{}, s.Ephemerals...), s.Watches...) {
				if !strings.HasPrefix(p, "/") {
					t.Fatalf("session %s: user path %q is not absolute", s.Hex, p)
				}
			}
		}
	})
}
