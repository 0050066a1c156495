package recognize

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// Kazoo's SetPartitioner (kazoo/recipe/partitioner.py) divides a set of
// items among the members of a party. Under its path it keeps:
//
//   - party/: a ShallowParty, one ephemeral <uuid4 hex>-<identifier> per
//     member (the identifier defaults to "<fqdn>-<pid>");
//   - locks/<item>: a Kazoo Lock per item (str(item)), which the member
//     the item falls to takes; the lock directories stay once made.
//
// When the party changes, every member that holds items goes to RELEASE
// and its program must call release_set, which releases every item lock;
// once the party has not changed for time_boundary (30 s by default) each
// member splits the set again (its partition_func; by default the sorted
// items from its place among the sorted identifiers, every n-th) and takes
// the locks of its share, one after the other. A member that does not
// release — frozen, or a program that never calls release_set — keeps
// others from their share: the allocation is stuck in ALLOCATING
// (python-zk/kazoo#392). Which member owns which item is read from the
// item locks' holders: the session of a lock's holder is a member's.
// Which items make up the set is in the members' code: zkx sees the items
// whose lock directory exists.

// AlarmAllocationStuck is the alarm of a partitioner whose item locks
// were not taken again after its party changed.
const AlarmAllocationStuck = "allocation-stuck"

// Partitioner is a recognised Kazoo SetPartitioner.
type Partitioner struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SystemTag
	// Members are the party's members in name order, each with the items
	// its session holds the locks of.
	Members []PartitionMember `json:"members"`
	// Items are the items whose lock directory exists, sorted.
	Items []PartitionItem `json:"items"`
	// Unowned are the items whose lock nobody holds; Idle the identifiers
	// of the members that hold no item.
	Unowned []string `json:"unowned"`
	Idle    []string `json:"idle"`
	// PartyChangedMs is how long ago the party last changed, when zkx can
	// date it: a member joined (its node's creation). A member leaving
	// leaves no date; then it is absent.
	PartyChangedMs *int64 `json:"party_changed_ms,omitempty"`
	// Stuck is set when an item lock taken before the party last changed
	// is still held longer than Options.PartitionSettle after the change.
	Stuck    bool     `json:"stuck,omitempty"`
	Warnings []string `json:"warnings"`
	Alarms   []Alarm  `json:"alarms,omitempty"`
	// PartyChanged is when the party last changed, when known.
	PartyChanged time.Time `json:"-"`
}

// PartitionMember is a member of a partitioner's party.
type PartitionMember struct {
	Contender
	// Identifier is the member's identifier (its name after the first '-').
	Identifier string `json:"identifier"`
	// Items are the items whose lock its session holds.
	Items []string `json:"items"`
}

// PartitionItem is one item of a partitioner's set.
type PartitionItem struct {
	Item string `json:"item"`
	// Owner is the identifier of the member whose session holds the
	// item's lock; "" when nobody holds it or its holder is no member.
	Owner string `json:"owner,omitempty"`
	// Holder is the item lock's holder (nil when free), named as
	// locks/<item>/<node>.
	Holder *Contender `json:"holder,omitempty"`
	// Waiters are the contenders in line for the item's lock: members
	// trying to take their share (each tries for max_reaction_time, 1 s
	// by default, then looks at the party again).
	Waiters int `json:"waiters"`
	// Stale is set when the holder is a member and its node was created
	// before the party last changed: it has not released since, as every
	// member must.
	Stale bool `json:"stale,omitempty"`
}

// recPartitionItems bounds the items of a partitioner that are read.
const recPartitionItems = 1000

// defaultPartitionSettle is Options.PartitionSettle's default: Kazoo's
// time_boundary (30 s) and the time to take the locks, with room.
const defaultPartitionSettle = 2 * time.Minute

// isPartitioner: a SetPartitioner's directory holds party/ and locks/.
func (d listedDir) isPartitioner() bool {
	return d.has("party") && d.has("locks") && d.onlyOf("party", "locks")
}

