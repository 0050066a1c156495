package pmfixture

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func TestFact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenario.txt"), []byte("chain_zxid 0xc\nsession A 0x1001\nempty \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Fact(t, dir, "chain_zxid"); got != "0xc" {
		t.Errorf("chain_zxid: %q", got)
	}
	if got := Fact(t, dir, "session A"); got != "0x1001" {
		t.Errorf("session A: %q", got)
	}
	// The real fixtures name the facts the tests use.
	real := filepath.Join("..", "..", "..", "testdata", "postmortem", "datadir")
	for _, name := range []string{"chain_zxid", "force_deleted", "app_good_zxid", "session ops"} {
		if Fact(t, real, name) == "" {
			t.Errorf("%s: empty", name)
		}
	}
}

func TestFacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenario.txt"), []byte("chain_zxid 0xc\nsession A 0x1001\n\nlonely\nsession admin 0x1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Facts(t, dir)
	want := map[string]string{"chain_zxid": "0xc", "session A": "0x1001", "session admin": "0x1000"}
	if !maps.Equal(got, want) {
		t.Errorf("Facts: %v, want %v", got, want)
	}
}
