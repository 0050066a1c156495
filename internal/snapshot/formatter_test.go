package snapshot

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/datadir"
)

// fixtures is the project's testdata/postmortem: files a real ZooKeeper
// wrote and what its tools printed for them.
var fixtures = filepath.Join("..", "..", "testdata", "postmortem")

// formatted is what SnapshotFormatter -d printed for a snapshot.
type formatted struct {
	count    int
	nodes    map[string]map[string]string // path → "cZxid" → "0x…", "data" → base64 …
	order    []string
	sessions map[int64][2]int64 // id → timeout, ephemeral count
	lastZxid int64
}

func parseFormatter(t *testing.T, out string) formatted {
	t.Helper()
	f := formatted{nodes: map[string]map[string]string{}, sessions: map[int64][2]int64{}, count: -1, lastZxid: -1}
	lines := strings.Split(out, "\n")
	inSessions := false
	var cur map[string]string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "ZNode Details (count="):
			f.count, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(l, "ZNode Details (count="), "):"))
		case l == "----" && !inSessions && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "/"):
			i++
			cur = map[string]string{}
			f.nodes[lines[i]] = cur
			f.order = append(f.order, lines[i])
		case strings.HasPrefix(l, "  ") && cur != nil && !inSessions:
			k, v, _ := strings.Cut(strings.TrimSpace(l), " = ")
			if strings.HasSuffix(l, " =") { // empty data
				k, v = strings.TrimSuffix(strings.TrimSpace(l), " ="), ""
			}
			cur[k] = v
		case strings.HasPrefix(l, "Session Details"):
			inSessions, cur = true, nil
		case inSessions && strings.HasPrefix(l, "0x"):
			parts := strings.Split(l, ", ")
			id, _ := strconv.ParseUint(strings.TrimPrefix(parts[0], "0x"), 16, 64)
			to, _ := strconv.ParseInt(parts[1], 10, 64)
			eph, _ := strconv.ParseInt(parts[2], 10, 64)
			f.sessions[int64(id)] = [2]int64{to, eph}
		case strings.HasPrefix(l, "Last zxid: 0x"):
			z, _ := strconv.ParseUint(strings.TrimPrefix(l, "Last zxid: 0x"), 16, 64)
			f.lastZxid = int64(z)
		}
	}
	if f.count < 0 || f.lastZxid < 0 || len(f.nodes) == 0 {
		t.Fatalf("SnapshotFormatter output not understood:\n%s", out)
	}
	return f
}

// compareWithFormatter reads the snapshot at path and compares it with
// what SnapshotFormatter -d printed for it: every node with its stat and
// data, the count (which has the root twice, as the DataTree's map does),
// the sessions with their ephemeral counts, the last zxid.
func compareWithFormatter(t *testing.T, path, out string) *Reader {
	t.Helper()
	want := parseFormatter(t, out)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := map[string]Node{}
	ephemerals := map[int64]int64{}
	var last int64
	for {
		n, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got[n.Path] = n
		if owner := n.Stat.EphemeralOwner; owner != 0 && owner != containerMark && owner>>56 != -1 {
			ephemerals[owner]++
		}
		last = max(last, n.Stat.Mzxid, n.Stat.Pzxid)
	}
	name := filepath.Base(path)
	if len(got)+1 != want.count || len(got) != len(want.nodes) {
		t.Errorf("%s: %d nodes; the formatter counted %d and printed %d", name, len(got), want.count, len(want.nodes))
	}
	javaDate := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("Mon Jan 02 15:04:05 MST 2006") }
	for p, w := range want.nodes {
		n, ok := got[p]
		if !ok {
			t.Errorf("%s: no node %s", name, p)
			continue
		}
		st := n.Stat
		mine := map[string]string{
			"cZxid": hex(st.Czxid), "ctime": javaDate(st.Ctime), "mZxid": hex(st.Mzxid), "mtime": javaDate(st.Mtime),
			"pZxid": hex(st.Pzxid), "cversion": strconv.Itoa(int(st.Cversion)), "dataVersion": strconv.Itoa(int(st.Version)),
			"aclVersion": strconv.Itoa(int(st.Aversion)), "ephemeralOwner": hex(st.EphemeralOwner),
			"data": base64.StdEncoding.EncodeToString(n.Data),
		}
		for k, v := range w {
			if k != "data" && k != "ctime" && k != "mtime" {
				v = normHex(v)
			}
			if mine[k] != v {
				t.Errorf("%s %s: %s = %q; the formatter printed %q", name, p, k, mine[k], v)
			}
		}
		if len(w) != len(mine) {
			t.Errorf("%s %s: the formatter printed %d fields, not %d: %v", name, p, len(w), len(mine), w)
		}
	}
	if len(r.Sessions()) != len(want.sessions) {
		t.Errorf("%s: %d sessions; the formatter printed %d", name, len(r.Sessions()), len(want.sessions))
	}
	for _, s := range r.Sessions() {
		w, ok := want.sessions[s.ID]
		if !ok || w[0] != int64(s.TimeoutMs) || w[1] != ephemerals[s.ID] {
			t.Errorf("%s: session 0x%x timeout %d with %d ephemerals; the formatter: %v", name, s.ID, s.TimeoutMs, ephemerals[s.ID], w)
		}
	}
	_, fileZxid, _ := datadir.Parse(name)
	if max(fileZxid, last) != want.lastZxid {
		t.Errorf("%s: last zxid 0x%x; the formatter 0x%x", name, max(fileZxid, last), want.lastZxid)
	}
	return r
}

// containerMark is a container's ephemeralOwner (EphemeralType).
const containerMark = -1 << 63

func hex(v int64) string { return fmt.Sprintf("0x%x", uint64(v)) }

// normHex turns "0x0000000000001c" into "0x1c"; other values pass.
func normHex(v string) string {
	h, ok := strings.CutPrefix(v, "0x")
	if !ok {
		return v
	}
	n, err := strconv.ParseUint(h, 16, 64)
	if err != nil {
		return v
	}
	return fmt.Sprintf("0x%x", n)
}

// TestFixturesAgreeWithSnapshotFormatter reads every snapshot a real
// ZooKeeper wrote for the fixtures — plain, gzip'd and snappy'd — and
// compares it with SnapshotFormatter's output for the same file.
func TestFixturesAgreeWithSnapshotFormatter(t *testing.T) {
	t.Parallel()
	plain, _ := filepath.Glob(filepath.Join(fixtures, "datadir", "version-2", "snapshot.*"))
	compressed, _ := filepath.Glob(filepath.Join(fixtures, "snapshots", "snapshot.*"))
	kinds := map[Compression]int{}
	digests := 0
	for _, path := range append(plain, compressed...) {
		out, err := os.ReadFile(filepath.Join(fixtures, "toolkit", filepath.Base(path)+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		r := compareWithFormatter(t, path, string(out))
		kinds[r.Compression()]++
		if d := r.Digest(); d != nil && d.Zxid > 0 {
			digests++
		}
	}
	if kinds[Plain] < 2 || kinds[Gzip] < 2 || kinds[Snappy] < 2 {
		t.Errorf("fixtures by compression: %v; want at least two of each", kinds)
	}
	if digests == 0 {
		t.Error("no fixture snapshot carries a digest")
	}
}
