package recognize

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"
)

// The values of Contender.Watch.
const (
	WatchObserved = "observed" // the server's watch table shows the watch
	WatchInferred = "inferred" // only the protocol says so
)

// recipeBuilder assembles the contenders and warnings of one recipe.
type recipeBuilder struct {
	rc   *recognizer
	path string
	// pzxid is the recipe directory's Pzxid (the zxid of the last child
	// created or deleted), 0 when not known: a holder whose node was the
	// last change has held since it was created.
	pzxid  int64
	warn   []string
	alarms []Alarm
}

func (rc *recognizer) build(recipePath string) *recipeBuilder {
	return &recipeBuilder{rc: rc, path: recipePath, warn: []string{}}
}

// buildDir is build for a recipe made of the children of d, whose stat
// tells when they last changed.
func (rc *recognizer) buildDir(d listedDir) *recipeBuilder {
	b := rc.build(d.path)
	if d.stat != nil {
		b.pzxid = d.stat.Pzxid
	}
	return b
}

func (b *recipeBuilder) warnf(format string, args ...any) {
	b.warn = append(b.warn, fmt.Sprintf(format, args...))
}

// alarm records a warning that calls for someone now.
func (b *recipeBuilder) alarm(kind, node, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	b.warn = append(b.warn, text)
	b.alarms = append(b.alarms, Alarm{Kind: kind, Node: node, Text: text})
}

// contender fills in what every contender shows: its session, client,
// data, age, and what the servers say of its session's connection.
func (b *recipeBuilder) contender(m childNode, node string) Contender {
	c := Contender{Node: node, Seq: m.Seq, Format: m.format(), SessionID: m.session(), Session: sessionText(m.session()), Data: dataText(m.data)}
	if isZkxIdentity(m.data) && c.Format == recFormatCurator {
		c.Format = recFormatZkx
	}
	if m.stat.Ctime != 0 {
		c.Created = time.UnixMilli(m.stat.Ctime)
	}
	c.Czxid = m.stat.Czxid
	c.AgeMs = b.age(c)
	b.revokeRequested(&c, m)
	b.session(&c)
	if c.Client == "" && c.SessionID != 0 {
		c.Client, c.ClientFrom = clientFromData(m.data)
	}
	return c
}

// session fills in what the servers' tables say of the contender's
// session: its client address, whether it is connected, when it was last
// heard from.
func (b *recipeBuilder) session(c *Contender) {
	t := b.rc.opts.Tables
	if t == nil || c.SessionID == 0 {
		return
	}
	if addr, ok := t.ClientAddress(c.SessionID); ok {
		c.Client = addr
	}
	if conn, known := t.Connected(c.SessionID); known {
		c.Connected = &conn
	}
	if l, ok := t.LastHeard(c.SessionID); ok {
		c.Liveness = l
		ms := l.Silence(b.rc.opts.Now).Milliseconds()
		c.LastHeardMs, c.LastHeardAtLeast = &ms, l.AtLeast
		c.Silent = l.Silent(b.rc.opts.Now)
		if !l.ExpiresBy.IsZero() {
			c.ExpiresBy, c.ExpiresByAbout = l.ExpiresBy.UTC().Format(time.RFC3339), l.ExpiresByApprox
		}
	}
}

// ClientFromNodeData is Contender.ClientFrom for an address read from the
// node's data rather than from the servers' tables.
const ClientFromNodeData = "node data"

// clientFromData reads a client address out of a node's data when the
// data is nothing but one (an IP, as Curator's locks write by default).
func clientFromData(data []byte) (addr, from string) {
	if len(data) == 0 || len(data) > 64 {
		return "", ""
	}
	ip, err := netip.ParseAddr(strings.TrimSpace(string(data)))
	if err != nil {
		return "", ""
	}
	return ip.String(), ClientFromNodeData
}

// age is how long ago the contender's node was created, in milliseconds.
func (b *recipeBuilder) age(c Contender) int64 {
	if c.Created.IsZero() {
		return 0
	}
	return max(b.rc.opts.Now.Sub(c.Created).Milliseconds(), 0)
}

