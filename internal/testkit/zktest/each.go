package zktest

import "testing"

// Each runs fn as two subtests: "embedded", against a fresh Embedded
// server, and "real", against the shared real server (see Shared; skipped
// loudly when real ZooKeeper is unavailable). Under "real" the server is
// shared, so fn must work under its own paths (see Path).
func Each(t *testing.T, fn func(t *testing.T, connect string)) {
	t.Helper()
	each(t, false, fn)
}

// EachParallel is Each with the two subtests run side by side
// (t.Parallel), for a long test whose fn sets no environment.
func EachParallel(t *testing.T, fn func(t *testing.T, connect string)) {
	t.Helper()
	each(t, true, fn)
}

func each(t *testing.T, parallel bool, fn func(t *testing.T, connect string)) {
	t.Helper()
	for _, server := range []struct {
		name    string
		connect func(testing.TB) string
	}{{"embedded", Embedded}, {"real", Shared}} {
		t.Run(server.name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			fn(t, server.connect(t))
		})
	}
}
