package recognize

import (
	"context"
	"sort"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/decode"
)

const (
	// recQueueItems bounds the items of a queue that are read and listed;
	// Length still counts them all.
	recQueueItems = 1000
	// recQueueDataWidth bounds an item's data summary, in runes.
	recQueueDataWidth = 200
)

// sortQueue puts items in the order they are taken: Curator's
// DistributedQueue sorts names as strings, which is its priority (or delay,
// or id) part and then the sequence; Kazoo's queues sort names as strings,
// which is the 3-digit priority and then the sequence; ZooKeeper's
// DistributedQueue (and Curator's SimpleDistributedQueue, zkx's Queue)
// takes the lowest sequence number first.
func sortQueue(items []childName) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		switch {
		case a.Kind == kindKazooEntry && a.Priority != b.Priority:
			return a.Priority < b.Priority
		case a.Kind == kindCuratorQueue && a.ID != b.ID:
			return a.ID < b.ID
		case a.Seq != b.Seq:
			return a.Seq < b.Seq
		}
		return a.Name < b.Name
	})
}

// queueData shows an item's data in one line, decoded as Summary decodes
// (Curator's item sets, text, JSON, numbers).
func queueData(data []byte) string { return decode.Summary(data, recQueueDataWidth) }

// queue builds a queue of persistent sequential items: Curator's
// DistributedQueue "queue-SEQ" (and its priority variant), Kazoo's Queue
// "entry-NNN-SEQ", ZooKeeper's DistributedQueue "qn-SEQ".
func (rc *recognizer) queue(ctx context.Context, d listedDir, fam layoutFamily, members, foreign []childName) (Recipe, error) {
	sortQueue(members)
	shown := members[:min(len(members), recQueueItems)]
	ms, err := rc.readMembers(ctx, d.path, shown)
	if err != nil {
		return nil, err
	}
	q := &Queue{Path: d.path, Format: familyTable[fam].format, Length: len(members), Items: []QueueItem{}}
	for _, m := range ms {
		q.Items = append(q.Items, queueItem(m, m.Name))
	}
	b := rc.build(d.path)
	if len(members) > len(shown) {
		b.warnf("showing the first %d of %d items", len(shown), len(members))
	}
	b.checkForeign(foreign, "", q.Format+" queue")
	b.checkWrap(members, "")
	q.Warnings = b.warn
	return q, nil
}

func queueItem(m childNode, node string) QueueItem {
	it := QueueItem{Node: node, Data: queueData(m.data)}
	if m.HasPriority {
		p := m.Priority
		it.Priority = &p
	}
	return it
}

// lockingQueue reads a Kazoo LockingQueue: items "entry-NNN-SEQ" in
// <p>/entries, and for each item a consumer has taken but not consumed an
// ephemeral <p>/taken/<item name> holding the consumer's id. Items are
// named "entries/<name>".
func (rc *recognizer) lockingQueue(ctx context.Context, d listedDir) (Recipe, error) {
	entriesDir, takenDir := zkview.ChildPath(d.path, "entries"), zkview.ChildPath(d.path, "taken")
	entries, _, err := rc.list(ctx, entriesDir)
	if err != nil {
		return nil, err
	}
	taken, _, err := rc.list(ctx, takenDir)
	if err != nil {
		return nil, err
	}
	var items, foreign []childName
	for _, n := range newListedDir(entriesDir, nil, entries).names {
		if n.Kind == kindKazooEntry {
			items = append(items, n)
		} else {
			n.Name = "entries/" + n.Name
			foreign = append(foreign, n)
		}
	}
	sortQueue(items)
	shown := items[:min(len(items), recQueueItems)]
	ms, err := rc.readMembers(ctx, entriesDir, shown)
	if err != nil {
		return nil, err
	}
	isTaken := map[string]bool{}
	for _, t := range taken {
		isTaken[t] = true
	}
	q := &Queue{Path: d.path, Format: recFormatKazoo, Length: len(items), Items: []QueueItem{}}
	for _, m := range ms {
		it := queueItem(m, "entries/"+m.Name)
		it.Taken = isTaken[m.Name]
		q.Items = append(q.Items, it)
	}
	b := rc.build(d.path)
	if len(items) > len(shown) {
		b.warnf("showing the first %d of %d items", len(shown), len(items))
	}
	listed := map[string]bool{}
	for _, n := range entries {
		listed[n] = true
	}
	for _, t := range taken {
		if !listed[t] {
			b.warnf("taken/%s marks no item: the entry was consumed or never existed", t)
		}
	}
	if rc.opts.Tables != nil && len(taken) > 0 {
		// Consumers that hold items without a live connection.
		names := make([]childName, len(taken))
		for i, t := range taken {
			names[i] = childName{Name: t}
		}
		marks, err := rc.readMembers(ctx, takenDir, names)
		if err != nil {
			return nil, err
		}
		for _, m := range marks {
			b.checkConnected(b.contender(m, "taken/"+m.Name), "consumer")
		}
	}
	b.checkForeign(foreign, "", "kazoo locking queue")
	b.checkWrap(items, "entries/")
	q.Warnings = b.warn
	return q, nil
}