// holder is a contender that holds (a lock, a lease, the leadership). role
// names it in warnings; heldCheck warns when it has held too long.
func (b *recipeBuilder) holder(m childNode, node, role string, heldCheck bool) Contender {
	c := b.contender(m, node)
	b.held(&c, m)
	b.checkConnected(c, role)
	b.checkSilent(c, role)
	if heldCheck {
		b.checkHeld(c, role)
	}
	return c
}

// held fills in when the holder began to hold, when that is known: no
// child of the directory changed since its node was created (it held from
// the start), or the HoldClock saw it begin.
func (b *recipeBuilder) held(c *Contender, m childNode) {
	switch {
	case b.pzxid != 0 && m.stat.Czxid == b.pzxid && !c.Created.IsZero():
		c.HeldSince = c.Created
	case b.rc.opts.Holds != nil:
		c.HeldSince = b.rc.opts.Holds.began(b.path, c.Node, c.SessionID, b.rc.opts.Now)
	}
	if !c.HeldSince.IsZero() {
		ms := max(b.rc.opts.Now.Sub(c.HeldSince).Milliseconds(), 0)
		c.HeldMs = &ms
	}
}

// checkHeld warns when a holder has held longer than Options.HeldTooLong:
// by HeldSince when known, else by its node's age, which bounds it (and
// says so).
func (b *recipeBuilder) checkHeld(c Contender, role string) {
	limit := b.rc.opts.HeldTooLong
	switch {
	case c.HeldMs != nil && time.Duration(*c.HeldMs)*time.Millisecond > limit:
		b.alarm(AlarmHeldTooLong, c.Node, "%s %s has held for %v, longer than %v", role, b.who(c), roundDuration(*c.HeldMs), limit)
	case c.HeldMs == nil && time.Duration(c.AgeMs)*time.Millisecond > limit:
		b.alarm(AlarmHeldTooLong, c.Node, "%s %s may have held for up to %v, longer than %v (its node's age: when it began to hold was not seen)",
			role, b.who(c), roundDuration(c.AgeMs), limit)
	}
}

// waiter is a contender waiting for waitsFor (a node name as Contender
// nodes are named). dataWatch says the protocol sets a data watch (getData
// or exists) on it, which the server's watch tables can confirm; a child
// watch cannot be confirmed.
func (b *recipeBuilder) waiter(m childNode, node, waitsFor string, dataWatch bool) Contender {
	c := b.contender(m, node)
	if b.rc.opts.Holds != nil {
		b.rc.opts.Holds.waits(b.path, c.Node, c.SessionID, b.rc.opts.Now)
	}
	c.WaitsFor = waitsFor
	c.Watch = WatchInferred
	if t := b.rc.opts.Tables; t != nil && dataWatch && c.SessionID != 0 && waitsFor != "" {
		watching, known := t.Watches(c.SessionID, ContenderPath(b.path, waitsFor))
		switch {
		case known && watching:
			c.Watch = WatchObserved
		case known && (c.Connected == nil || *c.Connected):
			// (A session without a connection has no watches anywhere:
			// checkConnected says it is gone.)
			b.warnf("waiter %s has no watch on %s, which it waits for: it may never wake", b.who(c), waitsFor)
		}
	}
	return c
}

// who names a contender in a warning: its session and node.
func (b *recipeBuilder) who(c Contender) string {
	if c.Session == "" {
		return fmt.Sprintf("%s (persistent node)", c.Node)
	}
	return fmt.Sprintf("session %s (%s)", c.Session, c.Node)
}

// checkConnected warns when the servers know the contender's session has
// no live connection.
func (b *recipeBuilder) checkConnected(c Contender, role string) {
	if c.Connected == nil || *c.Connected {
		return
	}
	b.alarm(AlarmGoneHolder, c.Node, "%s session %s has no live connection (%s): no server lists it, and its node stays until the session expires", role, c.Session, c.Node)
}

