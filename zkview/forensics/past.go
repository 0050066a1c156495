package forensics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkx-dev/zkx/internal/txnlog"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/zkview"
)

// maxUndo bounds the steps kept to step back through; past it, a step back
// rebuilds from a snapshot.
const maxUndo = 200_000

// Position is where a Past is: right after a transaction, or at the
// snapshot it was rebuilt from when none was replayed yet.
type Position struct {
	// Zxid is the last transaction applied, or the snapshot's zxid.
	Zxid int64
	// Time is that transaction's time; at a snapshot, the latest change
	// its nodes record (Approximate).
	Time        time.Time
	Approximate bool
	// Txn is the transaction at the position; nil at a snapshot.
	Txn *Transaction
	// Who made Txn, when the past was opened with an audit log
	// (PastOptions.Audit) that says.
	Who *Who
	// Snapshot is the file the state was rebuilt from.
	Snapshot string
}

// Past is a data directory's tree at a moment, served read-only by an
// embedded server so that a ZooKeeper client — the explorer — reads it;
// Step moves it one transaction back or forward, and the server's watches
// tell its clients what changed. The server listens on no port: its
// clients reach it within the process (Dial, Connect), so no other user
// of the machine reads through it what the data directory's permissions
// deny them.
type Past struct {
	arch *Archive
	srv  *zkserver.Server
	st   serverStore

	mu       sync.Mutex
	ap       *applier
	snap     snapshotInfo
	pos      Position
	undo     []*Step
	redo     []txnlog.Entry // undone, the next last
	logs     *txnlog.Files
	readMax  int64         // the highest zxid read from logs
	ahead    *txnlog.Entry // read from logs, not yet applied
	problems Problems
	// digest is the tree digest of the state, checked against each
	// transaction's logged digest once the snapshot is whole.
	digest     uint64
	mismatches int

	clock atomic.Int64 // pos.Time in ms, for Clock

	loading func() (done func()) // PastOptions.Loading
	audit   *AuditIndex          // PastOptions.Audit
	still   bool                 // PastOptions.Still
}

// PastOptions tune OpenPast.
type PastOptions struct {
	// Loading, when set, is called before each snapshot is loaded, and
	// the function it returns after: a program may tune its memory for a
	// load that allocates a node at a time (the explorer holds its
	// garbage collector back).
	Loading func() (done func())
	// Audit, when set, is the audit log: each position names who made
	// its transaction (Position.Who).
	Audit *AuditIndex
	// Still: the past is read where it opens, not stepped through — the
	// steps replayed are not kept to be undone (a step back rebuilds from
	// a snapshot), which is most of the memory of a long replay.
	Still bool
}

// OpenPast rebuilds the tree of the data directory at path as it was at
// the moment at (its end when zero) and serves it read-only, within the
// process.
func OpenPast(path string, at Moment, opts ...PastOptions) (*Past, error) {
	arch, err := OpenArchive(path)
	if err != nil {
		return nil, err
	}
	srv := zkserver.New(zkserver.Config{
		ReadOnly: true,
		// The connections and the watches of the past are not on disk:
		// the explorer is told so rather than shown today's (a read-only
		// server's dump lists ephemerals by session, no connections).
		FourLetterWords: []string{"srvr", "mntr", "conf", "envi", "ruok", "isro", "dump"},
		// Sessions of the past keep their logged timeouts whatever the
		// bounds; the viewer's own gets the widest.
		MinSessionTimeout: time.Second, MaxSessionTimeout: time.Hour,
	})
	zp, err := srv.Past()
	if err != nil {
		srv.Close()
		return nil, err
	}
	p := &Past{arch: arch, srv: srv, st: serverStore{past: zp}}
	for _, o := range opts {
		if o.Loading != nil {
			p.loading = o.Loading
		}
		if o.Audit != nil {
			p.audit = o.Audit
		}
		p.still = p.still || o.Still
	}
	if err := p.seek(at); err != nil {
		srv.Close()
		return nil, err
	}
	return p, nil
}

// Reader reads the rebuilt tree directly, not through the server: every
// node and ACL (digest hashes included; ACLs do not stop a reader of the
// files), for zkview.Walk — a copy of the past (export, diff, mirror)
// without a request per node. The tree must not be stepped meanwhile.
func (p *Past) Reader() zkview.Reader { return storeReader{st: p.st} }

// pastAddress is the past's server as its clients name it: never dialled
// (Dial answers for it), and a name that resolves nowhere (RFC 2606) were
// anything to try.
const pastAddress = "past.invalid:2181"

// Name is the past's server as a connect string names it, for clients
// that reach it through Dial.
func (p *Past) Name() string { return pastAddress }

