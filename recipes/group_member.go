package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// GroupMember is one member of a group in the layout of Apache Curator's
// GroupMember (Curator 5.4, recipes.nodes.GroupMember): each member is an
// ephemeral node named by its id in the membership directory, holding the
// member's payload; the directory's missing ancestors and the directory
// are container nodes, as Curator's creatingParentContainersIfNeeded makes
// them. Curator's GroupMember.getCurrentMembers on the same directory maps
// a GroupMember's id to its payload, and Members lists Curator's members.
//
// Like Curator's PersistentNode, which GroupMember is built on, a joined
// member whose node is deleted by someone else makes it again, with its
// current payload, for as long as its session lives. Unlike it, a node of
// another session under our id is not adopted: Join returns
// ErrMemberTaken, where Curator would write its payload over the other
// member's and count the node as its own.
type GroupMember struct {
	session *Session
	dir     string
	id      string
	opts    options

	mu     sync.Mutex
	data   []byte
	keeper *memberKeeper // while joined
}

// memberKeeper makes our node again when it is deleted.
type memberKeeper struct {
	stop    chan struct{} // closed by Leave
	stopped chan struct{} // closed when the keeper returns
	err     error         // why it stopped keeping on its own, once stopped
}

// NewGroupMember returns member id of the group in directory dir. The id
// must be unique in the group, as Curator requires. Options: WithData, the
// payload (default "host pid"; Curator's default is the local IP
// address), and WithACL.
func NewGroupMember(s *Session, dir, id string, opts ...Option) *GroupMember {
	o := buildOptions(opts)
	return &GroupMember{session: s, dir: dir, id: id, opts: o, data: o.data}
}

// Join creates our member node, and keeps it until Leave or the end of
// the session. Joining again while a member does nothing.
func (g *GroupMember) Join(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.keeper != nil {
		select {
		case <-g.keeper.stopped:
		default:
			return nil
		}
	}
	if err := g.session.createMember(ctx, g.dir, g.id, g.data, g.opts, g.session.ensureDir); err != nil {
		return err
	}
	k := &memberKeeper{stop: make(chan struct{}), stopped: make(chan struct{})}
	g.keeper = k
	go g.keep(k)
	return nil
}

// Leave deletes our member node and stops keeping it. It returns
// ErrNotEntered when we are not a member.
func (g *GroupMember) Leave(ctx context.Context) error {
	g.mu.Lock()
	k := g.keeper
	g.keeper = nil
	g.mu.Unlock()
	if k == nil {
		return ErrNotEntered
	}
	close(k.stop)
	<-k.stopped
	return g.deleteOurs(ctx)
}

// deleteOurs deletes our member node, unless it is gone or another
// session's (one that took our id while we did not keep it).
func (g *GroupMember) deleteOurs(ctx context.Context) error {
	st, err := retry(ctx, g.session, func() (*zk.Stat, error) {
		_, st, err := g.session.conn.Exists(g.path())
		return st, err
	})
	switch {
	case err != nil:
		return fmt.Errorf("leave %s: %w", g.path(), err)
	case st == nil || st.EphemeralOwner != g.session.id:
		return nil
	}
	err = g.session.deleteOwn(ctx, g.path(), g.opts.stats)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// SetData changes our payload, as Curator's setThisData: written to our
// node now when we are a member, and used whenever the node is made.
func (g *GroupMember) SetData(ctx context.Context, data []byte) error {
	g.mu.Lock()
	g.data = append([]byte(nil), data...)
	k := g.keeper
	g.mu.Unlock()
	if k == nil {
		return nil
	}
	select {
	case <-k.stopped:
		return nil // not keeping the node: it may not be ours
	default:
	}
	_, err := retry(ctx, g.session, func() (*zk.Stat, error) {
		return g.session.conn.Set(g.path(), data, -1)
	})
	if err != nil && !errors.Is(err, zk.ErrNoNode) { // gone: the keeper makes it with the new payload
		return fmt.Errorf("set payload of %s: %w", g.path(), err)
	}
	return nil
}

// Err returns why a joined member stopped keeping its node on its own
// (the session ended, another session took the id), or nil while it keeps
// it or is not a member.
func (g *GroupMember) Err() error {
	g.mu.Lock()
	k := g.keeper
	g.mu.Unlock()
	if k == nil {
		return nil
	}
	select {
	case <-k.stopped:
		return k.err
	default:
		return nil
	}
}

// Members lists the group's members: every child of the directory, as
// Curator's GroupMember counts them (which adds its own id even before its
// node exists; Members lists only nodes).
func (g *GroupMember) Members(ctx context.Context) ([]Member, error) {
	return g.session.readMembers(ctx, g.dir, func(string) bool { return true })
}

func (g *GroupMember) path() string { return joinPath(g.dir, g.id) }

// keep watches our node and makes it again when it goes, until Leave, the
// end of the session, or another session taking our id.
func (g *GroupMember) keep(k *memberKeeper) {
	defer close(k.stopped)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-k.stop:
			cancel()
		case <-k.stopped:
		}
	}()
	for {
		type answer struct {
			exists bool
			watch  <-chan zk.Event
		}
		a, err := retry(ctx, g.session, func() (answer, error) {
			ok, _, w, err := g.session.conn.ExistsW(g.path())
			return answer{ok, w}, err
		})
		if err == nil && !a.exists {
			g.mu.Lock()
			data := g.data
			g.mu.Unlock()
			err = g.session.createMember(ctx, g.dir, g.id, data, g.opts, g.session.ensureDir)
			if err == nil {
				continue // watch the new node
			}
		}
		if err == nil {
			_, err = awaitWatch(ctx, g.session, a.watch, g.opts.stats)
		}
		if err != nil {
			if ctx.Err() == nil {
				k.err = err
			}
			return
		}
	}
}
