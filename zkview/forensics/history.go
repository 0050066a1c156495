package forensics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/internal/txnlog"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// How a holding ended (Holding.Ended).
const (
	// EndedReleased: its node was deleted by its own session.
	EndedReleased = "released"
	// EndedSessionClosed: its session's client closed the session.
	EndedSessionClosed = "session-closed"
	// EndedSessionExpired: the server closed its session (cxid 0: the
	// session expirer's closeSession, ZooKeeperServer.expire).
	EndedSessionExpired = "session-expired"
	// EndedDeletedByOther: another session deleted its node (a
	// force-release); DeletedBy names that session.
	EndedDeletedByOther = "deleted-by-other"
	// EndedHeld: still held when the logs end.
	EndedHeld = "held"
	// EndedSuperseded: its node is still there but the recipe's rule no
	// longer lets it hold (the directory changed shape).
	EndedSuperseded = "superseded"
)

// Holding is one holder of a lock, or one leader of an election, from
// when it held to when it stopped.
type Holding struct {
	Node    string
	Session string
	// Kind is read or write for a read-write lock, lease for a semaphore.
	Kind string
	From time.Time
	// FromZxid is the transaction that made it the holder (its own
	// create, or the delete of the node before it); 0 when it held before
	// the logs begin.
	FromZxid int64
	To       *time.Time
	ToZxid   int64
	// WaitedMs is from its node's creation to when it held; absent when
	// it held before the logs begin.
	WaitedMs *int64
	// HeldMs runs to To, or to the last logged transaction while held.
	HeldMs int64
	Ended  string
	// DeletedBy is the session that deleted the node of a holder that
	// did not end itself (Ended deleted-by-other).
	DeletedBy string
	// HeldBeforeLogs: it already held in the snapshot the history starts
	// from; From is its node's creation, not when it began to hold.
	HeldBeforeLogs bool
}

// Item is one item of a queue: who put it and when, who took it and when.
type Item struct {
	Node    string
	Data    string
	PutBy   string
	PutAt   time.Time
	PutZxid int64
	// PutBeforeLogs: it was in the snapshot the history starts from;
	// PutAt is its node's creation and PutBy unknown.
	PutBeforeLogs bool
	TakenBy       string
	TakenAt       *time.Time
	TakenZxid     int64
}

// History is what happened to one recipe: its holders in turn (locks),
// its leaders (elections) or its items (queues).
type History struct {
	Path   string
	Recipe string
	Format string
	recognize.SystemTag
	Holdings []Holding
	Leaders  []Holding
	Items    []Item
}

// HistoryOptions limit a history.
type HistoryOptions struct {
	// Since and Until keep the holdings and items that overlap them
	// (zero: no limit).
	Since, Until Moment
}

// HistoryResult is the histories of the recipes under a path.
type HistoryResult struct {
	Recipes []History
	// Start is the snapshot the history starts from, End the last
	// transaction replayed.
	Start    string
	EndZxid  int64
	EndTime  time.Time
	Problems Problems
}

// tracker follows one recipe through the replay.
type tracker struct {
	record History
	class  string
	open   map[string]int // node → index of its open holding
	items  map[string]int // node → index of its item, while in the queue
}

// Histories replays the data directory's logs from its oldest readable
// snapshot and tells the history of every recipe at or under root, as
// zkview/recognize sees it after each transaction that touched it.
func Histories(ctx context.Context, arch *Archive, root string, opts HistoryOptions) (HistoryResult, error) {
	var res HistoryResult
	keep := func(p string) bool { return under(p, root) || under(root, p) }
	st := newMemStore()
	info, err := arch.loadOldest(st, keep, &res.Problems)
	if err != nil {
		return res, err
	}
	res.Start = info.file.Path
	res.EndZxid, res.EndTime = info.file.Zxid, time.UnixMilli(info.latest)
	ap := newApplier(st, keep)
	for id, t := range info.sessions {
		ap.sessions[id] = t
	}
	rd := storeReader{st: st}
	trackers := map[string]*tracker{}
	ropts := recognize.Options{Now: time.UnixMilli(info.latest), Concurrency: 1}
	found, err := recognize.Scan(ctx, rd, root, ropts)
	if err != nil && !zkview.IsNoNode(err) {
		return res, err
	}
	for _, r := range found.All() {
		trackerFor(trackers, r.Info().Path).observe(r, nil, st)
	}
	f := txnlog.OpenFiles(arch.logPaths(info.file.Zxid))
	defer f.Close()
	f.SkipUntil(info.file.Zxid)
	last := info.file.Zxid
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		e, err := f.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			res.Problems.add(err)
			continue
		}
		if e.Header.Zxid <= last {
			continue
		}
		last = e.Header.Zxid
		res.EndZxid, res.EndTime = e.Header.Zxid, time.UnixMilli(e.Header.Time)
		s := ap.Apply(e)
		if len(s.Changes) == 0 {
			continue
		}
		ropts.Now = res.EndTime
		for _, dir := range touchedDirs(s, root) {
			r, err := recognize.Dir(ctx, rd, dir, ropts)
			if err != nil && !zkview.IsNoNode(err) {
				return res, err
			}
			key := dir
			if r != nil {
				key = r.Info().Path
			}
			if t := trackers[key]; t != nil || r != nil {
				trackerFor(trackers, key).observe(r, s, st)
			}
		}
	}
	for _, t := range trackers {
		t.finish(res.EndTime)
		if h, ok := t.history(opts); ok {
			res.Recipes = append(res.Recipes, h)
		}
	}
	sort.Slice(res.Recipes, func(i, j int) bool { return res.Recipes[i].Path < res.Recipes[j].Path })
	return res, nil
}

