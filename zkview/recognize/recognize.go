package recognize

import (
	"context"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
)

// ServerTables answers what the servers' tables say about sessions: the
// connection list (cons) and the watch tables (wchc / wchp). Every answer
// may be "not known" (the server refused the four-letter word, or the
// table was not read); recognisers then fall back to what the protocol
// implies. Paths are as the Reader names them (under the chroot).
type ServerTables interface {
	// ClientAddress returns the client address ("127.0.0.1:51234") of a
	// session's connection, from cons.
	ClientAddress(session int64) (addr string, ok bool)
	// Connected reports whether any server lists a live connection of the
	// session.
	Connected(session int64) (connected, known bool)
	// Watches reports whether the session holds a data watch (getData or
	// exists) on path, as ZooKeeper 3.8's wchc / wchp list them.
	Watches(session int64, path string) (watching, known bool)
	// Watchers returns the sessions holding a data watch on path; known is
	// whether the list is complete (every member's watch table was read).
	Watchers(path string) (sessions []int64, known bool)
	// LastHeard says when a server last answered the session (cons lresp,
	// the AdminServer's last_response_time) and when it expires at the
	// latest if silent; ok is false when the tables do not say.
	LastHeard(session int64) (l zkview.Liveness, ok bool)
}

// Options tunes Dir and Scan.
type Options struct {
	// Tables, when not nil, gives client addresses, live connections and
	// observed watches. Without it Client is empty, every Watch is
	// "inferred" and there are no connection diagnostics.
	Tables ServerTables
	// Now is the time held and waiting times are measured to (zero:
	// time.Now()).
	Now time.Time
	// HeldTooLong is how long a holder may hold before a warning (default
	// 10 minutes).
	HeldTooLong time.Duration
	// Holds, when set, remembers across recognitions when holders began
	// to hold (see HoldClock); without it a holder's start is known only
	// when nothing changed in its directory since it was created.
	Holds *HoldClock
	// Viewer is the session of the program looking (the explorer's own),
	// whose watches on the nodes it shows are not a contender's: it is
	// left out of the sessions watching a lock held as one node.
	Viewer int64
	// Concurrency bounds the reads in flight (default 64), and in Scan the
	// listings of the walk as well.
	Concurrency int
	// PartitionSettle is how long after its party changed a Kazoo
	// SetPartitioner may take to take its item locks again before it is
	// stuck (default 2 minutes: Kazoo's time_boundary is 30 s).
	PartitionSettle time.Duration
	// QueueStale is how long a queue's oldest due item may wait before the
	// queue is stale (default 10 minutes).
	QueueStale time.Duration
	// SemaphoreMax says, by a semaphore's path, where its maximum is read
	// from when Curator does not store it (see SemaphoreMax).
	SemaphoreMax map[string]SemaphoreMax
	// Visit, when set, is called by Scan with every node the walk lists,
	// in walk order from one goroutine, before the node is recognised: a
	// viewer counts them to show progress, and keeps directories' stats to
	// tell later whether their children changed since (Pzxid). It must be
	// quick, and must not keep n.Children. Dir ignores it.
	Visit func(n zkview.WalkNode)
}

func (o Options) withDefaults() Options {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.HeldTooLong <= 0 {
		o.HeldTooLong = 10 * time.Minute
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 64
	}
	if o.PartitionSettle <= 0 {
		o.PartitionSettle = defaultPartitionSettle
	}
	if o.QueueStale <= 0 {
		o.QueueStale = defaultQueueStale
	}
	return o
}

// ResultOf makes a Result (its lists empty, not nil) of one recipe Dir
// returned (nil: none).
func ResultOf(r Recipe) Result {
	res := emptyResult()
	if r != nil {
		r.addTo(&res)
	}
	return res
}

