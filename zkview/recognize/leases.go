package recognize

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/zkx-dev/zkx/zkview"
)

// Kazoo's leases (kazoo/recipe/lease.py):
//
//   - NonBlockingLease: under a Kazoo Lock at its path (identifier as the
//     lock nodes' data), a client reads <path>/lease_holder, and when it is
//     missing, its own, or past its end, deletes it and creates it anew:
//     JSON {"version": 1, "holder": identifier, "end": "%Y-%m-%dT%H:%M:%S"},
//     end being the client's utcnow() plus the duration. The record is
//     persistent: it stays after its end until another client takes the
//     lease, so a lease past its end still present is held by nobody.
//   - MultiNonBlockingLease: count NonBlockingLeases at <path>/0 …
//     <path>/count-1, tried in order; count is in the clients' code.
//
// end is written by the holder's clock (UTC, no zone): compared with this
// machine's, a skew between the two moves it.

// The kinds of Lease.
const (
	LeaseSingle = "lease"
	LeaseMulti  = "multi-lease"
)

// RoleLeaseRecord is the Place of a lease's holder record: a persistent
// node, which nobody's session owns.
const RoleLeaseRecord = "lease record"

// kazooLeaseHolder is the record's name; kazooLeaseDate its end's layout.
const (
	kazooLeaseHolder = "lease_holder"
	kazooLeaseDate   = "2006-01-02T15:04:05"
	kazooLeaseFormat = 1 // NonBlockingLease._version
)

// recLeaseSlots bounds the slots of a multi-lease that are read.
const recLeaseSlots = 256

// Lease is a recognised Kazoo NonBlockingLease or MultiNonBlockingLease.
type Lease struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Kind is lease or multi-lease.
	Kind string `json:"kind"`
	SystemTag
	// Slots are the leases: one for a NonBlockingLease, one per numbered
	// child for a MultiNonBlockingLease (its count is at least as many).
	Slots    []LeaseSlot `json:"slots"`
	Warnings []string    `json:"warnings"`
}

// LeaseSlot is one lease and its holder record.
type LeaseSlot struct {
	// Node is the record, relative to the lease's path: lease_holder, or
	// N/lease_holder in a multi-lease.
	Node string `json:"node"`
	// Holder is the record's holder; "" when there is no record (never
	// taken).
	Holder string `json:"holder"`
	// End is the record's end as written (the holder's UTC clock).
	End string `json:"end,omitempty"`
	// EndsInMs is how long until End, by this machine's clock: negative
	// once past. Absent without a readable end.
	EndsInMs *int64 `json:"ends_in_ms,omitempty"`
	// Expired is set when End is past: the record is still there, but
	// nobody holds the lease.
	Expired bool `json:"expired,omitempty"`
	// AgeMs is how long ago the record was written (taken or renewed),
	// by the server's clock.
	AgeMs int64 `json:"age_ms"`
	// Version is the record's format version (Kazoo writes 1).
	Version int `json:"version,omitempty"`
	// Obtaining counts the lock nodes under the slot: clients taking or
	// renewing the lease right now (they hold its lock for a moment).
	Obtaining int `json:"obtaining"`

	Ends    time.Time `json:"-"`
	Written time.Time `json:"-"`
}

// isLease: a NonBlockingLease's directory holds lease_holder and, while a
// client takes the lease, Kazoo lock nodes.
func (d listedDir) isLease() bool {
	if !d.has(kazooLeaseHolder) {
		return false
	}
	for _, n := range d.names {
		if n.Name != kazooLeaseHolder && n.Kind != kindKazooLock {
			return false
		}
	}
	return true
}

// leaseSlot reports whether name is a MultiNonBlockingLease's slot: a
// number as Python's '%d' writes it.
func leaseSlot(name string) bool {
	if name == "" || len(name) > 9 || !recIsDigits(name) {
		return false
	}
	return name == "0" || name[0] != '0'
}

// isMultiLeaseCandidate: every child a slot, slot 0 among them.
func (d listedDir) isMultiLeaseCandidate() bool {
	if !d.has("0") || len(d.names) > recLeaseSlots {
		return false
	}
	for _, n := range d.names {
		if !leaseSlot(n.Name) {
			return false
		}
	}
	return true
}

// lease reads a NonBlockingLease at d.
func (rc *recognizer) lease(ctx context.Context, d listedDir) (Recipe, error) {
	l := &Lease{Path: d.path, Format: recFormatKazoo, Kind: LeaseSingle, Slots: []LeaseSlot{}}
	b := rc.build(d.path)
	slot, ok, err := rc.leaseSlot(ctx, b, d, "")
	if err != nil || !ok {
		return nil, err
	}
	l.Slots = append(l.Slots, slot)
	l.Warnings = b.warn
	return l, nil
}

// multiLease reads a MultiNonBlockingLease at d: nil when slot 0 is no
// lease (neither a record nor a lock node in it).
func (rc *recognizer) multiLease(ctx context.Context, d listedDir) (Recipe, error) {
	l := &Lease{Path: d.path, Format: recFormatKazoo, Kind: LeaseMulti, Slots: []LeaseSlot{}}
	b := rc.build(d.path)
	slots := make([]string, 0, len(d.names))
	for _, n := range d.names {
		slots = append(slots, n.Name)
	}
	sortSlots(slots)
	for i, s := range slots {
		dir := zkview.ChildPath(d.path, s)
		children, stat, err := rc.list(ctx, dir)
		if err != nil {
			return nil, err
		}
		slot, ok, err := rc.leaseSlot(ctx, b, newListedDir(dir, stat, children), s+"/")
		if err != nil {
			return nil, err
		}
		if !ok {
			if i == 0 {
				return nil, nil // slot 0 is tried first: without it, no lease
			}
			b.warnf("slot %s is no lease: neither a %s nor lock nodes", s, kazooLeaseHolder)
			continue
		}
		l.Slots = append(l.Slots, slot)
	}
	for i, s := range slots {
		if s != strconv.Itoa(i) {
			b.warnf("slots are not numbered 0 to %d: MultiNonBlockingLease tries 0 … count-1 in order", len(slots)-1)
			break
		}
	}
	l.Warnings = b.warn
	return l, nil
}

