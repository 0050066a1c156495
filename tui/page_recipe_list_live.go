package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview/live"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// How a recipe list stays live after its scan: a live.Model (zkview/live)
// follows every directory of every listed recipe in the live tree,
// recognises a recipe again when its directories' children change (at most
// once per live.RecognizeEvery) and asks the servers again when recipes
// change (at most once per live.TablesEvery, a little after the change).
// The page feeds it the tree's changes and draws what it holds
// (liveMsg): a recipe whose directory is gone drops out, one no longer of
// the kind shows emptied; new recipes appear only on a rescan (ctrl+r):
// nothing watches the whole tree.

// newLiveModel builds the model behind a recipe view on the explorer's
// tree and clock; accept is live.Config.Accept, tables whether the recipes
// need the servers' tables.
func newLiveModel(shared *sharedState, src source, tables bool, accept func(string, recognize.Recipe) bool) *live.Model {
	cfg := live.Config{
		Recognize: src.recognize,
		Options:   func() recognize.Options { return shared.scanOptions(nil) },
		Accept:    accept,
		Notify:    shared.liveChanged,
		Now:       shared.Now,
		Pace:      shared.pace,
		Go:        shared.goLive,
		After:     shared.afterLive,
	}
	if tables {
		cfg.Introspect = src.introspect
	}
	if shared.Tree != nil {
		cfg.Tree = shared.Tree
	}
	return live.New(cfg)
}

// scanned takes a finished scan: its figures for the summary, and its
// recipes for the model to follow.
func (p *recipeListPage) scanned(msg scanMsg) tea.Cmd {
	now := p.shared.Now()
	p.scan.running, p.scan.done = false, true
	p.scan.took, p.scan.found, p.scan.foundBy = now.Sub(p.scan.started), msg.nodes, msg.res.FoundBy
	p.scan.err, p.scan.partial = msg.err, msg.res.Partial
	var status tea.Cmd
	if msg.err != nil {
		status = failureLine(msg.err)
		if !msg.res.Partial {
			return status // nothing read: what is listed stays
		}
	}
	found := live.Found{Recipes: p.kind.pick(msg.res), Partial: msg.res.Partial, Pzxid: msg.pzxid}
	if p.kind.tables() && (msg.snapshot != nil || msg.snapshotErr != nil) {
		found.Tables, found.TablesErr, found.TablesAsked = msg.snapshot, msg.snapshotErr, p.scan.started
	}
	p.model.Set(found)
	p.pull()
	return status
}

// pull draws what the model holds now, when it changed since last drawn.
func (p *recipeListPage) pull() {
	snap := p.model.Snapshot()
	if snap.Version == p.drawn && p.order != nil {
		return
	}
	p.drawn = snap.Version
	p.order = p.order[:0]
	p.recipes, p.errs = map[string]recognize.Recipe{}, map[string]error{}
	for _, path := range snap.Order {
		e := snap.Entries[path]
		if e.Recipe == nil {
			continue
		}
		p.order = append(p.order, path)
		p.recipes[path] = e.Recipe
		if e.Err != nil {
			p.errs[path] = e.Err
		}
	}
	p.tables, p.tablesErr = snap.Tables, snap.TablesErr
	p.rebuild()
}
