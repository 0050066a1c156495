package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/live"
	"github.com/zkx-dev/zkx/zkview/metrics"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The exporter's retry pace after a failed connect.
const (
	firstBackoff = time.Second
	maxBackoff   = 30 * time.Second
	// dialWithin bounds one attempt to take a session.
	dialWithin = 30 * time.Second
	// treeInterval is how often the watched tree reports changes (the
	// live model then paces recognitions itself).
	treeInterval = 100 * time.Millisecond
)

// watchtower is the exporter's refresh: one session at a time, a live
// model of the recipes on it, and what it publishes to the metrics.
type watchtower struct {
	globals *globalOptions
	flags   *exporterFlags
	root    string
	maxima  map[string]recognize.SemaphoreMax
	exp     *metrics.Exporter
	log     io.Writer

	// said is the last line said on the log, not said again; the walk's
	// goroutine says too.
	saidMu sync.Mutex
	said   string
}

// say writes a warning on the log, once while it stays the same.
func (w *watchtower) say(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	w.saidMu.Lock()
	defer w.saidMu.Unlock()
	if line == w.said {
		return
	}
	w.said = line
	warnf(w.log, "%s", line)
}

// sayAgain lets the next warning be said even when it was the last one:
// the session came back in between.
func (w *watchtower) sayAgain() {
	w.saidMu.Lock()
	w.said = ""
	w.saidMu.Unlock()
}

// run keeps a session and follows the recipes on it until ctx ends: a
// failed connect is counted, said and tried again after a backoff.
func (w *watchtower) run(ctx context.Context) {
	backoff := firstBackoff
	for ctx.Err() == nil {
		dialCtx, cancel := context.WithTimeout(ctx, dialWithin)
		client, err := w.globals.dial(dialCtx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.exp.RefreshFailed(reasonOf(err, metrics.ReasonConnect))
			w.exp.Publish(metrics.State{At: time.Now()})
			// Said once while it stays the same, whatever the backoff.
			w.say("no session: %v; trying again after a backoff (%v, doubling to %v)", err, firstBackoff, maxBackoff)
			if !sleepCtx(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = firstBackoff
		w.follow(ctx, client)
		client.Close()
	}
}

// reasonOf is the zkx_refresh_errors_total reason of an error; otherwise
// when it is none of the known ones.
func reasonOf(err error, otherwise string) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return metrics.ReasonTimeout
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrAuthFailed):
		return metrics.ReasonNoAuth
	case errors.Is(err, zk.ErrSessionExpired):
		return metrics.ReasonSessionExpired
	case errors.Is(err, zk.ErrBadArguments), errors.Is(err, zk.ErrUnknown):
		return metrics.ReasonBadAnswer
	}
	return otherwise
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// session is what one session's refresh holds.
type session struct {
	tower  *watchtower
	client *zkview.Client
	tree   *zkview.Tree
	model  *live.Model
	holds  *recognize.HoldClock

	mu sync.Mutex
	// scanned is set once a scan on this session has finished: before
	// it the model is not current.
	scanned bool
	// ephemeralDirs are the directories of ephemeral nodes already seen:
	// a new one is looked at for new recipes (no walk).
	ephemeralDirs map[string]bool
	// failed are the recognitions' errors already counted, by path.
	failed map[string]string
	// tablesCounted is when the last failed question to the servers that
	// was counted was asked.
	tablesCounted time.Time
}

// follow keeps the model current on one client until ctx ends or the
// client is closed. The client opens a new session by itself after an
// expiry: the model is then rebuilt on it.
func (w *watchtower) follow(ctx context.Context, client *zkview.Client) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &session{tower: w, client: client, holds: recognize.NewHoldClock(), ephemeralDirs: map[string]bool{}, failed: map[string]string{}}
	// One-shot watches, set again by each read (at most one per
	// ReadEvery a node): the exporter holds one session, where persistent
	// watches would need a watch session of their own.
	s.tree = zkview.NewTree(client, treeInterval, zkview.TreeOneShot())
	defer s.tree.Close()
	notify := make(chan struct{}, 1)
	s.model = live.New(live.Config{
		Recognize: func(ctx context.Context, dir string, o recognize.Options) (recognize.Recipe, error) {
			return recognize.Dir(ctx, client, dir, o)
		},
		Introspect: s.introspect,
		Tree:       s.tree,
		Options:    s.options,
		Notify: func() {
			select {
			case notify <- struct{}{}:
			default:
			}
		},
	})
	defer s.model.Close()
	go s.model.Feed(ctx, s.tree.Updates())
	events := client.Events()
	w.sayAgain()
	notef(w.log, "session 0x%x on %s", client.SessionID(), client.Server())

	scans := make(chan struct{}, 1)
	scan := func() {
		select {
		case scans <- struct{}{}:
		default:
		}
	}
	go s.scanLoop(ctx, scans)
	scan()
	tables := time.NewTicker(w.flags.tablesEvery)
	defer tables.Stop()
	rescan := time.NewTicker(w.flags.rescanEvery)
	defer rescan.Stop()
	up := true
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			switch ev.State {
			case zkview.Expired:
				up = false
				w.exp.RefreshFailed(metrics.ReasonSessionExpired)
				w.say("session expired: a new one is being made and the model rebuilt")
			case zkview.Suspended:
				up = false
				w.exp.RefreshFailed(metrics.ReasonConnect)
				w.say("connection to %s lost: the session may still be alive; reconnecting", ev.Server)
			case zkview.Connected:
				up = true
				notef(w.log, "session 0x%x on %s", ev.SessionID, ev.Server)
				w.sayAgain()
				if ev.NewSession {
					s.mu.Lock()
					s.scanned = false
					s.mu.Unlock()
					scan()
				}
			case zkview.Closed:
				return
			}
			s.publish(up)
		case <-tables.C:
			s.model.AskTables()
			s.publish(up)
		case <-rescan.C:
			scan()
		case <-notify:
			s.publish(up)
		}
	}
}