// Dial opens a connection to the past's server within the process (a
// zkview.WithDialer or introspect.Options.Dial): addr is Name's.
func (p *Past) Dial(_ context.Context, addr string) (net.Conn, error) {
	if addr != pastAddress {
		return nil, fmt.Errorf("the past is served as %s, not %s", pastAddress, addr)
	}
	return p.srv.Pipe()
}

// Connect opens a read-only session on the past, within the process.
func (p *Past) Connect(ctx context.Context, opts ...zkview.Option) (*zkview.Client, error) {
	opts = append([]zkview.Option{zkview.WithReadOnly(), zkview.WithDialer(p.Dial)}, opts...)
	return zkview.Dial(ctx, pastAddress, opts...)
}

// Close stops the server and closes the logs.
func (p *Past) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.logs != nil {
		p.logs.Close()
	}
	return p.srv.Close()
}

// Position is where the past is now.
func (p *Past) Position() Position {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pos
}

// Clock is the time of the position: the explorer measures ages to it.
func (p *Past) Clock() time.Time { return time.UnixMilli(p.clock.Load()) }

// Problems are what rebuilding went on past.
func (p *Past) Problems() Problems {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.problems
}

// Archive is the data directory.
func (p *Past) Archive() *Archive { return p.arch }

// Where is the folder the logs and snapshots are in.
func (p *Past) Where() string { return p.arch.Dir.Path }

// ErrNoMore says there is no transaction further that way.
var ErrNoMore = errors.New("no more transactions that way")

// Step moves one transaction back or forward; with touching, to right
// after the previous or next transaction that changed that node or its
// children. At either end it stays where it was and says ErrNoMore.
func (p *Past) Step(back bool, touching string) (Position, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	from := p.pos
	for {
		var err error
		if back {
			err = p.stepBack()
		} else {
			err = p.stepForward()
		}
		if err != nil {
			if touching != "" && errors.Is(err, ErrNoMore) && p.pos.Zxid != from.Zxid {
				// None touched the node that way: back where we were.
				if serr := p.seek(Moment{Zxid: from.Zxid}); serr != nil {
					return p.pos, serr
				}
			}
			return p.pos, err
		}
		if cur := p.current(); touching == "" || (cur != nil && cur.Touches(touching)) {
			p.publish()
			return p.pos, nil
		}
	}
}

// current is the step at the position, nil at the snapshot.
func (p *Past) current() *Step {
	if len(p.undo) == 0 {
		return nil
	}
	return p.undo[len(p.undo)-1]
}

// Seek rebuilds the past at another moment.
func (p *Past) Seek(at Moment) (Position, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.seek(at)
	return p.pos, err
}

// seek rebuilds the state at a moment: the newest snapshot whole at it,
// the logs replayed up to it.
func (p *Past) seek(at Moment) error {
	target := int64(-1) // the end of the logs
	switch {
	case at.Zxid != 0:
		target = at.Zxid
	case !at.Time.IsZero():
		z, _, ok := p.arch.Resolve(at, &p.problems)
		if !ok {
			return fmt.Errorf("the logs of %s hold no transaction at or before %s", p.arch.Dir.Path, at)
		}
		target = z
	}
	return p.rebuild(target, func(e txnlog.Entry) bool { return target >= 0 && e.Header.Zxid > target })
}

// rebuild loads the snapshot for target and replays the logs until stop
// says an entry is past the moment (that entry is kept ahead).
func (p *Past) rebuild(target int64, stop func(txnlog.Entry) bool) error {
	if p.logs != nil {
		p.logs.Close()
	}
	p.undo, p.redo, p.ahead = nil, nil, nil
	done := func() {}
	if p.loading != nil {
		done = p.loading()
	}
	var info snapshotInfo
	var err error
	if target > 0 {
		// A snapshot before the moment rather than at it: replaying the
		// moment's own transaction tells what it was.
		info, err = p.arch.loadSnapshotFor(p.st, target-1, nil, &p.problems)
	}
	if target <= 0 || err != nil {
		info, err = p.arch.loadSnapshotFor(p.st, target, nil, &p.problems)
	}
	done()
	if err != nil {
		return err
	}
	p.snap = info
	p.digest = info.digest
	p.ap = newApplier(p.st, nil)
	for id, t := range info.sessions {
		p.ap.sessions[id] = t
	}
	p.pos = Position{Zxid: info.file.Zxid, Time: time.UnixMilli(info.latest), Approximate: true, Snapshot: info.file.Path}
	p.logs = txnlog.OpenFiles(p.arch.logPaths(info.file.Zxid))
	p.logs.SkipUntil(info.file.Zxid)
	p.readMax = info.file.Zxid
	for {
		e, err := p.next()
		if err != nil {
			if errors.Is(err, ErrNoMore) {
				break
			}
			return err
		}
		if stop(e) {
			p.ahead = &e
			break
		}
		p.apply(e)
	}
	p.publish()
	return nil
}