func trackerFor(trackers map[string]*tracker, path string) *tracker {
	t := trackers[path]
	if t == nil {
		t = &tracker{record: History{Path: path}, open: map[string]int{}, items: map[string]int{}}
		trackers[path] = t
	}
	return t
}

// touchedDirs are the directories a step may have changed a recipe in: a
// changed node itself (a recipe held as one node) and its parent, at or
// under root.
func touchedDirs(s *Step, root string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] && under(p, root) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, c := range s.Changes {
		if c.Kind == Updated && !c.DataChanged() {
			continue // a parent's cversion: its child's change is there too
		}
		add(c.Path)
		if c.Path != "/" {
			add(parentOf(c.Path))
		}
	}
	return out
}

// observe takes what the recipe is after a step (nil: no recipe there any
// more; step nil: the start of the logs).
func (t *tracker) observe(r recognize.Recipe, s *Step, st Store) {
	if r != nil {
		info := r.Info()
		if t.class == "" {
			t.class = info.Class
			t.record.Recipe, t.record.Format, t.record.SystemTag = info.Kind, info.Format, info.SystemTag
		}
		if t.record.Format != info.Format && info.Format != "" {
			t.record.Format = info.Format // a mixed directory settles as it fills
		}
	}
	switch t.class {
	case recognize.ClassLock, recognize.ClassElection:
		var holding []recognize.Contender
		if r != nil {
			holding = r.Holding()
		}
		now := map[string]recognize.Contender{}
		for _, c := range holding {
			now[c.Node] = c
		}
		for node, i := range t.open {
			if _, ok := now[node]; !ok {
				t.end(i, node, s, st)
				delete(t.open, node)
			}
		}
		for _, c := range holding {
			if _, ok := t.open[c.Node]; !ok {
				t.start(c, s)
			}
		}
	case recognize.ClassQueue:
		q, _ := r.(*recognize.Queue)
		now := map[string]recognize.QueueItem{}
		if q != nil {
			for _, it := range q.Items {
				now[it.Node] = it
			}
		}
		for node, i := range t.items {
			if _, ok := now[node]; !ok {
				t.take(i, node, s)
				delete(t.items, node)
			}
		}
		if q != nil {
			for _, it := range q.Items {
				if _, ok := t.items[it.Node]; !ok {
					t.put(it, s, st)
				}
			}
		}
	}
}

func (t *tracker) holdings() *[]Holding {
	if t.class == recognize.ClassElection {
		return &t.record.Leaders
	}
	return &t.record.Holdings
}

func (t *tracker) start(c recognize.Contender, s *Step) {
	h := Holding{Node: c.Node, Session: c.Session, Kind: c.Kind}
	if c.Kind == "" && t.record.Recipe == "semaphore" {
		h.Kind = "lease"
	}
	if s == nil {
		h.From, h.HeldBeforeLogs = c.Created.UTC(), true
	} else {
		h.From = time.UnixMilli(s.Entry.Header.Time).UTC()
		h.FromZxid = s.Entry.Header.Zxid
		waited := max(h.From.Sub(c.Created).Milliseconds(), 0)
		h.WaitedMs = &waited
	}
	list := t.holdings()
	*list = append(*list, h)
	t.open[c.Node] = len(*list) - 1
}

