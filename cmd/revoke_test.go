package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The tests in this file ask real Curator and Kazoo lock holders
// (testdata/interop/curator/RecipesPeer.java and LockPeer.java,
// kazoo/lock_peer.py) to release, on a real ZooKeeper whose watch tables
// zkx reads.

// TestRevokeCuratorHolderReleases: a Curator InterProcessMutex, and the
// write side of an InterProcessReadWriteLock, made revocable with a
// listener that releases: zkx revoke --wait asks, the holder's listener
// runs (REVOKED), it releases (RELEASED), and zkx reports it released.
func TestRevokeCuratorHolderReleases(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	curator := zktest.StartCuratorRecipesPeer(t, connect)
	for _, kind := range []string{"mutex", "write"} {
		dir := zktest.Path(t) + "/" + kind
		curator.Do(t, "revocable "+dir+" "+kind, "HOLDING")
		l, _ := lockOf(t, connect, dir)
		if len(l.Holders) != 1 || l.Holders[0].Format != "curator" || l.Holders[0].Data != "" {
			t.Fatalf("%s: holders %+v", kind, l.Holders)
		}
		out, errs, err := run(t, "--server", connect, "revoke", "--wait", "30s", "-o", "json", dir)
		if err != nil {
			t.Fatalf("%s: zkx revoke: %v\n%s\n%s", kind, err, out, errs)
		}
		var res revokeJSON
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v\n%s", kind, err, out)
		}
		if res.Released == nil || !*res.Released || res.Holder.Node != l.Holders[0].Node || res.RequestedAt.IsZero() ||
			!strings.Contains(res.Evidence, "its session watches it") {
			t.Errorf("%s: zkx revoke said %s", kind, out)
		}
		curator.Expect(t, "REVOKED")
		curator.Expect(t, "RELEASED")
		if ok, _, err := zktest.Conn(t, connect).Exists(recognize.ContenderPath(dir, res.Holder.Node)); ok || err != nil {
			t.Errorf("%s: the holder's node is still there after RELEASED (%v)", kind, err)
		}
	}
}

// TestRevokeFlaggedWhoeverWrote: a Curator holder not made revocable
// (its node holds the client's IP, as Curator writes by default) is not
// asked. When Curator's own Revoker asks it anyway, zkx flags the lock
// with when, refuses to ask again (the holder does not watch its node),
// and zkx unlock mentions the unanswered request.
func TestRevokeFlaggedWhoeverWrote(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	holder := zktest.StartCuratorLock(t, connect, dir, peerSessionTimeout)
	holder.WaitLine(t, 0, "HOLDING")
	before, _ := lockOf(t, connect, dir)
	h := before.Holders[0]
	if h.Data == "" {
		t.Fatalf("the default Curator holder's node is empty: %+v", h)
	}

	_, _, err := run(t, "--server", connect, "revoke", dir)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "a Curator lock made revocable writes its node empty") ||
		!strings.Contains(err.Error(), "zkx unlock "+dir) {
		t.Fatalf("zkx revoke of a holder not made revocable: %v", err)
	}
	if after, _ := lockOf(t, connect, dir); after.Holders[0].Data != h.Data {
		t.Fatalf("the refused revoke wrote %q", after.Holders[0].Data)
	}

	curator := zktest.StartCuratorRecipesPeer(t, connect)
	curator.Do(t, "revoke "+recognize.ContenderPath(dir, h.Node), "ASKED")
	l, raw := lockOf(t, connect, dir)
	flagged := l.Holders[0]
	if flagged.RevokeRequestedMs == nil || flagged.Data != recognize.RevokeMarker ||
		!strings.Contains(raw, `"revoke_requested_ms": `) {
		t.Fatalf("Curator's request not flagged:\n%s", raw)
	}
	found := false
	for _, w := range l.Warnings {
		found = found || strings.HasPrefix(w, "revocation requested at ") && strings.Contains(w, flagged.Node)
	}
	if !found {
		t.Errorf("no warning names the request: %q", l.Warnings)
	}

	_, _, err = run(t, "--server", connect, "revoke", dir)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "has no watch on its own node") {
		t.Errorf("zkx revoke of a holder that does not listen: %v", err)
	}
	out, errs, err := run(t, "--server", connect, "unlock", "--yes", dir)
	if err != nil || !strings.Contains(errs, "  revoke   asked ") || !strings.Contains(errs, ", still held") {
		t.Errorf("zkx unlock does not mention the request: %v\n%s\n%s", err, out, errs)
	}
}

// TestRevokeRefusedKazoo: Kazoo has no revocation: zkx revoke refuses a
// Kazoo holder, and writes nothing.
func TestRevokeRefusedKazoo(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	kazoo := zktest.StartKazooLock(t, connect, dir, "k1", peerSessionTimeout)
	kazoo.WaitLine(t, 0, "HOLDING")
	before, _ := lockOf(t, connect, dir)
	_, _, err := run(t, "--server", connect, "revoke", dir)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "Kazoo has no revocation") {
		t.Fatalf("zkx revoke of a Kazoo holder: %v", err)
	}
	after, _ := lockOf(t, connect, dir)
	if after.Holders[0].Data != before.Holders[0].Data || after.Holders[0].RevokeRequestedMs != nil {
		t.Errorf("the Kazoo holder's node changed: %+v", after.Holders[0])
	}
}

// TestRevokeUnanswered: a Curator holder made revocable whose listener
// hears the request and does not release: zkx revoke --wait says it still
// holds and exits 2, and the lock carries the request.
func TestRevokeUnanswered(t *testing.T) {
	t.Parallel()
	connect := zktest.Shared(t)
	dir := zktest.Path(t) + "/lock"
	curator := zktest.StartCuratorRecipesPeer(t, connect)
	curator.Do(t, "revocable "+dir+" read deaf", "HOLDING")
	out, errs, err := run(t, "--server", connect, "revoke", "--wait", "1s", dir)
	if exitCode(err) != exitStillHeld || !strings.Contains(out, "asked holder ") || !strings.Contains(out, "still held after 1s") {
		t.Fatalf("zkx revoke --wait of a holder that does not release: exit %d\n%s\n%s", exitCode(err), out, errs)
	}
	curator.Expect(t, "REVOKED")
	l, raw := lockOf(t, connect, dir)
	if len(l.Holders) != 1 || l.Holders[0].RevokeRequestedMs == nil || l.Holders[0].Kind != "read" {
		t.Errorf("the unanswered request is not on the lock:\n%s", raw)
	}
}
