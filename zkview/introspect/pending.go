package introspect

import (
	"sync"

	"github.com/zkx-dev/zkx/zkview"
)

// Pending are tables that arrive while a scan runs: Ask and the scan start
// together, and a recogniser that asks before the answer is in waits for
// it (one that never asks never waits). Until Set, every question blocks;
// after a failed Ask every answer is "not known".
type Pending struct {
	ready  chan struct{}
	once   sync.Once
	snap   *Snapshot
	err    error
	tables *Tables
}

// NewPending returns tables that answer once Set is called.
func NewPending() *Pending { return &Pending{ready: make(chan struct{})} }

// Set delivers Ask's answer; only the first call counts.
func (p *Pending) Set(snap *Snapshot, err error) {
	p.once.Do(func() {
		p.snap, p.err, p.tables = snap, err, snap.Tables() // a nil Snapshot knows nothing
		close(p.ready)
	})
}

// Wait returns what Set delivered, once it has.
func (p *Pending) Wait() (*Snapshot, error) {
	<-p.ready
	return p.snap, p.err
}

// ClientAddress is Tables.ClientAddress, once the tables are in.
func (p *Pending) ClientAddress(session int64) (string, bool) {
	<-p.ready
	return p.tables.ClientAddress(session)
}

// Connected is Tables.Connected, once the tables are in.
func (p *Pending) Connected(session int64) (bool, bool) {
	<-p.ready
	return p.tables.Connected(session)
}

// Watches is Tables.Watches, once the tables are in.
func (p *Pending) Watches(session int64, path string) (bool, bool) {
	<-p.ready
	return p.tables.Watches(session, path)
}

// LastHeard is Tables.LastHeard, once the tables are in.
func (p *Pending) LastHeard(session int64) (zkview.Liveness, bool) {
	<-p.ready
	return p.tables.LastHeard(session)
}

// Watchers is Tables.Watchers, once the tables are in.
func (p *Pending) Watchers(path string) ([]int64, bool) {
	<-p.ready
	return p.tables.Watchers(path)
}

// Ephemerals is Snapshot.Ephemerals, once the answer is in.
func (p *Pending) Ephemerals() ([]string, bool) {
	<-p.ready
	return p.snap.Ephemerals()
}
