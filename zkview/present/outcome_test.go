package present

import (
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestOutcomeOfAReadWriteLock: the frozen first reader freed, the writer
// still waits for the second reader, and says so plainly; a reader queued
// behind the writer waits behind both.
func TestOutcomeOfAReadWriteLock(t *testing.T) {
	t.Parallel()
	r0 := recognize.Contender{Node: "_c_0f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-__READ__0000000000", Kind: "read", Format: "curator", Session: "0x10"}
	r1 := recognize.Contender{Node: "_c_1f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-__READ__0000000001", Seq: 1, Kind: "read", Format: "curator", Session: "0x11"}
	w2 := recognize.Contender{Node: "_c_2f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-__WRIT__0000000002", Seq: 2, Kind: "write", Format: "curator", Session: "0x12", WaitsFor: r1.Node}
	r3 := recognize.Contender{Node: "_c_3f6f6e4a-8a46-4a5c-9f3e-2d1f5c0b7a11-__READ__0000000003", Seq: 3, Kind: "read", Format: "curator", Session: "0x13", WaitsFor: w2.Node}
	before := &recognize.Lock{Path: "/rw", Recipe: "rwlock", Holders: []recognize.Contender{r0, r1}, Waiters: []recognize.Contender{w2, r3}}
	after := &recognize.Lock{Path: "/rw", Recipe: "rwlock", Holders: []recognize.Contender{r1}, Waiters: []recognize.Contender{w2, r3}}
	got := Outcome(before, r0, after)
	want := []string{
		"reader curator __READ__0000000001 (session 0x11) still holds",
		"the writer curator __WRIT__0000000002 (session 0x12) still waits: reader curator __READ__0000000001 (session 0x11) holds",
		"the reader curator __READ__0000000003 (session 0x13) still waits: writer curator __WRIT__0000000002 (session 0x12) waits ahead of it; reader curator __READ__0000000001 (session 0x11) holds",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The last reader freed too: the writer takes over.
	w2.WaitsFor = ""
	r3.WaitsFor = w2.Node
	final := &recognize.Lock{Path: "/rw", Recipe: "rwlock", Holders: []recognize.Contender{w2}, Waiters: []recognize.Contender{r3}}
	got = Outcome(after, r1, final)
	if got[0] != "writer curator __WRIT__0000000002 (session 0x12) took over: it holds now" {
		t.Errorf("got %q", got)
	}
	if got := Outcome(final, w2, nil); len(got) != 1 || got[0] != "the lock is free: nobody holds it and nobody waits" {
		t.Errorf("emptied: %q", got)
	}
}
