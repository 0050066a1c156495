package recognize

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/zkx-dev/zkx/zkview"
)

// leasesOnly is a directory of Curator lease nodes met on its own: every
// lease holds.
func (rc *recognizer) leasesOnly(d listedDir, ms []childNode, foreign []childName) *Lock {
	l := &Lock{Path: d.path, Recipe: recSemaphore, Format: dataFormat(ms, recFormatCurator), Holders: []Contender{}, Waiters: []Contender{}}
	b := rc.build(d.path)
	for _, m := range ms {
		c := b.holder(m, m.Name, "lease holder", true)
		c.Kind = "lease"
		l.Holders = append(l.Holders, c)
	}
	b.checkForeign(foreign, "", "curator semaphore")
	b.checkWrap(namesOf(ms), "")
	l.Warnings, l.Alarms = b.warn, b.alarms
	l.handovers = leaseHandovers(l, "its maximum (which Curator does not store)")
	return l
}

// curatorSemaphore reads an InterProcessSemaphoreV2 (and zkx's Semaphore):
// <p>/leases/_c_<uuid>-lease-SEQ are the leases, <p>/locks/ a mutex an
// acquirer holds while it creates its lease and, when the leases are more
// than the maximum, while it waits (a child watch on leases/) for one to
// go. So the holders are the leases but one: the newest lease of the
// session holding locks/ is waiting. The others in locks/ wait for their
// predecessor there. The maximum is not stored (MaxLeases stays 0).
func (rc *recognizer) curatorSemaphore(ctx context.Context, d listedDir) (Recipe, error) {
	leasesDir, locksDir := zkview.ChildPath(d.path, "leases"), zkview.ChildPath(d.path, "locks")
	var (
		leases, locks   []childNode
		foreign         []childName
		leaseErr, lkErr error
		wg              sync.WaitGroup
	)
	var leaseNames, lockNames, leaseForeign, lockForeign []childName
	read := func(dir string, want func(childName) bool, into *[]childNode, names, other *[]childName, errp *error) {
		defer wg.Done()
		children, stat, err := rc.list(ctx, dir)
		if err != nil || stat == nil {
			*errp = err
			return
		}
		for _, n := range newListedDir(dir, stat, children).names {
			if want(n) {
				*names = append(*names, n)
			} else {
				*other = append(*other, n)
			}
		}
		sortBySeq(*names)
		*into, *errp = rc.readMembers(ctx, dir, *names)
	}
	wg.Add(2)
	go read(leasesDir, func(n childName) bool { return n.Kind == kindCuratorLease }, &leases, &leaseNames, &leaseForeign, &leaseErr)
	go read(locksDir, func(n childName) bool { return n.family() == familyCuratorLock }, &locks, &lockNames, &lockForeign, &lkErr)
	wg.Wait()
	if leaseErr != nil {
		return nil, leaseErr
	}
	if lkErr != nil {
		return nil, lkErr
	}
	for _, f := range leaseForeign {
		f.Name = "leases/" + f.Name
		foreign = append(foreign, f)
	}
	for _, f := range lockForeign {
		f.Name = "locks/" + f.Name
		foreign = append(foreign, f)
	}
	l := &Lock{Path: d.path, Recipe: recSemaphore, Format: dataFormat(append(append([]childNode{}, leases...), locks...), recFormatCurator),
		Holders: []Contender{}, Waiters: []Contender{}}
	b := rc.build(d.path)
	waiting := -1 // the lease of the session holding locks/
	if len(locks) > 0 {
		for i, m := range leases {
			if m.session() != 0 && m.session() == locks[0].session() {
				waiting = i
			}
		}
	}
	for i, m := range leases {
		if i == waiting {
			continue
		}
		c := b.holder(m, "leases/"+m.Name, "lease holder", true)
		c.Kind = "lease"
		l.Holders = append(l.Holders, c)
	}
	if waiting >= 0 {
		c := b.waiter(leases[waiting], "leases/"+leases[waiting].Name, "leases", false)
		c.Kind = "lease"
		l.Waiters = append(l.Waiters, c)
	} else if len(locks) > 0 {
		// Holds the internal lock, and is creating its lease or about to
		// release the lock.
		l.Waiters = append(l.Waiters, b.waiter(locks[0], "locks/"+locks[0].Name, "leases", false))
	}
	for i := 1; i < len(locks); i++ {
		l.Waiters = append(l.Waiters, b.waiter(locks[i], "locks/"+locks[i].Name, "locks/"+locks[i-1].Name, true))
	}
	b.checkOrphans(locks, "locks/")
	b.checkForeign(foreign, "", l.Format+" semaphore")
	b.checkWrap(namesOf(leases), "leases/")
	b.checkWrap(namesOf(locks), "locks/")
	l.Warnings, l.Alarms = b.warn, b.alarms
	l.handovers = leaseHandovers(l, "its maximum (which Curator does not store)")
	return l, nil
}

// leaseHandovers says, for each lease of a semaphore, what its deletion
// does: the waiter that holds the semaphore's lock (the only one watching
// the leases) counts them again and takes a lease if fewer than maxLeases
// are taken.
func leaseHandovers(l *Lock, maxLeases string) map[string]string {
	out := map[string]string{}
	for _, h := range l.Holders {
		switch {
		case len(l.Waiters) == 0:
			out[h.Node] = "nobody waits: one more lease is free"
		default:
			out[h.Node] = l.Waiters[0].Name() + " counts the leases again and takes one if fewer than " + maxLeases + " are taken"
		}
	}
	return out
}