// next reads the next entry after what was read, skipping those the
// snapshot holds; ErrNoMore at the end of the logs.
func (p *Past) next() (txnlog.Entry, error) {
	for {
		e, err := p.logs.Next()
		if errors.Is(err, io.EOF) {
			return e, ErrNoMore
		}
		if err != nil {
			p.problems.add(err)
			continue
		}
		if e.Header.Zxid <= p.readMax {
			continue
		}
		p.readMax = e.Header.Zxid
		return e, nil
	}
}

// apply applies an entry and moves the position to it.
func (p *Past) apply(e txnlog.Entry) *Step {
	s := p.ap.Apply(e)
	p.digest += s.digestDelta()
	if d := e.Digest; d != nil && p.snap.ahead && p.snap.wholeFrom == 0 && uint64(d.TreeDigest) == p.digest {
		p.snap.wholeFrom = e.Header.Zxid // the snapshot's changes ahead are all replayed
	}
	if d := e.Digest; d != nil && e.Header.Zxid > p.snap.consistentFrom() && uint64(d.TreeDigest) != p.digest {
		// The server's own check (DataTree.compareDigest): the rebuilt
		// tree is not the one the server had.
		p.mismatches++
		if p.mismatches <= 3 {
			p.problems.add(fmt.Errorf("zxid 0x%x: the rebuilt tree's digest 0x%x is not the server's 0x%x: what is shown may differ from what was", e.Header.Zxid, p.digest, uint64(d.TreeDigest)))
		}
	}
	if p.still {
		p.undo = append(p.undo[:0], s) // the position's step, nothing to undo
	} else {
		p.undo = append(p.undo, s)
	}
	if len(p.undo) > maxUndo {
		p.undo = append([]*Step(nil), p.undo[len(p.undo)-maxUndo/2:]...)
	}
	p.at(s)
	return s
}

// at moves the position to a step (nil: the snapshot).
func (p *Past) at(s *Step) {
	if s == nil {
		p.pos = Position{Zxid: p.snap.file.Zxid, Time: time.UnixMilli(p.snap.latest), Approximate: true, Snapshot: p.snap.file.Path}
		return
	}
	t := Describe(s.Entry)
	p.pos = Position{Zxid: s.Entry.Header.Zxid, Time: t.Time, Txn: &t, Snapshot: p.snap.file.Path}
	if p.audit != nil {
		p.pos.Who = p.audit.Who(&t)
	}
}

// publish tells the server and the clock where the past is.
func (p *Past) publish() {
	p.st.past.SetZxid(p.pos.Zxid)
	p.clock.Store(p.pos.Time.UnixMilli())
}

func (p *Past) stepForward() error {
	var e txnlog.Entry
	switch {
	case len(p.redo) > 0:
		e = p.redo[len(p.redo)-1]
		p.redo = p.redo[:len(p.redo)-1]
	case p.ahead != nil:
		e = *p.ahead
		p.ahead = nil
	default:
		var err error
		if e, err = p.next(); err != nil {
			return err
		}
	}
	p.apply(e)
	return nil
}

// stepBack undoes the transaction at the position; at the snapshot, it
// rebuilds from an older one up to the transaction before.
func (p *Past) stepBack() error {
	// Undoing the steps of a fuzzy snapshot's replay before it was whole
	// would show it holding changes not made yet (the replay found them
	// done): the moment before is rebuilt from an older snapshot, as at
	// the snapshot itself.
	fuzzy := len(p.undo) > 0 && p.snap.consistentFrom() > p.snap.file.Zxid && p.undoneZxid() < p.snap.consistentFrom()
	if len(p.undo) == 0 || fuzzy {
		cur := p.pos.Zxid
		older := false
		for _, f := range p.arch.Dir.Snapshots {
			older = older || f.Zxid < cur
		}
		if !older {
			return fmt.Errorf("%w: no snapshot before zxid 0x%x to replay the logs from", ErrNoMore, cur)
		}
		if err := p.rebuild(cur-1, func(e txnlog.Entry) bool { return e.Header.Zxid >= cur }); err != nil {
			return err
		}
		if p.pos.Zxid >= cur {
			return fmt.Errorf("%w: nothing logged before zxid 0x%x", ErrNoMore, cur)
		}
		return nil
	}
	s := p.undo[len(p.undo)-1]
	if err := p.ap.Undo(s); err != nil {
		return err
	}
	p.digest -= s.digestDelta()
	p.undo = p.undo[:len(p.undo)-1]
	p.redo = append(p.redo, s.Entry)
	p.at(p.current())
	return nil
}

// undoneZxid is the position a step back by undo would move to: the
// transaction before the current one, or the snapshot.
func (p *Past) undoneZxid() int64 {
	if len(p.undo) < 2 {
		return p.snap.file.Zxid
	}
	return p.undo[len(p.undo)-2].Entry.Header.Zxid
}
