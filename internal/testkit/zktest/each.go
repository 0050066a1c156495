package zktest

import "testing"

// Each runs fn as two subtests: "embedded", against a fresh Embedded
// server, and "real", against the shared real server (see Shared; skipped
// loudly when real ZooKeeper is unavailable). Under "real" the server is
// shared, so fn must work under its own paths (see Path).
func Each(t *testing.T, fn func(t *testing.T, connect string)) {
	t.Helper()
	t.Run("embedded", func(t *testing.T) { fn(t, Embedded(t)) })
	t.Run("real", func(t *testing.T) { fn(t, Shared(t)) })
}