// kazooSemaphore reads a Kazoo Semaphore: its node <p> holds max_leases as
// text and one ephemeral child per lease, named by a uuid4 hex (Kazoo
// counts every child as a lease); its mutex is the Kazoo Lock at the
// sibling <p>-__lock__, whose holder has the right to take a lease and,
// while the leases are all taken, waits on a child watch of <p> for one
// to go. The nodes of the mutex are named by absolute path.
func (rc *recognizer) kazooSemaphore(ctx context.Context, d listedDir) (Recipe, error) {
	data, stat, err := rc.get(ctx, d.path)
	if err != nil || stat == nil {
		return nil, err
	}
	leases, err := rc.readMembers(ctx, d.path, d.names)
	if err != nil {
		return nil, err
	}
	sortByCzxid(leases)
	lockDir := d.path + kazooSemaphoreLock
	children, _, err := rc.list(ctx, lockDir)
	if err != nil {
		return nil, err
	}
	var lockNames, foreign []childName
	for _, n := range newListedDir(lockDir, nil, children).names {
		if n.Kind == kindKazooLock {
			lockNames = append(lockNames, n)
		} else {
			n.Name = zkview.ChildPath(lockDir, n.Name)
			foreign = append(foreign, n)
		}
	}
	sortBySeq(lockNames)
	locks, err := rc.readMembers(ctx, lockDir, lockNames)
	if err != nil {
		return nil, err
	}
	l := &Lock{Path: d.path, Recipe: recSemaphore, Format: recFormatKazoo, Holders: []Contender{}, Waiters: []Contender{}}
	if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
		l.MaxLeases = n
	}
	b := rc.build(d.path)
	for _, m := range leases {
		c := b.holder(m, m.Name, "lease holder", true)
		c.Kind = "lease"
		l.Holders = append(l.Holders, c)
	}
	for i, m := range locks {
		waitsFor, dataWatch := d.path, false // a child watch on the leases
		if i > 0 {
			waitsFor, dataWatch = zkview.ChildPath(lockDir, locks[i-1].Name), true
		}
		l.Waiters = append(l.Waiters, b.waiter(m, zkview.ChildPath(lockDir, m.Name), waitsFor, dataWatch))
	}
	b.checkOrphans(locks, lockDir+"/")
	b.checkForeign(foreign, "", "kazoo semaphore")
	b.checkWrap(namesOf(locks), lockDir+"/")
	l.Warnings, l.Alarms = b.warn, b.alarms
	l.handovers = leaseHandovers(l, fmt.Sprintf("max_leases (%d)", l.MaxLeases))
	return l, nil
}

func leasesText(n int) string {
	if n == 1 {
		return "1 lease"
	}
	return fmt.Sprintf("%d leases", n)
}

// mixedSemaphore reads a directory a Curator SemaphoreV2 and a Kazoo
// Semaphore share: Curator's leases in leases/ and its internal lock in
// locks/, Kazoo's leases as hex children beside them and its lock at the
// sibling -__lock__. Each library counts only what its source counts:
// Curator the children of leases/ (InterProcessSemaphoreV2), Kazoo every
// child of the directory (Semaphore._get_lease), so Curator's two
// directories look to Kazoo like two leases taken, and Curator does not see
// Kazoo's leases at all. Every lease holds, whichever library took it.
func (rc *recognizer) mixedSemaphore(ctx context.Context, d listedDir) (Recipe, error) {
	cr, err := rc.curatorSemaphore(ctx, d)
	if err != nil {
		return nil, err
	}
	kd := listedDir{path: d.path, stat: d.stat}
	dirs := 0
	for _, n := range d.names {
		if n.Kind == kindHexMember {
			kd.names = append(kd.names, n)
		} else {
			dirs++
		}
	}
	kr, err := rc.kazooSemaphore(ctx, kd)
	if err != nil {
		return nil, err
	}
	c, k := cr.(*Lock), kr.(*Lock)
	l := &Lock{Path: d.path, Recipe: recSemaphore, Format: recFormatMixed, Formats: []string{recFormatCurator, recFormatKazoo},
		MaxLeases: k.MaxLeases, Holders: append(append([]Contender{}, c.Holders...), k.Holders...),
		Waiters: append(append([]Contender{}, c.Waiters...), k.Waiters...)}
	b := rc.build(d.path)
	b.warnf("mixed layouts: a Curator InterProcessSemaphoreV2 (%s in leases/) and a Kazoo Semaphore (%s) on one path: Curator counts only the children of leases/, so it does not see Kazoo's leases; Kazoo counts every child of %s, Curator's leases/ and locks/ among them, as %s taken",
		leasesText(len(c.Holders)), leasesText(len(k.Holders)), d.path, leasesText(len(k.Holders)+dirs))
	if k.MaxLeases > 0 && len(l.Holders) > k.MaxLeases {
		b.warnf("%d leases are held in all, more than Kazoo's max_leases %d: neither library counts the other's", len(l.Holders), k.MaxLeases)
	}
	l.Warnings = append(b.warn, append(c.Warnings, k.Warnings...)...)
	l.Alarms = append(append([]Alarm{}, c.Alarms...), k.Alarms...)
	l.handovers = map[string]string{}
	for n, h := range c.handovers {
		l.handovers[n] = h
	}
	for n, h := range k.handovers {
		l.handovers[n] = h
	}
	return l, nil
}
