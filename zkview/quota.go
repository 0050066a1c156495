package zkview

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// ZooKeeper keeps a quota on /p as two nodes (Quotas.java): the limits in
// /zookeeper/quota/p/zookeeper_limits and the subtree's usage, which the
// server itself updates on every create, delete and setData below /p, in
// /zookeeper/quota/p/zookeeper_stats.
const (
	quotaRoot      = "/zookeeper/quota"
	quotaLimitNode = "zookeeper_limits"
	quotaStatNode  = "zookeeper_stats"
)

// QuotaValues are the numbers of a StatsTrack: a limits node's soft limits
// (Count, Bytes; 3.7+ adds the hard CountHard and BytesHard) or a stats
// node's usage (Count, Bytes). -1 is "none", as ZooKeeper writes it.
type QuotaValues struct {
	Count, Bytes         int64
	CountHard, BytesHard int64
}

// ParseStatsTrack reads a limits or stats node's text as ZooKeeper's
// StatsTrack does: key=value pairs split at commas and semicolons
// ("count=10,bytes=-1" or, from 3.7, "count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=5"),
// an empty value read as -1, a missing key as -1.
func ParseStatsTrack(text string) (QuotaValues, error) {
	v := QuotaValues{Count: -1, Bytes: -1, CountHard: -1, BytesHard: -1}
	for _, pair := range statsTrackSeparator.Split(text, -1) {
		if pair == "" {
			continue
		}
		parts := strings.Split(pair, "=")
		if len(parts) < 2 {
			return v, fmt.Errorf("quota %q: %q is not key=value", text, pair)
		}
		n := int64(-1)
		if parts[1] != "" {
			var err error
			if n, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
				return v, fmt.Errorf("quota %q: %q is not a number", text, parts[1])
			}
		}
		switch parts[0] {
		case "count":
			v.Count = n
		case "bytes":
			v.Bytes = n
		case "countHardLimit":
			v.CountHard = n
		case "byteHardLimit":
			v.BytesHard = n
		}
	}
	return v, nil
}

var statsTrackSeparator = regexp.MustCompile(`[,;]+`)

// Quota is one quota: the subtree it is set on, its limits and the usage
// the server counts. Err says why either node could not be read.
type Quota struct {
	// Path is the subtree, under the client's chroot; Outside is set when
	// the quota is on a path outside it (Path is then the server's).
	Path    string
	Outside bool
	Limits  QuotaValues
	Usage   QuotaValues
	// HasUsage is false when the stats node is missing (a quota being set
	// up, or left behind half removed).
	HasUsage bool
	Err      error
}

// Exceeded names the limits the usage passes: soft ones ZooKeeper only
// logs (unless enforceQuota is set), hard ones it refuses writes past.
func (q Quota) Exceeded() []string {
	var out []string
	if !q.HasUsage {
		return nil
	}
	check := func(limit, used int64, what string) {
		if limit >= 0 && used > limit {
			out = append(out, fmt.Sprintf("%s %d > %d", what, used, limit))
		}
	}
	check(q.Limits.Count, q.Usage.Count, "count")
	check(q.Limits.Bytes, q.Usage.Bytes, "bytes")
	check(q.Limits.CountHard, q.Usage.Count, "count (hard)")
	check(q.Limits.BytesHard, q.Usage.Bytes, "bytes (hard)")
	return out
}

// QuotaFor returns the quota that covers path (set on it or on one of its
// ancestors), or nil. ZooKeeper allows no quota inside another, so there
// is at most one.
func (c *Client) QuotaFor(ctx context.Context, p string) (*Quota, error) {
	abs := c.Abs(p)
	for dir := abs; dir != "/"; dir = path.Dir(dir) {
		st, err := c.existsRaw(ctx, quotaRoot+dir+"/"+quotaLimitNode)
		if err != nil {
			return nil, err
		}
		if st != nil {
			q := c.readQuota(ctx, dir)
			return &q, nil
		}
	}
	return nil, nil
}

