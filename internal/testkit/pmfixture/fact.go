// Package pmfixture reads the facts the post-mortem fixtures were made
// with: testdata/postmortem/datadir/scenario.txt, one "name value" line per
// fact (chain_zxid 0xc, force_deleted /pm/…, session A 0x…), written by the
// real ZooKeeper scenario that made the data directory beside it.
package pmfixture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fact is the value of the fact name ("chain_zxid", "session A") in dir's
// scenario.txt; a missing file or fact fails the test.
func Fact(t testing.TB, dir, name string) string {
	t.Helper()
	v, ok := Facts(t, dir)[name]
	if !ok {
		t.Fatalf("%s names no %s", filepath.Join(dir, "scenario.txt"), name)
	}
	return v
}

// Facts are all the facts of dir's scenario.txt, by name: a line's last
// word is its value, the words before it its name ("session A"). A missing
// file fails the test.
func Facts(t testing.TB, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "scenario.txt"))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if words := strings.Fields(line); len(words) >= 2 {
			facts[strings.Join(words[:len(words)-1], " ")] = words[len(words)-1]
		}
	}
	return facts
}
