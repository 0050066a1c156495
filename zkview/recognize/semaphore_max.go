package recognize

import (
	"context"
	"encoding/binary"
	"fmt"
	"path"

	"github.com/zkx-dev/zkx/zkview"
)

// A semaphore's maximum, and leases beyond it.
//
// Kazoo's Semaphore stores max_leases as text in its node, and every
// client refuses a different one (lock.py Semaphore._ensure_path: "Inconsistent
// max leases"). Curator's InterProcessSemaphoreV2 stores nothing: each
// client takes maxLeases from its code, or from a SharedCountReader (a
// SharedCount at another path, 4 bytes, which it follows); an
// InterProcessSemaphoreMutex is a SemaphoreV2 of 1. So for Curator zkx
// reads what it can and says where the maximum came from (Lock.MaxFrom):
//
//   - MaxFromOption: told with Options.SemaphoreMax (`--max PATH=N`);
//   - MaxFromSharedCount: the SharedCount named with Options.SemaphoreMax
//     (`--max-from PATH=COUNT`);
//   - MaxFromConvention: a SharedCount beside the semaphore named
//     <name>-max, <name>-count or <name>-limit (or with '_' or '.'): a
//     naming zkx looks for, which no library imposes;
//   - MaxFromInferred: a lease waits (the session holding locks/ has a
//     lease it does not hold), so the semaphore is full: if every client
//     has the same maximum, it is the number of leases held;
//   - MaxFromUnknown: none of these.
//
// More leases held than a maximum read from the semaphore (Kazoo's), told
// (an option) or named (--max-from) is an over-allocation: Broken, with a
// two-holders alarm (more contenders hold than the recipe lets in). Over
// a conventional SharedCount it is a warning only: zkx cannot tell the
// clients read that one (and MaybeBroken is kept for a waiter that may
// hold). A semaphore of 1 is a mutex by semaphore
// (Curator's InterProcessSemaphoreMutex), and two leases break it as two
// holders break a mutex.

// The sources of a semaphore's maximum (Lock.MaxFrom).
const (
	MaxFromKazoo       = "kazoo"
	MaxFromOption      = "option"
	MaxFromSharedCount = "shared-count"
	MaxFromConvention  = "convention"
	MaxFromInferred    = "inferred"
	MaxFromUnknown     = "unknown"
)

// SemaphoreMax is what zkx is told of a Curator semaphore's maximum: the
// number in its clients' code (Count), or the path of the SharedCount
// they read it from (From). One of them.
type SemaphoreMax struct {
	Count int
	From  string
}

// semaphoreMaxSuffixes are the names, after the semaphore's own, of the
// SharedCount zkx looks for beside it.
var semaphoreMaxSuffixes = []string{"-max", "_max", ".max", "-count", "_count", ".count", "-limit", "_limit", ".limit"}

// judgeSemaphoreMax finds a semaphore's maximum and flags leases beyond
// it. A lock that is no semaphore, or was judged already, is left alone.
func (rc *recognizer) judgeSemaphoreMax(ctx context.Context, l *Lock, h dirHint) error {
	if l.Recipe != recSemaphore || l.MaxFrom != "" {
		return nil
	}
	b := rc.build(l.Path)
	switch {
	case l.Format == recFormatKazoo || l.Format == recFormatMixed:
		l.MaxFrom = MaxFromUnknown
		if l.MaxLeases > 0 {
			l.MaxFrom = MaxFromKazoo
		}
		if l.Format == recFormatMixed {
			return nil // its warnings say what each library counts
		}
	default:
		if err := rc.curatorMax(ctx, b, l, h); err != nil {
			return err
		}
		if l.MaxLeases > 0 {
			l.handovers = leaseHandovers(l, fmt.Sprintf("its maximum (%d, %s)", l.MaxLeases, l.MaxSource()))
		}
	}
	held := len(l.Holders)
	l.MutexBySemaphore = l.MaxLeases == 1
	if l.MaxLeases <= 0 || held <= l.MaxLeases || l.MaxFrom == MaxFromInferred {
		l.Warnings = append(l.Warnings, b.warn...)
		return nil
	}
	text := fmt.Sprintf("%d leases held, more than its maximum of %d (%s): more hold than the semaphore lets in", held, l.MaxLeases, l.MaxSource())
	if l.MutexBySemaphore {
		text = brokenText(l.Holders) + " (a mutex by semaphore: " + l.MaxSource() + ")"
	}
	if l.MaxFrom == MaxFromConvention {
		text = "maybe " + text + ", if its clients read their maximum from " + l.MaxPath + ", which zkx found by its name only (--max-from names it)"
		l.Warnings = append(append(l.Warnings, text), b.warn...)
		return nil
	}
	l.Broken = true
	l.Alarms = append([]Alarm{{Kind: AlarmTwoHolders, Text: text}}, l.Alarms...)
	l.Warnings = append(append([]string{text}, l.Warnings...), b.warn...)
	return nil
}

