package recipes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/lockstats"
)

// go-zookeeper requests take no context and cannot be withdrawn once sent.
// call runs one in its own goroutine so the caller can stop waiting when its
// context ends or the session is lost; the request itself runs to the end.

type result[T any] struct {
	value T
	err   error
}

func call[T any](ctx context.Context, s *Session, f func() (T, error)) (T, error) {
	var zero T
	if err := s.alive(); err != nil {
		return zero, err
	}
	if ctx.Done() == nil {
		// Nothing can cancel the wait: go-zookeeper always answers, with an
		// error if the connection goes, so call directly.
		v, err := f()
		return v, s.classify(err)
	}
	ch := make(chan result[T], 1)
	go func() {
		v, err := f()
		ch <- result[T]{v, err}
	}()
	select {
	case r := <-ch:
		return r.value, s.classify(r.err)
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-s.done:
		return zero, s.Err()
	}
}

// classify turns errors that mean the session is over into ErrSessionLost.
func (s *Session) classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrClosing) {
		s.lose(fmt.Errorf("request failed: %v", err))
		return s.Err()
	}
	return err
}

// ambiguous reports whether a request failed in a way that leaves unknown
// whether the server applied it: the connection went while it was in flight.
func ambiguous(err error) bool {
	var ne net.Error
	return errors.Is(err, zk.ErrConnectionClosed) || errors.As(err, &ne)
}

// retryable reports whether a request may be sent again once the connection
// is back: it failed with the connection, or was never sent.
func retryable(err error) bool {
	return ambiguous(err) || errors.Is(err, zk.ErrNoServer)
}

// retry runs an idempotent request until it gets an answer, waiting for the
// connection to come back in between.
func retry[T any](ctx context.Context, s *Session, f func() (T, error)) (T, error) {
	for {
		v, err := call(ctx, s, f)
		if err == nil || !retryable(err) {
			return v, err
		}
		if err := s.waitConnected(ctx); err != nil {
			var zero T
			return zero, err
		}
	}
}

// pause waits d, or less if ctx ends or the session is lost.
func (s *Session) pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return s.Err()
	}
}

// ensureDir creates dir and its missing ancestors as container nodes, which
// the server removes once they have had children and emptied again, as
// Curator does.
func (s *Session) ensureDir(ctx context.Context, dir string, acl []zk.ACL) error {
	return s.mkdirs(ctx, dir, func(path string) (string, error) {
		return s.conn.CreateContainer(path, nil, zk.FlagContainer, acl)
	})
}

// ensurePath creates dir and its missing ancestors as persistent nodes, as
// Kazoo's ensure_path does: Kazoo assumes its lock directory stays, so a
// directory we share with Kazoo must not be a container.
func (s *Session) ensurePath(ctx context.Context, dir string, acl []zk.ACL) error {
	return s.mkdirs(ctx, dir, func(path string) (string, error) {
		return s.conn.Create(path, nil, zk.FlagPersistent, acl)
	})
}

// mkdirsAttempts bounds how often mkdirs starts again after an ancestor
// vanished under it.
const mkdirsAttempts = 10

// mkdirs creates dir's ancestors and dir, top down. An ancestor can vanish
// between its create and its child's (the server reaps an emptied
// container; the child's create fails with NoNode): then it starts again
// from the top.
func (s *Session) mkdirs(ctx context.Context, dir string, create func(string) (string, error)) error {
	if dir == "/" {
		return nil
	}
	parts := strings.Split(strings.Trim(dir, "/"), "/")
	for attempt := 1; ; attempt++ {
		p := ""
		var err error
		for _, part := range parts {
			p += "/" + part
			path := p
			_, err = retry(ctx, s, func() (string, error) { return create(path) })
			if err != nil && !errors.Is(err, zk.ErrNodeExists) {
				break
			}
			err = nil
		}
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, zk.ErrNoNode) || attempt == mkdirsAttempts || ctx.Err() != nil:
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
}

