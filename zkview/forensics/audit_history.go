package forensics

import (
	"strconv"
	"strings"
	"time"

	"github.com/zkx-dev/zkx/internal/auditlog"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// sessionID reads a session as a history writes it (0x…); false for
// none, or the server.
func sessionID(s string) (int64, bool) {
	hex, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	return int64(v), err == nil && v != 0
}

// orSession is w, or the session's client when w is nil.
func (ix *AuditIndex) orSession(w *Who, session int64) *Who {
	if w != nil {
		return w
	}
	return ix.SessionClient(session)
}

// Holding tells who created a holding's node and who ended the holding:
// its node's create; the delete of a release or a force-release, the
// server's deletion when its session expired or closed. nil where the
// audit log says nothing (a holding still held has no end).
func (ix *AuditIndex) Holding(recipe string, h Holding) (created, ended *Who) {
	holder, ok := sessionID(h.Session)
	if !ok {
		return nil, nil
	}
	node := recognize.ContenderPath(recipe, h.Node)
	at := h.From
	if h.WaitedMs != nil {
		at = at.Add(-time.Duration(*h.WaitedMs) * time.Millisecond)
	}
	created = ix.orSession(ix.Find(holder, auditlog.OpCreate, node, at), holder)
	if h.To == nil {
		return created, nil
	}
	switch h.Ended {
	case EndedReleased:
		ended = ix.orSession(ix.Find(holder, auditlog.OpDelete, node, *h.To), holder)
	case EndedDeletedByOther:
		if by, ok := sessionID(h.DeletedBy); ok {
			ended = ix.orSession(ix.Find(by, auditlog.OpDelete, node, *h.To), by)
		}
	case EndedSessionClosed:
		ended = ix.orSession(ix.Find(holder, auditlog.OpEphemeral, node, *h.To), holder)
	case EndedSessionExpired:
		// The server ended it: only its own event says so.
		ended = ix.Find(holder, auditlog.OpEphemeral, node, *h.To)
	}
	return created, ended
}

// Item tells who put a queue's item and who took it.
func (ix *AuditIndex) Item(queue string, it Item) (put, taken *Who) {
	node := recognize.ContenderPath(queue, it.Node)
	if by, ok := sessionID(it.PutBy); ok {
		put = ix.orSession(ix.Find(by, auditlog.OpCreate, node, it.PutAt), by)
	}
	if by, ok := sessionID(it.TakenBy); ok && it.TakenAt != nil {
		taken = ix.orSession(ix.Find(by, auditlog.OpDelete, node, *it.TakenAt), by)
	}
	return put, taken
}
