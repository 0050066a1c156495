package zkserver

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Quotas, as ZooKeeper keeps them: a quota on /p is the node
// /zookeeper/quota/p/zookeeper_limits, and the server keeps the node count
// and data bytes of /p's subtree in /zookeeper/quota/p/zookeeper_stats. It
// rewrites that node's data in place (no version change, no watch) on every
// create, delete and setData below /p. Limits are not enforced: ZooKeeper
// 3.8 only logs when they are passed (unless enforceQuota is set).

const (
	quotaRoot      = "/zookeeper/quota"
	quotaLimitNode = "zookeeper_limits"
	quotaStatNode  = "zookeeper_stats"
)

// quotaNodeCreated updates the quota set when a limits or stats node
// appears under /zookeeper/quota.
func (t *tree) quotaNodeCreated(parent, name string, u *undoLog) {
	if !strings.HasPrefix(parent, quotaRoot) {
		return
	}
	target := strings.TrimPrefix(parent, quotaRoot)
	switch name {
	case quotaLimitNode:
		if target != "" && !t.quotas[target] {
			t.quotas[target] = true
			u.push(func() { delete(t.quotas, target) })
		}
	case quotaStatNode:
		count, bytes := t.subtreeSize(target)
		t.setQuotaStats(target, count, bytes, nil, u)
	}
}

// quotaNodeDeleted forgets a quota whose limits node goes, with every quota
// nested below it, as ZooKeeper's PathTrie.deletePath does.
func (t *tree) quotaNodeDeleted(parent, name string, u *undoLog) {
	if name != quotaLimitNode || !strings.HasPrefix(parent, quotaRoot) {
		return
	}
	target := strings.TrimPrefix(parent, quotaRoot)
	for p := range t.quotas {
		if p == target || strings.HasPrefix(p, target+"/") {
			delete(t.quotas, p)
			u.push(func() { t.quotas[p] = true })
		}
	}
}

// quotaFor returns the deepest quota'd ancestor-or-self of path, or "".
func (t *tree) quotaFor(path string) string {
	if len(t.quotas) == 0 {
		return ""
	}
	for p := path; p != "/"; p, _ = splitPath(p) {
		if t.quotas[p] {
			return p
		}
	}
	return ""
}

// quotaChange adds a change of count and bytes below path to its quota's stats.
func (t *tree) quotaChange(path string, countDiff, bytesDiff int64, u *undoLog) {
	target := t.quotaFor(path)
	if target == "" {
		return
	}
	stats := t.nodes[quotaRoot+target+"/"+quotaStatNode]
	if stats == nil {
		return
	}
	values, ok := parseQuotaStats(string(stats.data))
	if !ok {
		return // ZooKeeper would fail the transaction on a malformed stats node; leave it be
	}
	t.setQuotaStats(target, values["count"]+countDiff, values["bytes"]+bytesDiff, values, u)
}

func (t *tree) setQuotaStats(target string, count, bytes int64, extra map[string]int64, u *undoLog) {
	stats := t.nodes[quotaRoot+target+"/"+quotaStatNode]
	if stats == nil {
		return
	}
	old := stats.data
	text := fmt.Sprintf("count=%d,bytes=%d", count, bytes)
	var keys []string
	for k := range extra {
		if k != "count" && k != "bytes" {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		text += "="
		for _, k := range keys {
			text += fmt.Sprintf(";%s=%d", k, extra[k])
		}
	}
	stats.data = []byte(text)
	t.dataSize += int64(len(stats.data) - len(old))
	u.push(func() {
		t.dataSize -= int64(len(stats.data) - len(old))
		stats.data = old
	})
}

var quotaPairSeparator = regexp.MustCompile(`[,;]+`)

// parseQuotaStats reads "count=N,bytes=M[=;key=value…]" as StatsTrack does;
// an empty value reads as -1.
func parseQuotaStats(text string) (map[string]int64, bool) {
	values := map[string]int64{}
	if text == "" {
		return values, true
	}
	for _, pair := range quotaPairSeparator.Split(text, -1) {
		if pair == "" {
			continue
		}
		parts := strings.Split(pair, "=")
		if len(parts) < 2 || parts[1] == "" {
			values[parts[0]] = -1
			continue
		}
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return nil, false
		}
		values[parts[0]] = n
	}
	return values, true
}

// subtreeSize counts the nodes and data bytes of path's subtree, itself included.
func (t *tree) subtreeSize(path string) (count, bytes int64) {
	n := t.get(path)
	if n == nil {
		return 0, 0
	}
	count, bytes = 1, int64(len(n.data))
	for name := range n.children {
		child := path + "/" + name
		if path == "/" {
			child = "/" + name
		}
		c, b := t.subtreeSize(child)
		count += c
		bytes += b
	}
	return count, bytes
}
