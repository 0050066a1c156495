package recipes

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/zkx-dev/zkx/internal/seqnode"
)

// Format is the node layout a recipe writes, so that it interoperates with
// the library that defined it.
type Format int

const (
	// Curator writes Apache Curator's layout: "_c_<uuid>-<marker>SEQ", e.g.
	// "_c_1b0c…-lock-0000000003" for InterProcessMutex.
	Curator Format = iota
	// Kazoo writes Kazoo's layout: "<32 hex digits><marker>SEQ", e.g.
	// "9f1c…__lock__0000000003".
	Kazoo
)

func (f Format) String() string {
	if f == Kazoo {
		return "kazoo"
	}
	return "curator"
}

// ParseFormat reads "curator" or "kazoo".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "curator":
		return Curator, nil
	case "kazoo":
		return Kazoo, nil
	}
	return 0, fmt.Errorf("unknown format %q (want curator or kazoo)", s)
}

// The markers that separate a node's protected prefix from its sequence.
const (
	curatorLock  = "lock-"
	curatorRead  = "__READ__"
	curatorWrite = "__WRIT__"
	curatorLatch = "latch-"
	curatorLease = "lease-"
	kazooLock    = "__lock__"
	kazooRead    = "__rlock__"
)

// newPrefix returns a fresh protected prefix for a node with marker: the
// server appends the sequence number to it.
func newPrefix(f Format, marker string) string {
	if f == Kazoo {
		return newID(f) + marker
	}
	return "_c_" + newID(f) + "-" + marker
}

// newID returns a fresh random identifier in the format's style: a version
// 4 UUID as Curator's UUID.randomUUID() writes it, or 32 hex digits as
// Kazoo's uuid4().hex.
func newID(f Format) string {
	var b [16]byte
	rand.Read(b[:])
	if f == Kazoo {
		return hex.EncodeToString(b[:])
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// contender is one node of a lock-like directory that follows the format.
type contender struct {
	name   string
	seq    int32
	marker string
}

// contenders picks the children that carry one of the markers and sorts
// them by sequence number; children of any other shape are ignored.
func contenders(children []string, markers ...string) []contender {
	out := make([]contender, 0, len(children))
	for _, name := range children {
		for _, m := range markers {
			if seq, ok := seqnode.After(name, m); ok {
				out = append(out, contender{name: name, seq: seq, marker: m})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].seq != out[j].seq {
			return out[i].seq < out[j].seq
		}
		return out[i].name < out[j].name
	})
	return out
}

func indexOf(cs []contender, name string) int {
	for i, c := range cs {
		if c.name == name {
			return i
		}
	}
	return -1
}

// joinPath joins a directory and a child name.
func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