// partitioner reads a SetPartitioner at d.
func (rc *recognizer) partitioner(ctx context.Context, d listedDir) (Recipe, error) {
	partyDir, locksDir := zkview.ChildPath(d.path, "party"), zkview.ChildPath(d.path, "locks")
	partyNames, partyStat, err := rc.list(ctx, partyDir)
	if err != nil {
		return nil, err
	}
	itemNames, _, err := rc.list(ctx, locksDir)
	if err != nil {
		return nil, err
	}
	party := newListedDir(partyDir, partyStat, partyNames)
	ms, err := rc.readMembers(ctx, partyDir, party.names)
	if err != nil {
		return nil, err
	}
	shown := itemNames[:min(len(itemNames), recPartitionItems)]
	locks, err := rc.itemLocks(ctx, locksDir, shown)
	if err != nil {
		return nil, err
	}
	p := &Partitioner{Path: d.path, Format: recFormatKazoo, Members: []PartitionMember{}, Items: []PartitionItem{}, Unowned: []string{}, Idle: []string{}}
	b := rc.build(d.path)
	bySession := map[int64]int{}
	for _, m := range ms {
		c := b.contender(m, "party/"+m.Name)
		id := m.Name
		if i := strings.IndexByte(m.Name, '-'); i >= 0 {
			id = m.Name[i+1:] // ShallowParty.__iter__
		}
		c.Data = dataText([]byte(id))
		if m.session() == 0 {
			b.warnf("member %s is a persistent node: the party's members are ephemeral, so it stays when its process goes", m.Name)
		} else {
			b.checkConnected(c, "member")
			if c.Silent {
				b.warnf("member %s (session %s) has not been heard from for %v, more than a third of its session timeout: frozen or cut off, it keeps its items and its place in the party until its session expires",
					id, c.Session, roundDuration(*c.LastHeardMs))
			}
		}
		p.Members = append(p.Members, PartitionMember{Contender: c, Identifier: id, Items: []string{}})
	}
	// In the order Kazoo's default partition_func sorts them.
	sort.SliceStable(p.Members, func(i, j int) bool { return p.Members[i].Identifier < p.Members[j].Identifier })
	for i, m := range p.Members {
		if m.SessionID != 0 {
			bySession[m.SessionID] = i
		}
	}
	for i, name := range shown {
		it := PartitionItem{Item: name}
		if l := locks[i]; l != nil {
			it.Waiters = len(l.Waiters)
			if len(l.Holders) > 0 {
				h := l.Holders[0]
				h.Node = "locks/" + name + "/" + h.Node
				it.Holder = &h
				if k, ok := bySession[h.SessionID]; ok && h.SessionID != 0 {
					it.Owner = p.Members[k].Identifier
					p.Members[k].Items = append(p.Members[k].Items, name)
				}
			}
		}
		p.Items = append(p.Items, it)
	}
	if len(itemNames) > len(shown) {
		b.warnf("showing the first %d of %d items", len(shown), len(itemNames))
	}
	b.judgeAllocation(p, partyStat, ms)
	p.Warnings, p.Alarms = b.warn, b.alarms
	return p, nil
}

