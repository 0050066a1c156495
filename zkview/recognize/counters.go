package recognize

import (
	"context"
	"encoding/binary"
	"regexp"
	"strconv"
	"time"
)

// Counters: one persistent leaf holding a number, changed with a
// conditional write (setData with the version read), so its dataVersion
// counts its changes.
//
//   - Curator's SharedCount (shared/SharedCount.java toBytes) and
//     DistributedAtomicInteger: 4 bytes, a big-endian int32; Kazoo's
//     Counter with support_curator=True (kazoo/recipe/counter.py,
//     struct.pack(">i")) writes the same.
//   - Curator's DistributedAtomicLong (atomic/DistributedAtomicLong.java
//     valueToBytes): 8 bytes, a big-endian int64. Its PromotedToLock
//     mutex, when configured, is an InterProcessMutex at a path in the
//     clients' code: zkx lists it with the locks.
//   - Kazoo's Counter: repr(value) as ASCII text, an int or a float; its
//     node is created empty (ensure_path), so a counter changed at least
//     once holds text.
//
// Curator's SharedValue holds any bytes: nothing tells it from any node's
// data, and zkx does not call it a counter.

// The kinds of Counter: how its value is stored.
const (
	CounterInt32 = "int32"
	CounterInt64 = "int64"
	CounterText  = "text"
)

// recCounterText bounds the length of a text counter's data.
const recCounterText = 24

// Counter is a recognised counter.
type Counter struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Kind is how the value is stored: int32, int64 (big-endian) or text.
	Kind string `json:"kind"`
	SystemTag
	// Value is the counter's value in decimal.
	Value string `json:"value"`
	// Writers are the library recipes that store a value this way: the
	// bytes do not say which one wrote it.
	Writers []string `json:"writers"`
	// Version is the node's dataVersion: how many times it was set.
	Version int32 `json:"version"`
	// ChangedMs is how long ago it was last set (or created).
	ChangedMs int64    `json:"changed_ms"`
	Warnings  []string `json:"warnings"`

	Changed time.Time `json:"-"`
}

// counterText is what Python's repr writes for an int or a float.
var counterText = regexp.MustCompile(`^-?(\d+|\d+\.\d*(e[+-]\d+)?|\d+e[+-]\d+|inf|nan)$`)

// isCounterCandidate reports whether a leaf's stat fits a counter: a
// persistent leaf of 4 or 8 bytes, or of a short text set at least once.
func isCounterCandidate(d listedDir) bool {
	st := d.stat
	if len(d.names) != 0 || st == nil || st.NumChildren != 0 || st.EphemeralOwner != 0 || d.path == "/" {
		return false
	}
	n := st.DataLength
	return n == 4 || n == 8 || (n > 0 && n <= recCounterText && st.Version > 0)
}

// counter reads a leaf as a counter; nil when its data is none.
func (rc *recognizer) counter(ctx context.Context, d listedDir) (Recipe, error) {
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil || stat.NumChildren != 0 || stat.EphemeralOwner != 0 {
		return nil, err
	}
	c := &Counter{Path: d.path, Version: stat.Version, Warnings: []string{}}
	switch {
	case len(data) == 4 && !printable(data):
		c.Format, c.Kind = recFormatCurator, CounterInt32
		c.Value = strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(data))), 10)
		c.Writers = []string{"Curator SharedCount", "Curator DistributedAtomicInteger", "Kazoo Counter (support_curator=True)"}
	case len(data) == 8 && !printable(data):
		c.Format, c.Kind = recFormatCurator, CounterInt64
		c.Value = strconv.FormatInt(int64(binary.BigEndian.Uint64(data)), 10)
		c.Writers = []string{"Curator DistributedAtomicLong"}
	case len(data) <= recCounterText && stat.Version > 0 && counterText.Match(data):
		c.Format, c.Kind = recFormatKazoo, CounterText
		c.Value = string(data)
		c.Writers = []string{"Kazoo Counter"}
	default:
		return nil, nil
	}
	if stat.Mtime != 0 {
		c.Changed = time.UnixMilli(stat.Mtime)
		c.ChangedMs = max(rc.opts.Now.Sub(c.Changed).Milliseconds(), 0)
	}
	return c, nil
}

// printable reports whether data is all printable ASCII: text, which
// binary counters' bytes are not (but for values that happen to be).
func printable(data []byte) bool {
	for _, c := range data {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// Info implements Recipe.
func (c *Counter) Info() Info {
	return Info{Path: c.Path, Kind: "counter", Class: ClassCounter, Format: c.Format, Warnings: c.Warnings, SystemTag: c.SystemTag}
}

// Holding implements Recipe: nobody holds a counter.
func (c *Counter) Holding() []Contender { return nil }

// Lineup implements Recipe: a counter has no contenders.
func (c *Counter) Lineup() []Place { return nil }

// Dirs implements Recipe: the counter's node (it has no children: its
// parent's listing says when it goes).
func (c *Counter) Dirs() []string { return []string{c.Path} }

// Emptied implements Recipe.
func (c *Counter) Emptied() Recipe {
	return &Counter{Path: c.Path, Format: c.Format, Kind: c.Kind, SystemTag: c.SystemTag}
}

func (c *Counter) addTo(res *Result)     { res.Counters = append(res.Counters, *c) }
func (c *Counter) members() []*Contender { return nil }