// Dir classifies one directory and returns what it is — a *Lock
// (mutex, read-write lock or semaphore), an *Election, a *Queue or a
// *Barrier — or nil when it is none of them. The formats are those of
// docs/recipes.md: Curator, Kazoo, ZooKeeper's own recipes, go-zookeeper, zkx and
// the plain layouts of tutorials, with a generic fallback for any
// directory of ephemeral sequential children.
//
// Contenders are in queue order (by sequence number, as the server writes
// it: %010d of a signed 32-bit counter, negative after a wrap). Holders
// and the leader are those the format's protocol lets in; each waiter's
// WaitsFor is the node that protocol has it watch: its predecessor in a
// mutex, an election or for a writer; for a reader the lowest writer ahead
// (Curator) or the nearest (Kazoo, the ZooKeeper recipe); "leases" (a
// child watch) for a semaphore waiter that holds the semaphore's lock.
// Node and WaitsFor are relative to the recipe's path (see ContenderPath).
// Children of another layout are reported in Warnings, with sessions that
// have no live connection, holders past opts.HeldTooLong, sessions owning
// several nodes, missing watches and sequence numbers near the wrap.
//
// A component of a recipe is recognised as the recipe: the locks/ or
// leases/ of a Curator semaphore, the entries/ or taken/ of a Kazoo
// LockingQueue, the "-__lock__" sibling of a Kazoo semaphore. A leaf node
// whose name contains "barrier" is a Curator DistributedBarrier (set while
// the node exists). Curator's LeaderSelector and Kazoo's Election are
// mutexes underneath, and are recognised as mutexes (see LockAsElection).
func Dir(ctx context.Context, rd zkview.Reader, dir string, opts Options) (Recipe, error) {
	rc := newRecognizer(rd, opts)
	children, stat, err := rd.Children(ctx, dir)
	if err != nil {
		return nil, err
	}
	r, err := rc.recognizePath(ctx, dir, stat, children, true)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// LockAsElection shows a mutex as the election it may be: Curator's
// LeaderSelector and Kazoo's Election are mutexes underneath (the holder
// leads), so they are recognised as locks.
func LockAsElection(l Lock) Election {
	e := Election{Path: l.Path, Format: l.Format, Candidates: append([]Contender{}, l.Waiters...), Warnings: append([]string{}, l.Warnings...)}
	if len(l.Holders) > 0 {
		leader := l.Holders[0]
		e.Leader = &leader
	}
	return e
}

// ContenderPath resolves a Contender's Node or WaitsFor against the path of
// the recipe it belongs to: names are relative to it ("_c_…-lock-0000000003",
// "leases/_c_…-lease-0000000001"), except the nodes of a Kazoo semaphore's
// lock directory, which sits beside the semaphore and is named by its
// absolute path.
func ContenderPath(recipePath, node string) string {
	if strings.HasPrefix(node, "/") {
		return node
	}
	return zkview.ChildPath(recipePath, node)
}

// recognizer reads and classifies directories with bounded concurrency.
type recognizer struct {
	reader zkview.Reader
	opts   Options
	reads  chan struct{} // a token per read in flight
}

func newRecognizer(r zkview.Reader, opts Options) *recognizer {
	opts = opts.withDefaults()
	return &recognizer{reader: r, opts: opts, reads: make(chan struct{}, opts.Concurrency)}
}

func (rc *recognizer) acquire(ctx context.Context) error {
	select {
	case rc.reads <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (rc *recognizer) release() { <-rc.reads }

// list lists a directory; a missing one has no children.
func (rc *recognizer) list(ctx context.Context, dir string) ([]string, *zk.Stat, error) {
	if err := rc.acquire(ctx); err != nil {
		return nil, nil, err
	}
	defer rc.release()
	children, stat, err := rc.reader.Children(ctx, dir)
	if zkview.IsNoNode(err) {
		return nil, nil, nil
	}
	sort.Strings(children)
	return children, stat, err
}

// get reads a node; a missing one is (nil, nil, nil).
func (rc *recognizer) get(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	if err := rc.acquire(ctx); err != nil {
		return nil, nil, err
	}
	defer rc.release()
	data, stat, err := rc.reader.Get(ctx, p)
	if zkview.IsNoNode(err) {
		return nil, nil, nil
	}
	return data, stat, err
}

// childNode is a child that was read.
type childNode struct {
	childName
	data []byte
	stat *zk.Stat
}

func (m childNode) session() int64 { return m.stat.EphemeralOwner }

// readMembers reads children of dir in parallel, keeping their order and
// leaving out those gone since the listing.
func (rc *recognizer) readMembers(ctx context.Context, dir string, names []childName) ([]childNode, error) {
	out := make([]childNode, len(names))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for i, n := range names {
		if err := rc.acquire(ctx); err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rc.release()
			data, stat, err := rc.reader.Get(ctx, zkview.ChildPath(dir, n.Name))
			switch {
			case zkview.IsNoNode(err):
			case err != nil:
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			default:
				out[i] = childNode{childName: n, data: data, stat: stat}
			}
		}()
	}
	wg.Wait()
	kept := out[:0]
	for _, m := range out {
		if m.stat != nil {
			kept = append(kept, m)
		}
	}
	return kept, firstErr
}

// listedDir is a listed directory, its children's names parsed.
type listedDir struct {
	path  string
	stat  *zk.Stat
	names []childName // sorted by name
}

func newListedDir(dir string, stat *zk.Stat, children []string) listedDir {
	d := listedDir{path: dir, stat: stat, names: make([]childName, len(children))}
	sorted := sort.StringsAreSorted(children)
	for i, c := range children {
		d.names[i] = parseChildName(c)
	}
	if !sorted {
		sort.Slice(d.names, func(i, j int) bool { return d.names[i].Name < d.names[j].Name })
	}
	return d
}

func (d listedDir) has(name string) bool {
	i := sort.Search(len(d.names), func(i int) bool { return d.names[i].Name >= name })
	return i < len(d.names) && d.names[i].Name == name
}

// onlyOf reports whether every child is one of names.
func (d listedDir) onlyOf(names ...string) bool {
	for _, n := range d.names {
		ok := false
		for _, want := range names {
			ok = ok || n.Name == want
		}
		if !ok {
			return false
		}
	}
	return true
}

// isCuratorSemaphore: SemaphoreV2's directory holds leases/ and locks/.
func (d listedDir) isCuratorSemaphore() bool { return d.has("leases") && d.onlyOf("leases", "locks") }

// isMixedSemaphore: a Curator SemaphoreV2's leases/ (and locks/) beside
// Kazoo Semaphore leases (hex names) in one directory: both libraries took
// the same path for a semaphore.
func (d listedDir) isMixedSemaphore() bool {
	if !d.has("leases") {
		return false
	}
	hex := false
	for _, n := range d.names {
		switch {
		case n.Kind == kindHexMember:
			hex = true
		case n.Name != "leases" && n.Name != "locks":
			return false
		}
	}
	return hex
}

// isLockingQueue: Kazoo's LockingQueue holds entries/ and taken/.
func (d listedDir) isLockingQueue() bool {
	return d.has("entries") && d.has("taken") && d.onlyOf("entries", "taken")
}

// allHex: no children, or only Kazoo-style hex names (a Kazoo semaphore's
// leases).
func (d listedDir) allHex() bool {
	for _, n := range d.names {
		if n.Kind != kindHexMember {
			return false
		}
	}
	return true
}

// chooseFamily picks the family with the most members among the children
// (the generic family only when no other has any).
func (d listedDir) chooseFamily() layoutFamily {
	counts := map[layoutFamily]int{}
	seq := false
	for _, n := range d.names {
		counts[n.family()]++
		seq = seq || n.HasSeq
	}
	best, most := familyNone, 0
	for _, f := range familyOrder {
		if counts[f] > most {
			best, most = f, counts[f]
		}
	}
	if best == familyNone && seq {
		best = familyGeneric
	}
	return best
}

// walkLeaves reports whether a walk need not list d's children: they are
// all members of recipes whose nodes never have children, or components a
// recogniser lists itself.
func (d listedDir) walkLeaves() bool {
	if len(d.names) == 0 {
		return false
	}
	if d.isCuratorSemaphore() || d.isMixedSemaphore() || d.isLockingQueue() {
		return true
	}
	for _, n := range d.names {
		f := n.family()
		if f == familyNone || !familyTable[f].leaves {
			return false
		}
	}
	return true
}

// candidate reports whether d may be a recipe at all, by names alone.
func (d listedDir) candidate() bool {
	if len(d.names) == 0 {
		return isBarrierName(d.path) || isEphemeralNodeCandidate(d) || isCounterCandidate(d) || systemCandidate(d)
	}
	for _, n := range d.names {
		if n.Kind != kindForeign {
			return true
		}
	}
	return d.isMultiLeaseCandidate() || systemCandidate(d)
}

func isBarrierName(p string) bool {
	return strings.Contains(strings.ToLower(path.Base(p)), "barrier")
}

// dirHint is what the directory's surroundings say.
type dirHint struct {
	kazooSemaphore bool // a sibling "<path>-__lock__" exists
	// siblings, when siblingsKnown, are the directory's siblings whose
	// names a convention looks for (a semaphore's SharedCount, a queue's
	// lockPath), from the parent's listing a walk already read.
	siblings      []string
	siblingsKnown bool
}

// conventionSiblings are the siblings of child, among the sorted names of
// its parent, that a naming convention looks for (see dirHint).
func conventionSiblings(children []string, child string) []string {
	var out []string
	for _, suffixes := range [][]string{semaphoreMaxSuffixes, lockPathNames} {
		for _, s := range suffixes {
			if containsSorted(children, child+s) {
				out = append(out, child+s)
			}
		}
	}
	for _, s := range lockPathShared {
		if containsSorted(children, s) {
			out = append(out, s)
		}
	}
	return out
}

// siblingsOf are dir's siblings a convention looks for: from the hint
// when the walk gave them, else from a listing of the parent.
func (rc *recognizer) siblingsOf(ctx context.Context, dir string, h dirHint) ([]string, error) {
	if h.siblingsKnown {
		return h.siblings, nil
	}
	siblings, _, err := rc.list(ctx, path.Dir(dir))
	return siblings, err
}

const kazooSemaphoreLock = "-__lock__"

// recognizePath classifies a listed directory, first looking around it:
// with redirect, a component of a recipe is recognised as the recipe.
func (rc *recognizer) recognizePath(ctx context.Context, dir string, stat *zk.Stat, children []string, redirect bool) (Recipe, error) {
	r, err := rc.recognizePathRaw(ctx, dir, stat, children, redirect)
	if q, ok := r.(*Queue); ok && err == nil && redirect && q.Kind == QueueKindLockPath {
		// A lockPath: the queue its items belong to.
		var found *Queue
		if found, err = rc.queueOfLockPath(ctx, q); found != nil {
			r = found
		}
	}
	if err == nil {
		err = rc.judge(ctx, r, dirHint{})
	}
	if r != nil {
		settle(r)
	}
	return r, err
}

func (rc *recognizer) recognizePathRaw(ctx context.Context, dir string, stat *zk.Stat, children []string, redirect bool) (Recipe, error) {
	d := newListedDir(dir, stat, children)
	if redirect && dir != "/" {
		parent, base := path.Dir(dir), path.Base(dir)
		if r, ok, err := rc.componentOf(ctx, dir, d); ok || err != nil {
			return r, err
		}
		switch {
		case base == "locks" || base == "leases" || base == "entries" || base == "taken":
			pc, ps, err := rc.list(ctx, parent)
			if err != nil {
				return nil, err
			}
			pd := newListedDir(parent, ps, pc)
			if pd.isPartitioner() {
				return rc.partitioner(ctx, pd)
			}
			if pd.isMixedSemaphore() {
				return rc.mixedSemaphore(ctx, pd)
			}
			if pd.isCuratorSemaphore() {
				return rc.curatorSemaphore(ctx, pd)
			}
			if pd.isLockingQueue() {
				return rc.lockingQueue(ctx, pd)
			}
		case strings.HasSuffix(base, kazooSemaphoreLock) && len(base) > len(kazooSemaphoreLock):
			sem := strings.TrimSuffix(dir, kazooSemaphoreLock)
			sc, ss, err := rc.list(ctx, sem)
			if err != nil {
				return nil, err
			}
			if ss != nil {
				if sd := newListedDir(sem, ss, sc); sd.isMixedSemaphore() {
					return rc.mixedSemaphore(ctx, sd)
				}
				return rc.kazooSemaphore(ctx, newListedDir(sem, ss, sc))
			}
		}
	}
	var h dirHint
	if d.allHex() && dir != "/" {
		_, s, err := rc.get(ctx, dir+kazooSemaphoreLock)
		if err != nil {
			return nil, err
		}
		h.kazooSemaphore = s != nil
	}
	return rc.recognize(ctx, d, h)
}

// recognize classifies a listed directory: as a known system's node
// first (system.go), else as a recipe of a library's layout, which the
// path may still say whose it is (tagByPath).
func (rc *recognizer) recognize(ctx context.Context, d listedDir, h dirHint) (Recipe, error) {
	if r, ok, err := rc.system(ctx, d); ok || err != nil {
		return r, err
	}
	r, err := rc.recognizeLayout(ctx, d, h)
	if r != nil {
		tagByPath(r)
	}
	if err == nil {
		err = rc.judge(ctx, r, h)
	}
	return r, err
}

// judge adds to a recipe what takes more than its own nodes: a
// semaphore's maximum, read elsewhere.
func (rc *recognizer) judge(ctx context.Context, r Recipe, h dirHint) error {
	if l, ok := r.(*Lock); ok {
		return rc.judgeSemaphoreMax(ctx, l, h)
	}
	return nil
}

// recognizeLayout classifies a listed directory by the layouts of the
// recipe libraries.
func (rc *recognizer) recognizeLayout(ctx context.Context, d listedDir, h dirHint) (Recipe, error) {
	if r, ok, err := rc.libraryRecipe(ctx, d); ok || err != nil {
		return r, err
	}
	switch {
	case h.kazooSemaphore:
		return rc.kazooSemaphore(ctx, d)
	case len(d.names) == 0 && isEphemeralNodeCandidate(d):
		return rc.ephemeralNode(ctx, d)
	case len(d.names) == 0:
		return rc.barrier(ctx, d)
	case d.isMixedSemaphore():
		return rc.mixedSemaphore(ctx, d)
	case d.isCuratorSemaphore():
		return rc.curatorSemaphore(ctx, d)
	case d.isLockingQueue():
		return rc.lockingQueue(ctx, d)
	}
	fam := d.chooseFamily()
	if fam == familyNone {
		return rc.ephemeralGroup(ctx, d)
	}
	// Lock nodes of the strong layouts share one queue whoever wrote
	// them: a lock of one library takes in the others' (see lock).
	mixing := strongLockFamily(fam)
	var members, foreign []childName
	for _, n := range d.names {
		f := n.family()
		if f == fam || (fam == familyGeneric && n.HasSeq) || (mixing && lockFamily(f)) {
			members = append(members, n)
		} else {
			foreign = append(foreign, n)
		}
	}
	info := familyTable[fam]
	switch info.recipe {
	case recQueue:
		return rc.queue(ctx, d, h, fam, members, foreign)
	case recDoubleBarrier:
		return rc.doubleBarrier(ctx, d, members, foreign)
	case recParty:
		return rc.party(ctx, d, members, foreign)
	}
	sortBySeq(members)
	var ms []childNode
	if info.ephemeral {
		// The name alone is a weak sign: the lowest node must be
		// ephemeral (it holds), and persistent ones are foreign.
		var err error
		ms, foreign, err = rc.readEphemeral(ctx, d.path, members, foreign)
		if err != nil || len(ms) == 0 {
			return nil, err
		}
	} else {
		var err error
		if ms, err = rc.readMembers(ctx, d.path, members); err != nil {
			return nil, err
		}
		if mixing {
			ms, foreign = weakPersistent(ms, foreign)
		}
	}
	switch info.recipe {
	case recElection:
		return rc.election(d, fam, ms, foreign), nil
	case recSemaphore:
		return rc.leasesOnly(d, ms, foreign), nil
	}
	return rc.lock(d, ms, foreign, present(d, members, ms, foreign)), nil
}

// lockFamily reports whether f's nodes are a mutex's or a read-write
// lock's.
func lockFamily(f layoutFamily) bool {
	switch f {
	case familyCuratorLock, familyCuratorRW, familyKazooLock, familyZKLock, familyPlainLock, familyPlainRW:
		return true
	}
	return false
}

// strongLockFamily reports whether f is a lock layout of a library, whose
// names alone say they are lock nodes.
func strongLockFamily(f layoutFamily) bool {
	switch f {
	case familyCuratorLock, familyCuratorRW, familyKazooLock, familyZKLock:
		return true
	}
	return false
}

// weakPersistent moves the persistent nodes of the plain layouts among a
// library's lock nodes to foreign: the name alone is too weak a sign.
func weakPersistent(ms []childNode, foreign []childName) ([]childNode, []childName) {
	kept := ms[:0]
	moved := false
	for _, m := range ms {
		if familyTable[m.family()].ephemeral && m.session() == 0 {
			foreign, moved = append(foreign, m.childName), true
			continue
		}
		kept = append(kept, m)
	}
	if moved {
		sortNames(foreign)
	}
	return kept, foreign
}

// present lists the children of d still there after its members were
// read: every name listed, but the members found gone meanwhile (neither
// read nor moved to foreign).
func present(d listedDir, members []childName, read []childNode, foreign []childName) []string {
	kept := make(map[string]bool, len(read)+len(foreign))
	for _, m := range read {
		kept[m.Name] = true
	}
	for _, f := range foreign {
		kept[f.Name] = true
	}
	gone := map[string]bool{}
	for _, n := range members {
		if !kept[n.Name] {
			gone[n.Name] = true
		}
	}
	out := make([]string, 0, len(d.names))
	for _, n := range d.names {
		if !gone[n.Name] {
			out = append(out, n.Name)
		}
	}
	return out
}

// readEphemeral reads members (sorted) when the lowest is ephemeral, and
// moves the persistent ones to foreign.
func (rc *recognizer) readEphemeral(ctx context.Context, dir string, members, foreign []childName) ([]childNode, []childName, error) {
	for len(members) > 0 {
		first, err := rc.readMembers(ctx, dir, members[:1])
		if err != nil {
			return nil, foreign, err
		}
		if len(first) == 1 {
			if first[0].session() == 0 {
				return nil, foreign, nil
			}
			break
		}
		members = members[1:] // gone since the listing
	}
	if len(members) == 0 {
		return nil, foreign, nil
	}
	ms, err := rc.readMembers(ctx, dir, members)
	if err != nil {
		return nil, foreign, err
	}
	kept := ms[:0]
	for _, m := range ms {
		if m.session() == 0 {
			foreign = append(foreign, m.childName)
		} else {
			kept = append(kept, m)
		}
	}
	sortNames(foreign)
	return kept, foreign, nil
}

func sortBySeq(ns []childName) {
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].Seq != ns[j].Seq {
			return ns[i].Seq < ns[j].Seq
		}
		return ns[i].Name < ns[j].Name
	})
}