// sortSlots sorts slot names by number.
func sortSlots(slots []string) {
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	sort.Slice(slots, func(i, j int) bool { return n(slots[i]) < n(slots[j]) })
}

// kazooLeaseRecord is lease_holder's JSON.
type kazooLeaseRecord struct {
	Version *int   `json:"version"`
	Holder  string `json:"holder"`
	End     string `json:"end"`
}

// leaseSlot reads one lease's directory (prefix names it in a
// multi-lease): ok is false when it holds neither a record nor lock nodes.
func (rc *recognizer) leaseSlot(ctx context.Context, b *recipeBuilder, d listedDir, prefix string) (LeaseSlot, bool, error) {
	slot := LeaseSlot{Node: prefix + kazooLeaseHolder}
	for _, n := range d.names {
		if n.Kind == kindKazooLock {
			slot.Obtaining++
		}
	}
	if !d.has(kazooLeaseHolder) {
		return slot, slot.Obtaining > 0, nil
	}
	data, stat, err := rc.get(ctx, zkview.ChildPath(d.path, kazooLeaseHolder))
	if err != nil || stat == nil {
		return slot, slot.Obtaining > 0, err
	}
	now := rc.opts.Now
	if stat.Ctime != 0 {
		slot.Written = time.UnixMilli(stat.Ctime)
		slot.AgeMs = max(now.Sub(slot.Written).Milliseconds(), 0)
	}
	var rec kazooLeaseRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.Version == nil {
		b.warnf("%s is not a Kazoo lease record (JSON with version, holder and end): %s", slot.Node, dataText(data))
		return slot, true, nil
	}
	slot.Holder, slot.End, slot.Version = rec.Holder, rec.End, *rec.Version
	if slot.Version != kazooLeaseFormat {
		b.warnf("%s has format version %d; Kazoo 2.8 writes %d and leaves a record of another version to a client that knows it", slot.Node, slot.Version, kazooLeaseFormat)
	}
	end, err := time.ParseInLocation(kazooLeaseDate, rec.End, time.UTC)
	if err != nil {
		b.warnf("%s: end %q is not Kazoo's %%Y-%%m-%%dT%%H:%%M:%%S", slot.Node, rec.End)
		return slot, true, nil
	}
	slot.Ends = end
	in := end.Sub(now).Milliseconds()
	slot.EndsInMs = &in
	if !end.After(now) {
		slot.Expired = true
		b.warnf("lease %s of %s expired %v ago (end %s UTC by the holder's clock) and is still present: nobody holds it, as its holder did not renew it (stopped, or no longer runs the task); the next client to try takes it",
			slot.Node, slot.Holder, roundDuration(-in), rec.End)
	}
	if !slot.Written.IsZero() && end.Before(slot.Written.Add(-time.Second)) {
		b.warnf("%s ends (%s UTC) before it was written (%s UTC by the server's clock): the holder's clock is behind the server's, or its duration was negative", slot.Node, rec.End, slot.Written.UTC().Format(kazooLeaseDate))
	}
	return slot, true, nil
}

// Held reports whether the slot's lease is held now: a record whose end
// is not past.
func (s LeaseSlot) Held() bool { return s.Holder != "" && !s.Expired && !s.Ends.IsZero() }

// Info implements Recipe.
func (l *Lease) Info() Info {
	return Info{Path: l.Path, Kind: l.Kind, Class: ClassLease, Format: l.Format, Warnings: l.Warnings, SystemTag: l.SystemTag}
}

// Holding implements Recipe: a lease's holder has no node of its session
// (its record is persistent), so no contender holds.
func (l *Lease) Holding() []Contender { return nil }

// Lineup implements Recipe: each slot's record, its holder and end as
// data.
func (l *Lease) Lineup() []Place {
	out := make([]Place, 0, len(l.Slots))
	for _, s := range l.Slots {
		c := Contender{Node: s.Node, Format: l.Format, AgeMs: s.AgeMs, Created: s.Written}
		switch {
		case s.Holder == "" && s.End == "":
			c.Data = "(no record)"
		case s.Expired:
			c.Data = fmt.Sprintf("%s, expired at %s UTC", s.Holder, s.End)
		default:
			c.Data = fmt.Sprintf("%s until %s UTC", s.Holder, s.End)
		}
		out = append(out, Place{Role: RoleLeaseRecord, Contender: c})
	}
	return out
}

// Dirs implements Recipe: the lease, and each slot of a multi-lease.
func (l *Lease) Dirs() []string {
	var d recipeDirs
	d.add(l.Path)
	if l.Kind == LeaseMulti {
		for _, s := range l.Slots {
			d.add(zkview.ChildPath(l.Path, s.Node[:len(s.Node)-len(kazooLeaseHolder)-1]))
		}
	}
	return d.list
}

// Emptied implements Recipe.
func (l *Lease) Emptied() Recipe {
	return &Lease{Path: l.Path, Format: l.Format, Kind: l.Kind, SystemTag: l.SystemTag}
}

func (l *Lease) addTo(res *Result)     { res.Leases = append(res.Leases, *l) }
func (l *Lease) members() []*Contender { return nil }
