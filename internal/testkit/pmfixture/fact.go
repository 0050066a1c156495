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
	b, err := os.ReadFile(filepath.Join(dir, "scenario.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok && v != "" {
			return v
		}
	}
	t.Fatalf("%s names no %s", filepath.Join(dir, "scenario.txt"), name)
	return ""
}