// Quotas lists the quotas on path and below it, and the one on an
// ancestor that covers it, by path. It reads ZooKeeper's own
// /zookeeper/quota tree (outside any chroot).
func (c *Client) Quotas(ctx context.Context, p string) ([]Quota, error) {
	var out []Quota
	if q, err := c.QuotaFor(ctx, p); err != nil {
		return nil, err
	} else if q != nil {
		out = append(out, *q)
	}
	start := quotaRoot + c.Abs(p)
	if c.Abs(p) == "/" {
		start = quotaRoot
	}
	err := c.walkRaw(ctx, start, func(dir string, children []string) {
		for _, name := range children {
			if name != quotaLimitNode {
				continue
			}
			q := c.readQuota(ctx, strings.TrimPrefix(dir, quotaRoot))
			if len(out) == 0 || out[0].Path != q.Path { // the one on p itself: QuotaFor has it
				out = append(out, q)
			}
		}
	})
	if err != nil && !IsNoNode(err) {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// readQuota reads the limits and stats of the quota on abs (the server's
// path).
func (c *Client) readQuota(ctx context.Context, abs string) Quota {
	q := Quota{Path: c.Rel(abs)}
	if c.target.Chroot != "" && abs != c.target.Chroot && !strings.HasPrefix(abs, c.target.Chroot+"/") {
		q.Path, q.Outside = abs, true
	}
	limits, _, err := c.getRaw(ctx, quotaRoot+abs+"/"+quotaLimitNode)
	if err != nil {
		q.Err = err
		return q
	}
	if q.Limits, err = ParseStatsTrack(string(limits)); err != nil {
		q.Err = err
		return q
	}
	stats, _, err := c.getRaw(ctx, quotaRoot+abs+"/"+quotaStatNode)
	switch {
	case IsNoNode(err):
		return q
	case err != nil:
		q.Err = err
		return q
	}
	if q.Usage, err = ParseStatsTrack(string(stats)); err != nil {
		q.Err = err
		return q
	}
	q.HasUsage = true
	return q
}

// getRaw reads a node by the server's own path, ignoring the chroot: the
// /zookeeper tree sits outside every chroot.
func (c *Client) getRaw(ctx context.Context, abs string) ([]byte, *zk.Stat, error) {
	type r struct {
		data []byte
		stat *zk.Stat
	}
	v, err := do(ctx, c, "get", abs, func(string) (r, error) {
		data, stat, err := c.conn.Get(abs)
		return r{data, stat}, err
	})
	return v.data, v.stat, err
}

func (c *Client) existsRaw(ctx context.Context, abs string) (*zk.Stat, error) {
	return do(ctx, c, "stat", abs, func(string) (*zk.Stat, error) {
		ok, stat, err := c.conn.Exists(abs)
		if !ok {
			stat = nil
		}
		return stat, err
	})
}

// walkRaw visits abs and every node below it (the server's paths),
// parents first; the quota tree is small, so one request at a time.
func (c *Client) walkRaw(ctx context.Context, abs string, visit func(dir string, children []string)) error {
	children, err := do(ctx, c, "list", abs, func(string) ([]string, error) {
		ch, _, err := c.conn.Children(abs)
		return ch, err
	})
	if err != nil {
		return err
	}
	sort.Strings(children)
	visit(abs, children)
	for _, name := range children {
		if name == quotaLimitNode || name == quotaStatNode {
			continue
		}
		if err := c.walkRaw(ctx, ChildPath(abs, name), visit); err != nil && !IsNoNode(err) {
			return err
		}
	}
	return nil
}

// ReadSystemNode reads one of ZooKeeper's own nodes (/zookeeper/config,
// /zookeeper/quota/…) by its server path, outside any chroot.
func (c *Client) ReadSystemNode(ctx context.Context, abs string) ([]byte, *zk.Stat, error) {
	if abs != "/zookeeper" && !strings.HasPrefix(abs, "/zookeeper/") {
		return nil, nil, fmt.Errorf("%s is not one of ZooKeeper's own nodes", abs)
	}
	return c.getRaw(ctx, abs)
}

// QuotaText says usage against its limits in a few words: "3 of 5",
// "3 of 5 (hard 10)", "3 (hard 10)", "3 (no limit)"; "? of 5" when the
// server keeps no usage.
func QuotaText(used, soft, hard int64, hasUsage bool) string {
	u := strconv.FormatInt(used, 10)
	if !hasUsage {
		u = "?"
	}
	switch {
	case soft >= 0 && hard >= 0:
		return fmt.Sprintf("%s of %d (hard %d)", u, soft, hard)
	case soft >= 0:
		return fmt.Sprintf("%s of %d", u, soft)
	case hard >= 0:
		return fmt.Sprintf("%s (hard %d)", u, hard)
	}
	return u + " (no limit)"
}
