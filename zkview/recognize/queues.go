package recognize

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

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

// The kinds of a Curator queue, by its items' names (Queue.Kind): a
// DistributedPriorityQueue's "queue-" + priority + SEQ, a
// DistributedDelayQueue's "queue-|<due epoch ms, %08X>|SEQ"
// (DistributedDelayQueue.epochToString), a DistributedIdQueue's
// "queue-|<id>|SEQ" (DistributedIdQueue.makeIdPath), and the lockPath of a
// DistributedQueue with guaranteed delivery, which holds an ephemeral node
// named as each item being processed (DistributedQueue
// .processWithLockSafety). A plain queue has none.
const (
	QueueKindPriority = "priority"
	QueueKindDelay    = "delay"
	QueueKindID       = "id"
	QueueKindLockPath = "lock-path"
)

// delayEpochs bound what a delay queue's due time may be (the years 2000
// to 2200, in ms): a "|…|" of hex digits outside them is an id.
const (
	delayEpochMin = 946684800000
	delayEpochMax = 7258118400000
)

// curatorDelay reads a delay queue item's due time from the part between
// the bars; ok is false for an id.
func curatorDelay(id string) (time.Time, bool) {
	if len(id) < 10 || id[0] != '|' || id[len(id)-1] != '|' {
		return time.Time{}, false
	}
	hex := id[1 : len(id)-1]
	if len(hex) < 8 || len(hex) > 16 || strings.ToUpper(hex) != hex {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(hex, 16, 64)
	if err != nil || ms < delayEpochMin || ms > delayEpochMax {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// curatorID reads a DistributedIdQueue item's id ("" when none).
func curatorID(id string) string {
	if len(id) < 2 || id[0] != '|' || id[len(id)-1] != '|' {
		return ""
	}
	if _, delay := curatorDelay(id); delay {
		return ""
	}
	return id[1 : len(id)-1]
}

// curatorQueueKind says what kind of Curator queue the items make: the
// kind most of them have.
func curatorQueueKind(items []childName) string {
	counts := map[string]int{}
	for _, it := range items {
		switch _, delay := curatorDelay(it.ID); {
		case it.Kind != kindCuratorQueue:
		case it.HasPriority:
			counts[QueueKindPriority]++
		case delay:
			counts[QueueKindDelay]++
		case curatorID(it.ID) != "":
			counts[QueueKindID]++
		}
	}
	kind, most := "", 0
	for _, k := range []string{QueueKindPriority, QueueKindDelay, QueueKindID} {
		if counts[k] > most {
			kind, most = k, counts[k]
		}
	}
	return kind
}

// sortQueue puts items in the order they are taken: Curator's
// DistributedQueue sorts names as strings (Collections.sort), which is its
// priority part and then the sequence; its DistributedDelayQueue by due
// time; its DistributedIdQueue by the name without its id (the sequence);
// Kazoo's queues sort names as strings, which is the 3-digit priority and
// then the sequence; ZooKeeper's DistributedQueue (and Curator's
// SimpleDistributedQueue, zkx's Queue) takes the lowest sequence number
// first.
func sortQueue(items []childName) {
	kind := curatorQueueKind(items)
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		switch {
		case a.Kind == kindKazooEntry && a.Priority != b.Priority:
			return a.Priority < b.Priority
		case a.Kind == kindCuratorQueue && kind == QueueKindDelay:
			da, _ := curatorDelay(a.ID)
			db, _ := curatorDelay(b.ID)
			if !da.Equal(db) {
				return da.Before(db)
			}
		case a.Kind == kindCuratorQueue && kind == QueueKindID:
		case a.Kind == kindCuratorQueue && a.ID != b.ID:
			return a.ID < b.ID
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Name < b.Name
	})
}

// queueData shows an item's data in one line, decoded as Summary decodes
// (Curator's item sets, text, JSON, numbers).
func queueData(data []byte) string { return decode.Summary(data, recQueueDataWidth) }

// queue builds a queue of persistent sequential items: Curator's
// DistributedQueue "queue-SEQ" (and its priority, delay and id variants),
// Kazoo's Queue "entry-NNN-SEQ", ZooKeeper's DistributedQueue "qn-SEQ". A
// directory of Curator item names that are ephemeral is a lockPath: the
// items in flight (see inFlightDir).
func (rc *recognizer) queue(ctx context.Context, d listedDir, h dirHint, fam layoutFamily, members, foreign []childName) (Recipe, error) {
	sortQueue(members)
	shown := members[:min(len(members), recQueueItems)]
	ms, err := rc.readMembers(ctx, d.path, shown)
	if err != nil {
		return nil, err
	}
	if fam == familyCuratorQueue && len(ms) > 0 && allEphemeral(ms) {
		return rc.inFlightDir(ctx, d, ms, foreign)
	}
	q := &Queue{Path: d.path, Format: familyTable[fam].format, Length: len(members), Items: []QueueItem{}}
	if fam == familyCuratorQueue {
		q.Kind = curatorQueueKind(members)
	}
	b := rc.build(d.path)
	for _, m := range ms {
		q.Items = append(q.Items, b.queueItem(m, m.Name))
	}
	if len(members) > len(shown) {
		b.warnf("showing the first %d of %d items", len(shown), len(members))
	}
	if fam == familyCuratorQueue {
		if err := rc.findLockPath(ctx, b, q, h); err != nil {
			return nil, err
		}
	}
	if err := rc.oldest(ctx, b, q, d.path, members, ms); err != nil {
		return nil, err
	}
	b.checkForeign(foreign, "", q.Format+" queue")
	b.checkWrap(members, "")
	b.judgeQueue(q)
	q.Warnings, q.Alarms = b.warn, b.alarms
	return q, nil
}

// allEphemeral reports whether every node is ephemeral.
func allEphemeral(ms []childNode) bool {
	for _, m := range ms {
		if m.session() == 0 {
			return false
		}
	}
	return true
}

// queueItem is an item as read: its data, priority, age, and for
// Curator's delay and id queues its due time or id.
func (b *recipeBuilder) queueItem(m childNode, node string) QueueItem {
	it := QueueItem{Node: node, Data: queueData(m.data)}
	if m.HasPriority {
		p := m.Priority
		it.Priority = &p
	}
	if m.stat.Ctime != 0 {
		it.Created = time.UnixMilli(m.stat.Ctime)
		it.AgeMs = max(b.rc.opts.Now.Sub(it.Created).Milliseconds(), 0)
	}
	if m.Kind == kindCuratorQueue {
		if due, ok := curatorDelay(m.ID); ok {
			it.Due = due
			in := due.Sub(b.rc.opts.Now).Milliseconds()
			it.DueInMs = &in
		} else {
			it.ID = curatorID(m.ID)
		}
	}
	return it
}

// oldest finds the queue's oldest item, the one with the lowest sequence
// number (the server numbers a directory's children in one growing
// sequence), reading it when it is not among those read.
func (rc *recognizer) oldest(ctx context.Context, b *recipeBuilder, q *Queue, dir string, members []childName, read []childNode) error {
	if len(members) == 0 {
		return nil
	}
	low := members[0]
	for _, m := range members[1:] {
		if m.Seq < low.Seq {
			low = m
		}
	}
	var created time.Time
	for _, m := range read {
		if m.Name == low.Name {
			created = time.UnixMilli(m.stat.Ctime)
		}
	}
	if created.IsZero() {
		_, stat, err := rc.get(ctx, zkview.ChildPath(dir, low.Name))
		if err != nil || stat == nil {
			return err
		}
		created = time.UnixMilli(stat.Ctime)
	}
	q.Oldest = created
	ms := max(b.rc.opts.Now.Sub(created).Milliseconds(), 0)
	q.OldestAgeMs = &ms
	return nil
}

// lockingQueue reads a Kazoo LockingQueue: items "entry-NNN-SEQ" in
// <p>/entries, and for each item a consumer has taken but not consumed an
// ephemeral <p>/taken/<item name> holding the consumer's id. Items are
// named "entries/<name>"; a taken item is in flight, its consumer the
// taken node's session.
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
	names := make([]childName, len(taken))
	for i, t := range taken {
		names[i] = childName{Name: t}
	}
	marks, err := rc.readMembers(ctx, takenDir, names)
	if err != nil {
		return nil, err
	}
	b := rc.build(d.path)
	consumers := map[string]*Contender{}
	for _, m := range marks {
		c := b.contender(m, "taken/"+m.Name)
		consumers[m.Name] = &c
	}
	q := &Queue{Path: d.path, Format: recFormatKazoo, Length: len(items), Items: []QueueItem{}}
	for _, m := range ms {
		it := b.queueItem(m, "entries/"+m.Name)
		if c, ok := consumers[m.Name]; ok {
			it.Taken, it.InFlight, it.Consumer = true, true, c
		}
		q.Items = append(q.Items, it)
	}
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
	if err := rc.oldest(ctx, b, q, entriesDir, items, ms); err != nil {
		return nil, err
	}
	b.checkForeign(foreign, "", "kazoo locking queue")
	b.checkWrap(items, "entries/")
	b.judgeQueue(q)
	q.Warnings, q.Alarms = b.warn, b.alarms
	return q, nil
}