// itemLocks recognises the lock of each item, in parallel; nil where an
// item's directory holds no lock (free, or gone).
func (rc *recognizer) itemLocks(ctx context.Context, locksDir string, items []string) ([]*Lock, error) {
	out := make([]*Lock, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, item := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := zkview.ChildPath(locksDir, item)
			children, stat, err := rc.list(ctx, dir)
			if err != nil || stat == nil || len(children) == 0 {
				errs[i] = err
				return
			}
			r, err := rc.recognizeLayout(ctx, newListedDir(dir, stat, children), dirHint{})
			if l, ok := r.(*Lock); ok {
				settle(l)
				out[i] = l
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// judgeAllocation says who owns what and whether the allocation is
// stuck: an item lock taken before the party's last change and still
// held past Options.PartitionSettle.
func (b *recipeBuilder) judgeAllocation(p *Partitioner, partyStat *zk.Stat, members []childNode) {
	now, settle := b.rc.opts.Now, b.rc.opts.PartitionSettle
	pzxid := int64(0)
	if partyStat != nil {
		pzxid = partyStat.Pzxid
	}
	for _, it := range p.Items {
		switch {
		case it.Holder == nil:
			p.Unowned = append(p.Unowned, it.Item)
		case it.Owner == "":
			b.warnf("item %s is held by session %s, which is no member of the party: a process that left it, or a lock taken outside the partitioner", it.Item, it.Holder.Session)
		}
	}
	for _, m := range p.Members {
		if len(m.Items) == 0 {
			p.Idle = append(p.Idle, m.Identifier)
		}
	}
	// When the party last changed: a join is dated by the newest member's
	// node; a leave only bounded by the nodes created after it.
	var joined *childNode
	for i := range members {
		if m := &members[i]; m.stat.Czxid == pzxid {
			joined = m
		}
	}
	var changedBefore time.Time // the change is at least this old
	switch {
	case joined != nil && joined.stat.Ctime != 0:
		p.PartyChanged = time.UnixMilli(joined.stat.Ctime)
		ms := max(now.Sub(p.PartyChanged).Milliseconds(), 0)
		p.PartyChangedMs = &ms
		changedBefore = p.PartyChanged
	case pzxid != 0:
		for _, it := range p.Items {
			if h := it.Holder; h != nil && h.Czxid > pzxid && !h.Created.IsZero() && (changedBefore.IsZero() || h.Created.Before(changedBefore)) {
				changedBefore = h.Created
			}
		}
	}
	var stale []string
	for i := range p.Items {
		it := &p.Items[i]
		// A member's lock only: one outside the party is not released
		// when the party changes (it is warned about above).
		if it.Holder != nil && it.Owner != "" && pzxid != 0 && it.Holder.Czxid < pzxid {
			it.Stale = true
			stale = append(stale, it.Item+" (member "+it.Owner+", session "+it.Holder.Session+")")
		}
	}
	change := "the party last changed"
	switch {
	case joined != nil && !p.PartyChanged.IsZero():
		change = fmt.Sprintf("the party last changed at %s (%s joined), %v ago", p.PartyChanged.Format("15:04:05"), p.Members[memberIndex(p, joined.Name)].Identifier, roundDuration(*p.PartyChangedMs))
	case !changedBefore.IsZero():
		change = fmt.Sprintf("the party last changed (a member left) at least %v ago", roundDuration(now.Sub(changedBefore).Milliseconds()))
	case pzxid != 0:
		change = "the party last changed (a member left, at a moment zkx cannot date)"
	}
	if len(stale) > 0 {
		held := "item " + stale[0] + " is still held under a lock taken before it"
		if len(stale) > 1 {
			held = "items " + strings.Join(stale, ", ") + " are still held under locks taken before it"
		}
		what := fmt.Sprintf("%s, and %s: every member releases its item locks when the party changes and takes its share again once the party is stable (time_boundary)", change, held)
		if !changedBefore.IsZero() && now.Sub(changedBefore) > settle {
			p.Stuck = true
			b.alarm(AlarmAllocationStuck, "", "allocation stuck: %s; more than %v on, a member that has not released is frozen or its program does not call release_set, and the others wait for their share (python-zk/kazoo#392)", what, settle)
		} else {
			b.warnf("allocation in progress: %s", what)
		}
	}
	if len(p.Unowned) > 0 && len(p.Members) > 0 {
		text := fmt.Sprintf("%s owned by nobody: %s", plural(len(p.Unowned), "item"), listShort(p.Unowned))
		if len(p.Idle) > 0 {
			text += fmt.Sprintf("; %s with no share: %s", plural(len(p.Idle), "member"), listShort(p.Idle))
		}
		text += " (an allocation not finished, or items no longer in the set: Kazoo leaves their lock directories)"
		b.warnf("%s", text)
	}
}

// memberIndex finds a member by its node's name.
func memberIndex(p *Partitioner, name string) int {
	for i, m := range p.Members {
		if m.Node == "party/"+name {
			return i
		}
	}
	return 0
}

// plural says "1 item", "3 items".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// Info implements Recipe.
func (p *Partitioner) Info() Info {
	return Info{Path: p.Path, Kind: "partitioner", Class: ClassPartition, Format: p.Format, Warnings: p.Warnings, SystemTag: p.SystemTag}
}

// Holding implements Recipe: members hold items, not the partitioner.
func (p *Partitioner) Holding() []Contender { return nil }

// Lineup implements Recipe: the members (their identifiers end their
// node names), each with the items it owns as its data.
func (p *Partitioner) Lineup() []Place {
	out := make([]Place, 0, len(p.Members))
	for _, m := range p.Members {
		c := m.Contender
		c.Data = "owns none"
		if len(m.Items) > 0 {
			c.Data = "owns " + strings.Join(m.Items, ", ")
		}
		out = append(out, Place{Role: RoleMember, Contender: c})
	}
	return out
}

// Dirs implements Recipe: the partitioner, its party, its locks/ and each
// item's lock directory.
func (p *Partitioner) Dirs() []string {
	var d recipeDirs
	d.add(p.Path)
	d.add(zkview.ChildPath(p.Path, "party"))
	locks := zkview.ChildPath(p.Path, "locks")
	d.add(locks)
	items := make([]string, 0, len(p.Items))
	for _, it := range p.Items {
		items = append(items, it.Item)
	}
	sort.Strings(items)
	for _, it := range items {
		d.add(zkview.ChildPath(locks, it))
	}
	return d.list
}

// Emptied implements Recipe.
func (p *Partitioner) Emptied() Recipe {
	return &Partitioner{Path: p.Path, Format: p.Format, SystemTag: p.SystemTag}
}

func (p *Partitioner) addTo(res *Result) { res.Partitions = append(res.Partitions, *p) }

func (p *Partitioner) members() []*Contender {
	var out []*Contender
	for i := range p.Members {
		out = append(out, &p.Members[i].Contender)
	}
	for i := range p.Items {
		if p.Items[i].Holder != nil {
			out = append(out, p.Items[i].Holder)
		}
	}
	return out
}