// checkSilent warns about a holder the servers have not heard from for
// more than a third of its session timeout while it is still connected:
// its process is stopped or cut off, and holds until its session expires.
func (b *recipeBuilder) checkSilent(c Contender, role string) {
	if !c.Silent {
		return
	}
	l := c.Liveness
	quiet := "for " + roundDuration(*c.LastHeardMs).String()
	if l.AtLeast {
		quiet = "for at least " + roundDuration(*c.LastHeardMs).String()
	}
	expiry := "when its session times out"
	if bound := l.ExpiryBound(); bound != "" {
		when := bound
		if left := l.ExpiresBy.Sub(b.rc.opts.Now); left > 0 {
			when += fmt.Sprintf(" (in %v)", left.Round(time.Second))
		} else {
			when += " (due now)"
		}
		if l.ExpiresByApprox {
			expiry = when + " (the servers' tick is not known)"
		} else {
			expiry = when + " at the latest"
		}
	}
	b.alarm(AlarmSilent, c.Node, "%s %s has not been heard from %s, more than a third of its %v session timeout: its process is likely frozen (a GC pause, a stopped process) or cut off from the servers, and it still holds; the servers expire its session, and free its node, %s",
		role, b.who(c), quiet, l.Timeout.Round(time.Millisecond), expiry)
}

// checkOrphans warns about a session owning more than one node of one
// directory (prefix: how the nodes are named, "" or "locks/").
func (b *recipeBuilder) checkOrphans(ms []childNode, prefix string) {
	bySession := map[int64][]string{}
	var order []int64
	for _, m := range ms {
		s := m.session()
		if s == 0 {
			continue
		}
		if _, seen := bySession[s]; !seen {
			order = append(order, s)
		}
		bySession[s] = append(bySession[s], prefix+m.Name)
	}
	for _, s := range order {
		if nodes := bySession[s]; len(nodes) > 1 {
			b.warnf("session %s owns %d nodes here (%s): an orphan left by a failed create, or contenders sharing one session", sessionText(s), len(nodes), strings.Join(nodes, ", "))
		}
	}
}

// recForeignShown bounds the foreign children a warning names.
const recForeignShown = 5

// checkForeign warns about children that do not follow the layout.
func (b *recipeBuilder) checkForeign(foreign []childName, prefix, layout string) {
	if len(foreign) == 0 {
		return
	}
	var names []string
	for i, f := range foreign {
		if i == recForeignShown {
			names = append(names, fmt.Sprintf("and %d more", len(foreign)-recForeignShown))
			break
		}
		names = append(names, prefix+f.Name)
	}
	noun := "child"
	if len(foreign) > 1 {
		noun = "children"
	}
	b.warnf("foreign %s %s: not of the %s layout", noun, strings.Join(names, ", "), layout)
}

// recWrapMargin is how close to the int32 wrap a sequence number may come
// before a warning.
const recWrapMargin = 1_000_000

// checkWrap warns when sequence numbers are near the wrap of the parent's
// signed 32-bit counter, or past it.
func (b *recipeBuilder) checkWrap(names []childName, prefix string) {
	var high, low *childName
	for i := range names {
		n := &names[i]
		if !n.HasSeq {
			continue
		}
		if n.Seq < 0 && (low == nil || n.Seq < low.Seq) {
			low = n
		}
		if n.Seq > 1<<31-1-recWrapMargin && (high == nil || n.Seq > high.Seq) {
			high = n
		}
	}
	if low != nil {
		b.warnf("%s%s has a negative sequence number (%d): the parent's counter wrapped past 2147483647, and clients that order by name put it first", prefix, low.Name, low.Seq)
	}
	if high != nil {
		b.warnf("%s%s has sequence number %d, within %d of the int32 wrap: after 2147483647 the server numbers nodes from -2147483648", prefix, high.Name, high.Seq, 1<<31-1-int64(high.Seq))
	}
}

func namesOf(ms []childNode) []childName {
	out := make([]childName, len(ms))
	for i, m := range ms {
		out[i] = m.childName
	}
	return out
}

func roundDuration(ms int64) time.Duration {
	return (time.Duration(ms) * time.Millisecond).Round(time.Second)
}

// sortByCzxid orders nodes without sequence numbers by creation.
func sortByCzxid(ms []childNode) {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].stat.Czxid < ms[j].stat.Czxid })
}