func sortNames(ns []childName) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
}

// dataFormat says "zkx" when every member's data is zkx's owner identity,
// else the given format.
func dataFormat(ms []childNode, otherwise string) string {
	if len(ms) == 0 {
		return otherwise
	}
	for _, m := range ms {
		if !isZkxIdentity(m.data) {
			return otherwise
		}
	}
	return recFormatZkx
}

// isZkxIdentity reports whether data is what zkx's recipes write by
// default: "<host> <pid>".
func isZkxIdentity(data []byte) bool {
	s := string(data)
	i := strings.LastIndexByte(s, ' ')
	if i <= 0 || strings.ContainsAny(s[:i], " \t\r\n") {
		return false
	}
	return recIsDigits(s[i+1:])
}

// recDataMax bounds the data shown for a contender.
const recDataMax = 256

// dataText shows a node's data on one line: UTF-8 as it is, everything
// non-printable escaped (\x12, \u202e, \n), cut at recDataMax bytes with "…".
func dataText(data []byte) string {
	var b strings.Builder
	if st := display.AppendEscaped(&b, data, false, recDataMax); st.Cut > 0 {
		b.WriteString("…")
	}
	return b.String()
}

// sessionText writes a session id as ZooKeeper does: 0x and the hex of its
// 64 bits.
func sessionText(id int64) string {
	if id == 0 {
		return ""
	}
	return display.Hex(id)
}
