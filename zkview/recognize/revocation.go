package recognize

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/display"
)

// Cooperative revocation as Curator defines it (Curator 5.4, locks/Revoker
// and LockInternals): anyone may ask a lock's holder to release by writing
// "__REVOKE__" into the holder's node. A holder whose InterProcessMutex (or
// the read or write lock of an InterProcessReadWriteLock) was made
// revocable before it acquired writes its node empty, keeps a data watch on
// it, and when the data turns to __REVOKE__ calls its RevocationListener,
// which is expected to release. Nothing forces it: it is a request, and no
// other library (Kazoo, zkx's own recipes, the semaphores) listens.

// RevokeMarker is what Curator's Revoker.attemptRevoke writes into a lock
// node (LockInternals.REVOKE_MESSAGE).
const RevokeMarker = "__REVOKE__"

// curatorRevocableViews start the views of the Curator locks that can be
// made revocable: InterProcessMutex, and both sides of
// InterProcessReadWriteLock.
var curatorRevocableViews = []string{"Curator InterProcessMutex", "Curator InterProcessReadWriteLock "}

// revokeRequested flags a contender whose node carries __REVOKE__,
// whoever wrote it, with when it was written (the node's mtime).
func (b *recipeBuilder) revokeRequested(c *Contender, m childNode) {
	if string(m.data) != RevokeMarker || m.stat.Mtime == 0 {
		return
	}
	c.RevokeRequested = time.UnixMilli(m.stat.Mtime)
	ms := max(b.rc.opts.Now.Sub(c.RevokeRequested).Milliseconds(), 0)
	c.RevokeRequestedMs = &ms
	b.warnf("revocation requested at %s (%s ago) of %s: its data is Curator's %s, which a revocable Curator lock answers by releasing; the node is still here",
		c.RevokeRequested.Format("15:04:05"), display.Duration(time.Duration(ms)*time.Millisecond), b.who(*c), RevokeMarker)
}

// NotRevocableError is Lock.Revocable's refusal: why the holder would
// not hear a request to release.
type NotRevocableError struct{ Reason string }

func (e *NotRevocableError) Error() string { return e.Reason }

// Revocable says whether holder h of the lock would hear a request to
// release written into its node (RevokeMarker): only a Curator
// InterProcessMutex or InterProcessReadWriteLock holder made revocable
// listens. When it would, evidence says what shows it; otherwise the error
// (a *NotRevocableError) says why not. tables, when not nil, are the
// servers' tables: a revocable Curator holder keeps a data watch on its
// own node, and one without it hears nothing.
func (l *Lock) Revocable(h Contender, tables ServerTables) (evidence string, err error) {
	refuse := func(format string, args ...any) (string, error) {
		return "", &NotRevocableError{Reason: fmt.Sprintf(format, args...)}
	}
	curatorLock := false
	for _, v := range curatorRevocableViews {
		curatorLock = curatorLock || strings.HasPrefix(h.View, v)
	}
	switch {
	case l.Recipe == recSemaphore:
		return refuse("%s is a semaphore: no library's semaphore listens for %s (Curator revokes InterProcessMutex and InterProcessReadWriteLock holders only)", l.Path, RevokeMarker)
	case h.Format == recFormatKazoo:
		return refuse("%s is a Kazoo lock's node: Kazoo has no revocation, nothing in it reads %s", h.Node, RevokeMarker)
	case h.Format == recFormatZkx:
		return refuse("%s is a zkx lock's node: zkx's recipes do not listen for %s", h.Node, RevokeMarker)
	case h.Format != recFormatCurator || !curatorLock:
		view := h.View
		if view == "" {
			view = h.Format + " " + l.Recipe
		}
		return refuse("%s is a node of a %s, which does not listen for Curator's %s", h.Node, view, RevokeMarker)
	case h.Data != "" && h.Data != RevokeMarker:
		return refuse("%s holds %q: a Curator lock made revocable writes its node empty (LockInternals.attemptLock), so this one was not made revocable before it acquired, and nothing of it listens", h.Node, h.Data)
	}
	asked := ""
	if h.RevokeRequestedMs != nil {
		asked = fmt.Sprintf("; asked already %s ago, and it still holds", display.Duration(time.Duration(*h.RevokeRequestedMs)*time.Millisecond))
	}
	if tables != nil && h.SessionID != 0 {
		watching, known := tables.Watches(h.SessionID, ContenderPath(l.Path, h.Node))
		switch {
		case known && !watching:
			return refuse("%s's session %s has no watch on its own node: a revocable Curator lock keeps one (LockInternals' revocableWatcher), so nothing would hear the request", h.Node, h.Session)
		case known:
			return "its node is empty and its session watches it, as a Curator lock made revocable does" + asked, nil
		}
	}
	return "its node is empty, as a Curator lock made revocable writes it (whether it watches the node is not known: the servers' watch tables were not read)" + asked, nil
}

// RevokeNote says of a contender whose node carries __REVOKE__ when that
// was asked and that its node is still there ("asked 40s ago at 03:12:40,
// still held" for a holder); "" for any other.
func (c Contender) RevokeNote(now time.Time) string {
	if c.RevokeRequested.IsZero() {
		return ""
	}
	return fmt.Sprintf("asked %s ago at %s, still held", display.Duration(now.Sub(c.RevokeRequested)), c.RevokeRequested.Format("15:04:05"))
}
