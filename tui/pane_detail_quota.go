package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// The Stat tab of a node under a quota shows the quota: where it is set,
// its limits and the usage the server counts (ZooKeeper's
// /zookeeper/quota/<path>/zookeeper_limits and zookeeper_stats). Read when
// the tab shows a node and on ctrl+r; the usage moves with every write
// below the quota's root, which no watch of the node tells.

// quotaMsg is the quota covering a node (nil: none).
type quotaMsg struct {
	path  string
	quota *zkview.Quota
	err   error
}

// readQuota reads the quota covering the pane's node.
func (d *detailPane) readQuota() tea.Cmd {
	c, ctx, p := d.shared.Client, d.shared.Ctx, d.path
	if c == nil || p == "" {
		return nil
	}
	return withTimeout(ctx, requestTimeout, func(ctx context.Context) tea.Msg {
		q, err := c.QuotaFor(ctx, p)
		return quotaMsg{path: p, quota: q, err: err}
	})
}

// quotaFields are the Stat tab's quota rows.
func (d *detailPane) quotaFields() []zkview.Field {
	if d.quotaFor != d.path {
		return []zkview.Field{{Name: "quota", Value: d.shared.Styles.Dim.Render("reading…")}}
	}
	st := d.shared.Styles
	switch q := d.quota; {
	case d.quotaErr != nil:
		return []zkview.Field{{Name: "quota", Value: st.Error.Render(firstLine(d.quotaErr.Error()))}}
	case q == nil:
		return []zkview.Field{{Name: "quota", Value: st.Dim.Render("none")}}
	case q.Err != nil:
		return []zkview.Field{{Name: "quota", Value: "on " + display.Line(q.Path) + ": " + st.Error.Render(firstLine(q.Err.Error()))}}
	default:
		where := "on " + display.Line(q.Path)
		if q.Path == d.path {
			where = "on this node"
		}
		fields := []zkview.Field{
			{Name: "quota", Value: where},
			{Name: "quota nodes", Value: zkview.QuotaText(q.Usage.Count, q.Limits.Count, q.Limits.CountHard, q.HasUsage)},
			{Name: "quota bytes", Value: zkview.QuotaText(q.Usage.Bytes, q.Limits.Bytes, q.Limits.BytesHard, q.HasUsage)},
		}
		if over := q.Exceeded(); len(over) > 0 {
			fields = append(fields, zkview.Field{Name: "quota over", Value: st.Warning.Render(strings.Join(over, ", "))})
		}
		return fields
	}
}
