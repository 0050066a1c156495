package recipes

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"
)

// kazooPartyMarker ends the name of every member of a Kazoo Party
// (Party._NODE_NAME in kazoo/recipe/party.py).
const kazooPartyMarker = "__party__"

// Party is a pool of members in the layout of Kazoo's Party (Kazoo 2.8,
// kazoo/recipe/party.py): each member is an ephemeral node
// "<32 hex digits>__party__" in the party's directory (a persistent
// node), holding the member's identifier as its data. A Kazoo Party on the
// same directory lists a Party's members among its own (len(party),
// iterating it gives their identifiers), and Members lists Kazoo's.
//
// As in Kazoo, a member stays until it leaves or its session ends: a node
// deleted by someone else is not made again.
type Party struct {
	session *Session
	dir     string
	opts    options
	node    string // our node's name, fixed for the Party's life as Kazoo's

	mu     sync.Mutex
	joined bool
}

// NewParty returns a Party on directory dir. Options: WithData, the
// member's identifier (Kazoo's identifier argument; default "host pid"),
// and WithACL, of the member's node and the directories made for it.
func NewParty(s *Session, dir string, opts ...Option) *Party {
	return &Party{session: s, dir: dir, opts: buildOptions(opts), node: newID(Kazoo) + kazooPartyMarker}
}

// Join makes us a member, creating the directory (persistent nodes, as
// Kazoo's ensure_path) when missing. Joining again while a member does
// nothing. After a connection loss during the create, Join finds its node
// by its name and checks it is ours, as Kazoo assumes it is.
func (p *Party) Join(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.joined {
		return nil
	}
	if err := p.session.ensurePath(ctx, p.dir, p.opts.acl); err != nil {
		return err
	}
	if err := p.session.createMember(ctx, p.dir, p.node, p.opts.data, p.opts, p.session.ensurePath); err != nil {
		return err
	}
	p.joined = true
	return nil
}

// Leave deletes our member node. It returns ErrNotEntered when we are not
// a member, and ErrNotLocked when our node was already gone (deleted by
// someone else, or with a session that ended).
func (p *Party) Leave(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.joined {
		return ErrNotEntered
	}
	p.joined = false
	err := p.session.deleteOwn(ctx, joinPath(p.dir, p.node), p.opts.stats)
	if errors.Is(err, zk.ErrNoNode) {
		return ErrNotLocked
	}
	return err
}

// Node returns our member node's name, made when the Party was.
func (p *Party) Node() string { return p.node }

// Members lists the party's members, ours among them while joined: the
// children of the directory whose names carry "__party__", as Kazoo's
// Party counts them.
func (p *Party) Members(ctx context.Context) ([]Member, error) {
	return p.session.readMembers(ctx, p.dir, func(name string) bool { return strings.Contains(name, kazooPartyMarker) })
}