// options are the recognition options as of now.
func (s *session) options() recognize.Options {
	f := s.tower.flags
	return recognize.Options{Now: time.Now(), HeldTooLong: f.heldTooLong, QueueStale: f.older, PartitionSettle: f.settle,
		Holds: s.holds, Viewer: s.client.SessionID(), SemaphoreMax: s.tower.maxima}
}

// introspect asks the servers for their tables, touching the exporter's
// own session first so that silences are measured against a moment ago;
// a new directory of ephemeral nodes in the answer is looked at for new
// recipes.
func (s *session) introspect(ctx context.Context) (*introspect.Snapshot, error) {
	opts := s.tower.globals.introspectOptions()
	opts.Touch = s.client.Touch
	in, err := introspect.Ask(ctx, s.client.Target(), opts)
	if err == nil {
		go s.newEphemeralDirs(in)
	}
	return in, err
}

// scanLoop walks the tree for recipes whenever asked, one walk at a time.
func (s *session) scanLoop(ctx context.Context, asked <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-asked:
		}
		started := time.Now()
		opts := s.options()
		pzxid := map[string]int64{}
		opts.Visit = func(n zkview.WalkNode) {
			if n.Stat != nil && n.Stat.NumChildren > 0 {
				pzxid[n.Path] = n.Stat.Pzxid
			}
		}
		scanCtx, cancel := context.WithTimeout(ctx, max(s.tower.flags.rescanEvery, time.Minute))
		res, err := recognize.Scan(scanCtx, s.client, s.tower.root, opts)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.tower.exp.RefreshFailed(reasonOf(err, metrics.ReasonOther))
			s.tower.say("the walk of %s: %v", s.tower.root, err)
			if !res.Partial {
				continue
			}
		}
		s.model.Set(live.Found{Recipes: res.All(), Partial: res.Partial, Pzxid: pzxid})
		s.mu.Lock()
		s.scanned = true
		s.mu.Unlock()
		notef(s.tower.log, "walked %s in %v: %s followed", s.tower.root, time.Since(started).Round(time.Millisecond), plural(res.Len(), "recipe"))
	}
}

// newEphemeralDirs looks, without a walk, at the directories of ephemeral
// nodes not seen before (a new lock, a new election) and has the model
// follow the recipes there.
func (s *session) newEphemeralDirs(in *introspect.Snapshot) {
	list, ok := in.Ephemerals()
	if !ok {
		return
	}
	var fresh []string
	s.mu.Lock()
	first := len(s.ephemeralDirs) == 0
	for _, p := range list {
		if !within(p, s.tower.root) {
			continue
		}
		dir := path.Dir(p)
		if !s.ephemeralDirs[dir] {
			s.ephemeralDirs[dir] = true
			if !first {
				fresh = append(fresh, p)
			}
		}
	}
	s.mu.Unlock()
	if len(fresh) == 0 {
		return // the first list: the walk finds what is there
	}
	ctx, cancel := context.WithTimeout(context.Background(), live.RecognizeTimeout)
	defer cancel()
	res, err := recognize.FromEphemerals(ctx, s.client, s.tower.root, fresh, s.options())
	if err != nil && !res.Partial {
		return
	}
	s.model.Set(live.Found{Recipes: res.All(), Partial: true})
}

// publish gives the metrics what the model holds now.
func (s *session) publish(connected bool) {
	snap := s.model.Snapshot()
	s.mu.Lock()
	scanned := s.scanned
	s.countErrors(snap)
	s.mu.Unlock()
	st := metrics.State{At: time.Now(), Up: connected && scanned}
	if snap.Tables != nil {
		for i := range snap.Tables.Members {
			m := &snap.Tables.Members[i]
			st.Members = append(st.Members, metrics.Member{Addr: m.Addr, Up: m.Serving()})
		}
		if snap.TablesAnswered.After(snap.TablesAsked) {
			st.Refresh = snap.TablesAnswered.Sub(snap.TablesAsked)
		}
	}
	var locks []recognize.Lock
	var others []recognize.Recipe
	for _, p := range snap.Order {
		e := snap.Entries[p]
		if e.Recipe == nil || e.Gone {
			continue
		}
		if l, ok := e.Recipe.(*recognize.Lock); ok {
			locks = append(locks, *l)
			continue
		}
		others = append(others, e.Recipe)
	}
	// A deadlock is a cycle across locks: judged over all of them.
	recognize.MarkDeadlocks(locks)
	for i := range locks {
		st.Recipes = append(st.Recipes, &locks[i])
	}
	st.Recipes = append(st.Recipes, others...)
	s.tower.exp.Publish(st)
}

// countErrors counts the failed question to the servers and the failed
// recognitions of a snapshot, each once; the caller holds mu.
func (s *session) countErrors(snap live.Snapshot) {
	if snap.TablesErr != nil && snap.TablesAsked.After(s.tablesCounted) {
		s.tablesCounted = snap.TablesAsked
		s.tower.exp.RefreshFailed(reasonOf(snap.TablesErr, metrics.ReasonTables))
	}
	for p, e := range snap.Entries {
		switch {
		case e.Err == nil:
			delete(s.failed, p)
		case s.failed[p] != e.Err.Error():
			s.failed[p] = e.Err.Error()
			s.tower.exp.RefreshFailed(reasonOf(e.Err, metrics.ReasonOther))
		}
	}
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}
