package zktest

import (
	"path/filepath"
	"testing"
)

// StartCuratorRecipesPeer compiles and starts
// testdata/interop/curator/RecipesPeer against connect: Curator's
// GroupMember, SharedCount, DistributedQueue and revocable locks, driven
// line by line (its header lists the commands). It returns once the peer
// is connected.
func StartCuratorRecipesPeer(t testing.TB, connect string) *LinePeer {
	t.Helper()
	classpath := CompileCurator(t, filepath.Join(interopTestdata(), "curator", "RecipesPeer.java"))
	args := append(append([]string{}, JavaQuietFlags...), "-cp", classpath, "RecipesPeer", connect)
	p := StartLinePeer(t, Java(t), args...)
	p.WaitReady(t)
	return p
}

// StartKazooRecipesPeer starts testdata/interop/kazoo/recipes_peer.py
// against connect: Kazoo's Party, Counter and Lock, driven line by line
// (its docstring lists the commands). It returns once the peer is
// connected.
func StartKazooRecipesPeer(t testing.TB, connect string) *LinePeer {
	t.Helper()
	p := StartLinePeer(t, KazooPython(t), filepath.Join(interopTestdata(), "kazoo", "recipes_peer.py"), connect)
	p.WaitReady(t)
	return p
}