// curatorMax finds a Curator semaphore's maximum: told, named, by
// convention, or inferred from a waiting lease.
func (rc *recognizer) curatorMax(ctx context.Context, b *recipeBuilder, l *Lock, h dirHint) error {
	told, ok := rc.opts.SemaphoreMax[l.Path]
	switch {
	case ok && told.Count > 0:
		l.MaxLeases, l.MaxFrom = told.Count, MaxFromOption
		return nil
	case ok && told.From != "":
		n, why, err := rc.sharedCount(ctx, told.From)
		if err != nil {
			return err
		}
		if why != "" {
			b.warnf("the maximum was to be read from %s: %s", told.From, why)
			break
		}
		l.MaxLeases, l.MaxFrom, l.MaxPath = n, MaxFromSharedCount, told.From
		return nil
	}
	if l.Path != "/" {
		parent, name := path.Dir(l.Path), path.Base(l.Path)
		siblings, err := rc.siblingsOf(ctx, l.Path, h)
		if err != nil {
			return err
		}
		for _, suffix := range semaphoreMaxSuffixes {
			if !containsSorted(siblings, name+suffix) {
				continue
			}
			p := zkview.ChildPath(parent, name+suffix)
			n, why, err := rc.sharedCount(ctx, p)
			if err != nil {
				return err
			}
			if why == "" {
				l.MaxLeases, l.MaxFrom, l.MaxPath = n, MaxFromConvention, p
				return nil
			}
		}
	}
	for _, w := range l.Waiters {
		if w.Kind == "lease" {
			l.MaxLeases, l.MaxFrom = len(l.Holders), MaxFromInferred
			return nil
		}
	}
	l.MaxFrom = MaxFromUnknown
	return nil
}

// sharedCount reads a Curator SharedCount: its value, or why it is none.
func (rc *recognizer) sharedCount(ctx context.Context, p string) (int, string, error) {
	data, stat, err := rc.get(ctx, p)
	switch {
	case err != nil:
		return 0, "", err
	case stat == nil:
		return 0, "no such node", nil
	case len(data) != 4:
		return 0, fmt.Sprintf("it holds %d bytes, not a SharedCount's 4", len(data)), nil
	}
	n := int(int32(binary.BigEndian.Uint32(data)))
	if n <= 0 {
		return 0, fmt.Sprintf("its count is %d: no lease could be taken", n), nil
	}
	return n, "", nil
}

// MaxSource says where a semaphore's maximum came from, in the words of
// its warnings: "the SharedCount at /app/sem-max", "as zkx was told",
// "unknown: Curator keeps it in its clients' code".
func (l *Lock) MaxSource() string {
	switch l.MaxFrom {
	case MaxFromKazoo:
		return "Kazoo's max_leases, stored in the semaphore's node"
	case MaxFromOption:
		return "as zkx was told"
	case MaxFromSharedCount:
		return "the SharedCount at " + l.MaxPath
	case MaxFromConvention:
		return "the SharedCount at " + l.MaxPath + ", found by its name"
	case MaxFromInferred:
		return "inferred: a lease waits while " + plural(l.MaxLeases, "lease") + " hold"
	}
	return "unknown: Curator keeps it in its clients' code"
}
