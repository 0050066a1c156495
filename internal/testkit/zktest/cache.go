package zktest

import (
	"os"
	"path/filepath"
	"time"
)

// The kit keeps what is costly to make and the same from one test binary
// to the next (compiled peers, the zkx binary) under the user's cache
// directory, as Go's build cache keeps packages.

// cacheAge is how long an entry of the kit's caches nobody used is kept.
const cacheAge = 14 * 24 * time.Hour

// userCacheDir is the kit's cache called name under the user's cache
// directory, "" when there is none.
func userCacheDir(name string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "zkx", name)
}

// pruneCache removes what the cache under root holds that nobody used for
// cacheAge (compilations, binaries, leftovers of interrupted ones); the
// caller holds one entry's lock, and an entry in use has just been touched.
func pruneCache(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < cacheAge {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, e.Name())) // best effort: the next prune tries again
	}
}
