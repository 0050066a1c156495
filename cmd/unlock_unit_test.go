package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestUnlockAndRevokeOptions: their flags, and what they refuse before
// they dial: --readonly first of all.
func TestUnlockAndRevokeOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	unlock := parsed(t, func(run runFunc[*unlockOptions]) *cobra.Command { return newUnlockCommand(g, run) }, "--node", "#41", "-y", "-o", "json", "/app/l")
	if unlock.path != "/app/l" || unlock.node != "#41" || !unlock.yes || unlock.read.format != cliout.JSON {
		t.Errorf("unlock --node #41 -y -o json /app/l: %+v", unlock)
	}
	revoke := parsed(t, func(run runFunc[*revokeOptions]) *cobra.Command { return newRevokeCommand(g, run) }, "--wait", "30s", "/app/l")
	if revoke.path != "/app/l" || revoke.wait != 30*time.Second {
		t.Errorf("revoke --wait 30s /app/l: %+v", revoke)
	}

	readonly := &globalOptions{readonly: true}
	checkRefusals(t, []refusal{
		{func() *cobra.Command { return newUnlockCommand(readonly, stopBeforeRun) }, []string{"/app/l"}, "--readonly: zkx unlock deletes a lock's node"},
		{func() *cobra.Command { return newRevokeCommand(readonly, stopBeforeRun) }, []string{"/app/l"}, "--readonly: zkx revoke writes into the lock holder's node"},
		{func() *cobra.Command { return newUnlockCommand(g, stopBeforeRun) }, []string{"app/l"}, "is relative"},
		{func() *cobra.Command { return newUnlockCommand(g, stopBeforeRun) }, []string{"-o", "yaml", "/app/l"}, `-o "yaml": want table or json`},
		{func() *cobra.Command { return newUnlockCommand(g, stopBeforeRun) }, nil, "accepts 1 arg(s), received 0"},
		{func() *cobra.Command { return newRevokeCommand(g, stopBeforeRun) }, []string{"--wait", "-1s", "/app/l"}, "--wait must not be negative"},
		{func() *cobra.Command { return newRevokeCommand(g, stopBeforeRun) }, []string{"--timeout", "0s", "/app/l"}, "--timeout must be positive"},
	})
}

// TestUnlockTarget: the one certain holder, or the one --node names by
// name, short name or #SEQ; never a waiter, never a guess between two.
func TestUnlockTarget(t *testing.T) {
	t.Parallel()
	holder := recognize.Contender{Node: "_c_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-lock-0000000001", Seq: 1, Format: "curator", Session: "0x1"}
	mayHold := recognize.Contender{Node: "lock-0000000002", Seq: 2, Format: "kazoo", Session: "0x2", MayHold: true, MayHoldReason: "holds by extra_lock_patterns"}
	one := &recognize.Lock{Path: "/app/l", Holders: []recognize.Contender{holder}, Waiters: []recognize.Contender{mayHold}}
	for _, node := range []string{"", "_c_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-lock-0000000001", "lock-0000000001", "#1"} {
		if p, err := unlockTarget(one, node); err != nil || p.Node != holder.Node || !p.Holding() {
			t.Errorf("--node %q: %+v %v, want the holder", node, p, err)
		}
	}
	if _, err := unlockTarget(one, "#2"); err == nil || !strings.Contains(err.Error(), "--node #2 is waiter 1 in line, not a holder for certain (it may believe it holds: it holds by extra_lock_patterns)") {
		t.Errorf("--node naming a waiter: %v", err)
	}
	if _, err := unlockTarget(one, "#7"); err == nil || !strings.Contains(err.Error(), "no contender of /app/l is #7; holders: lock-0000000001 (#1, curator, session 0x1)") {
		t.Errorf("--node naming nobody: %v", err)
	}
	if _, err := unlockTarget(&recognize.Lock{Path: "/app/l"}, ""); err == nil || !strings.Contains(err.Error(), "nobody holds /app/l: nothing to release") {
		t.Errorf("no holder: %v", err)
	}
	second := recognize.Contender{Node: "lock-0000000003", Seq: 3, Format: "kazoo", Session: "0x3"}
	two := &recognize.Lock{Path: "/app/l", Holders: []recognize.Contender{holder, second}}
	if _, err := unlockTarget(two, ""); err == nil || !strings.Contains(err.Error(), "/app/l has 2 holders") || !strings.Contains(err.Error(), "pass --node") {
		t.Errorf("two holders without --node: %v", err)
	}
	if p, err := unlockTarget(two, "#3"); err != nil || p.Node != second.Node {
		t.Errorf("two holders, --node #3: %+v %v", p, err)
	}
}

// TestWriteUnlock: what unlock says once the node is gone: the outcome
// read after, else who takes over; JSON with every list [] and the lock
// after as zkx locks prints it.
func TestWriteUnlock(t *testing.T) {
	t.Parallel()
	res := unlockJSON{Path: "/app/l", Released: recognize.Contender{Node: "lock-1"}, Next: []recognize.Contender{}, Handover: "lock-2 holds next",
		MayAlsoHold: []recognize.Contender{}}
	var out bytes.Buffer
	if err := writeUnlock(&out, "/app/l/lock-1\x1b", res, cliout.Table); err != nil || out.String() != "deleted /app/l/lock-1\\x1b\nnext: lock-2 holds next\n" {
		t.Errorf("unlock with nothing read after: %v\n%q", err, out.String())
	}
	res.Outcome = []string{"lock-2 holds", "lock-3 waits for lock-2"}
	out.Reset()
	if err := writeUnlock(&out, "/app/l/lock-1", res, cliout.Table); err != nil || out.String() != "deleted /app/l/lock-1\nnow: lock-2 holds\nnow: lock-3 waits for lock-2\n" {
		t.Errorf("unlock with the outcome: %v\n%q", err, out.String())
	}
	res.After = &recognize.Lock{Path: "/app/l", Holders: []recognize.Contender{{Node: "lock-2"}}}
	out.Reset()
	if err := writeUnlock(&out, "/app/l/lock-1", res, cliout.JSON); err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || string(got["next"]) != "[]" || string(got["may_also_hold"]) != "[]" {
		t.Fatalf("unlock -o json: %v\n%s", err, out.String())
	}
	var after recognize.Lock
	if err := json.Unmarshal(got["after"], &after); err != nil || len(after.Holders) != 1 || after.Waiters == nil || after.Warnings == nil ||
		!strings.Contains(string(got["after"]), `"waiters": []`) {
		t.Errorf("unlock -o json's after: %v\n%s", err, got["after"])
	}
	if _, ok := got["ensemble"]; ok {
		t.Errorf("unlock -o json with nothing to say of the members: %s", out.String())
	}
}