// createProtected creates a node named prefix+SEQ in dir with a sequential
// mode, or exactly dir/prefix with a plain one (making dir when missing),
// and returns its name. After a connection loss it looks for a child with
// our prefix owned by our session before trying again, so a create whose
// answer was lost leaves no orphan. If ctx ends first, the node is removed
// should the create succeed: for up to the session timeout before
// returning, as a cancelled wait's node is (abandon), then in the
// background.
func (s *Session) createProtected(ctx context.Context, dir, prefix string, data []byte, acl []zk.ACL, mode int32, stats *lockstats.Stats) (string, error) {
	for {
		if err := s.alive(); err != nil {
			return "", err
		}
		stats.CountCreate()
		ch := make(chan result[string], 1)
		go func() {
			p, err := s.create(joinPath(dir, prefix), data, mode, acl)
			ch <- result[string]{p, err}
		}()
		var r result[string]
		select {
		case r = <-ch:
		case <-ctx.Done():
			s.cleanupCreateSoon(dir, prefix, ch)
			return "", ctx.Err()
		case <-s.done:
			return "", s.Err()
		}
		err := s.classify(r.err)
		switch {
		case err == nil:
			return r.value[strings.LastIndexByte(r.value, '/')+1:], nil
		case errors.Is(err, zk.ErrNoNode):
			if err := s.ensureDir(ctx, dir, acl); err != nil {
				return "", err
			}
		case retryable(err):
			if err := s.waitConnected(ctx); err != nil {
				if ambiguous(r.err) {
					go s.cleanupCreate(dir, prefix, nil)
				}
				return "", err
			}
			if ambiguous(r.err) {
				name, err := s.findOwn(ctx, dir, prefix, stats)
				if err != nil || name != "" {
					return name, err
				}
			}
		default:
			return "", fmt.Errorf("create in %s: %w", dir, err)
		}
	}
}

// findOwn returns the child of dir with our protected prefix, if the server
// holds one owned by this session.
func (s *Session) findOwn(ctx context.Context, dir, prefix string, stats *lockstats.Stats) (string, error) {
	stats.CountRead()
	children, err := retry(ctx, s, func() ([]string, error) {
		c, _, err := s.conn.Children(dir)
		return c, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, c := range children {
		if !strings.HasPrefix(c, prefix) {
			continue
		}
		stats.CountRead()
		st, err := retry(ctx, s, func() (*zk.Stat, error) {
			_, st, err := s.conn.Exists(joinPath(dir, c))
			return st, err
		})
		if err != nil {
			return "", err
		}
		if st != nil && st.EphemeralOwner == s.id {
			return c, nil
		}
	}
	return "", nil
}

// cleanupTimeout bounds the work done after a caller has gone.
const cleanupTimeout = 30 * time.Second

// cleanupCreateSoon runs cleanupCreate, waiting for it at most the session
// timeout: the caller that gave up usually returns with nothing of its
// attempt left on the server.
func (s *Session) cleanupCreateSoon(dir, prefix string, pending <-chan result[string]) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.cleanupCreate(dir, prefix, pending)
	}()
	wait := time.NewTimer(s.timeout)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C: // it goes on in the background
	}
}

// cleanupCreate removes the node of a create the caller stopped waiting
// for: it waits for the create's answer (if pending) and deletes what was
// made, or, when the answer was lost, finds it by its prefix.
func (s *Session) cleanupCreate(dir, prefix string, pending <-chan result[string]) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if pending != nil {
		select {
		case r := <-pending:
			if r.err == nil {
				s.deleteQuietly(ctx, r.value)
				return
			}
			if !ambiguous(r.err) {
				return // it failed: nothing was made
			}
		case <-ctx.Done():
			return
		}
	}
	if err := s.waitConnected(ctx); err != nil {
		return
	}
	if name, err := s.findOwn(ctx, dir, prefix, lockstats.NewStats()); err == nil && name != "" {
		s.deleteQuietly(ctx, joinPath(dir, name))
	}
}

// deleteQuietly removes a node of ours, retrying through connection losses;
// a node already gone is fine. It reports whether the node is gone.
func (s *Session) deleteQuietly(ctx context.Context, path string) bool {
	_, err := retry(ctx, s, func() (struct{}, error) {
		return struct{}{}, s.conn.Delete(path, -1)
	})
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		s.logger.Warn("could not remove a node of a cancelled wait yet", "path", path, "err", err)
		return false
	}
	return true
}

// deleteOwn deletes a node this session owns. It reports ErrNoNode only if
// the node was gone before we asked; after a connection loss, a node gone
// is taken as our own delete having been applied.
func (s *Session) deleteOwn(ctx context.Context, path string, stats *lockstats.Stats) error {
	uncertain := false
	for {
		stats.CountDelete()
		_, err := call(ctx, s, func() (struct{}, error) {
			return struct{}{}, s.conn.Delete(path, -1)
		})
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if uncertain {
				return nil
			}
			return err
		case retryable(err):
			uncertain = uncertain || ambiguous(err)
			if err := s.waitConnected(ctx); err != nil {
				return err
			}
		default:
			return err
		}
	}
}