// end closes a holding: how is told by the transaction that deleted the
// holder's node.
func (t *tracker) end(i int, node string, s *Step, st Store) {
	h := &(*t.holdings())[i]
	if s == nil {
		return
	}
	hdr := s.Entry.Header
	to := time.UnixMilli(hdr.Time).UTC()
	h.To, h.ToZxid = &to, hdr.Zxid
	h.HeldMs = max(to.Sub(h.From).Milliseconds(), 0)
	path := recognize.ContenderPath(t.record.Path, node)
	for _, c := range s.Changes {
		if c.Kind != Deleted || c.Path != path {
			continue
		}
		owner := Session(c.Before.Stat.EphemeralOwner)
		switch {
		case hdr.Type == txnlog.TypeCloseSession && hdr.Cxid == 0:
			h.Ended = EndedSessionExpired
		case hdr.Type == txnlog.TypeCloseSession:
			h.Ended = EndedSessionClosed
		case hdr.Session == owner && owner != 0:
			h.Ended = EndedReleased
		default:
			h.Ended, h.DeletedBy = EndedDeletedByOther, sessionText(hdr.Session)
		}
		return
	}
	h.Ended = EndedSuperseded
}

// sessionText names a session, "the server" for its own transactions
// (session 0: a container's or TTL node's removal).
func sessionText(id int64) string {
	if id == 0 {
		return "the server"
	}
	return display.Hex(id)
}

func (t *tracker) put(it recognize.QueueItem, s *Step, st Store) {
	item := Item{Node: it.Node, Data: it.Data}
	path := recognize.ContenderPath(t.record.Path, it.Node)
	n, _ := st.Get(path)
	created := false
	if s != nil {
		for _, c := range s.Changes {
			created = created || (c.Kind == Created && c.Path == path)
		}
	}
	if created {
		item.PutAt = time.UnixMilli(s.Entry.Header.Time).UTC()
		item.PutBy, item.PutZxid = sessionText(s.Entry.Header.Session), s.Entry.Header.Zxid
	} else {
		item.PutAt, item.PutBeforeLogs = time.UnixMilli(n.Stat.Ctime).UTC(), s == nil
	}
	t.record.Items = append(t.record.Items, item)
	t.items[it.Node] = len(t.record.Items) - 1
}

func (t *tracker) take(i int, node string, s *Step) {
	if s == nil {
		return
	}
	it := &t.record.Items[i]
	at := time.UnixMilli(s.Entry.Header.Time).UTC()
	it.TakenAt, it.TakenZxid = &at, s.Entry.Header.Zxid
	it.TakenBy = sessionText(s.Entry.Header.Session)
}

// finish marks what is still held at the end of the logs.
func (t *tracker) finish(end time.Time) {
	list := *t.holdings()
	for _, i := range t.open {
		list[i].Ended = EndedHeld
		list[i].HeldMs = max(end.Sub(list[i].From).Milliseconds(), 0)
	}
}

// history is the tracker's story within opts, ok false when nothing is
// left to tell.
func (t *tracker) history(opts HistoryOptions) (History, bool) {
	h := t.record
	overlaps := func(from time.Time, fromZxid int64, to *time.Time, toZxid int64) bool {
		if !opts.Since.IsZero() && to != nil && !endsAfter(*to, toZxid, opts.Since) {
			return false
		}
		if !opts.Until.IsZero() && startsAfter(from, fromZxid, opts.Until) {
			return false
		}
		return true
	}
	filter := func(in []Holding) []Holding {
		var out []Holding
		for _, x := range in {
			if overlaps(x.From, x.FromZxid, x.To, x.ToZxid) {
				out = append(out, x)
			}
		}
		return out
	}
	h.Holdings, h.Leaders = filter(h.Holdings), filter(h.Leaders)
	var items []Item
	for _, it := range h.Items {
		if overlaps(it.PutAt, it.PutZxid, it.TakenAt, it.TakenZxid) {
			items = append(items, it)
		}
	}
	h.Items = items
	return h, len(h.Holdings)+len(h.Leaders)+len(h.Items) > 0
}

// endsAfter reports whether an end (a time, and its zxid) comes at or
// after m.
func endsAfter(at time.Time, zxid int64, m Moment) bool {
	if m.Zxid != 0 {
		return zxid >= m.Zxid
	}
	return !at.Before(m.Time)
}

// startsAfter reports whether a start comes after m; a start before the
// logs (zxid 0) comes after no moment named by a zxid.
func startsAfter(at time.Time, zxid int64, m Moment) bool {
	if m.Zxid != 0 {
		return zxid > m.Zxid
	}
	return at.After(m.Time)
}

// loadOldest loads the oldest readable snapshot, the start of a history.
func (a *Archive) loadOldest(st Store, keep func(string) bool, problems *Problems) (snapshotInfo, error) {
	for _, f := range a.Dir.Snapshots {
		info, err := loadSnapshot(st, f, keep, problems)
		if err == nil {
			return info, nil
		}
		problems.add(fmt.Errorf("snapshot skipped: %w", err))
	}
	if len(a.Dir.Snapshots) == 0 {
		return snapshotInfo{}, fmt.Errorf("%s has no snapshot: a history starts from one", a.Dir.Path)
	}
	return snapshotInfo{}, fmt.Errorf("no snapshot of %s could be read", a.Dir.Path)
}
