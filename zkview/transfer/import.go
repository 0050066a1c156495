package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/zkview"
)

// Existing says what Import does with a node that already exists.
type Existing int

const (
	// Refuse leaves it as it is and reports it refused (the default).
	Refuse Existing = iota
	// Skip leaves it as it is and counts it skipped: a resumed import.
	Skip
	// Overwrite replaces its data and ACL.
	Overwrite
)

// ImportOptions tunes Import.
type ImportOptions struct {
	// To is where the source's root is recreated ("": where it was).
	To       string
	Existing Existing
	// DryRun reads the destination and reports what would be done.
	DryRun bool
	// Ephemerals recreates ephemeral nodes, as persistent ones.
	Ephemerals bool
	// Progress, when set, is called after each transaction.
	Progress func(Report)
}

// Report is what an import did (or, dry, would do).
type Report struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Skipped   int `json:"skipped"`   // existing nodes left as they were
	Ephemeral int `json:"ephemeral"` // ephemeral nodes not recreated
	Refused   int `json:"refused"`
	// Refusals are the first refusals, with why.
	Refusals []Refusal `json:"refusals,omitempty"`
	// LastWritten is the last node of the last transaction applied.
	LastWritten  string `json:"last_written,omitempty"`
	Transactions int    `json:"transactions"`
	DryRun       bool   `json:"dry_run,omitempty"`
}

// Refusal is a node not written, and why.
type Refusal struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// maxRefusals is how many refusals a report lists (all are counted).
const maxRefusals = 100

// Transactions of at most this many operations and bytes: well within
// jute.maxbuffer (1 MiB) for the request and for the transaction the
// leader logs and sends to followers.
const (
	batchOps   = 1000
	batchBytes = 512 << 10
)

// state is what the import knows of a destination path.
type state int8

const (
	unknown state = iota
	created       // written by this import (or would be, dry)
	existed       // was there before
	failed        // not written: its children cannot be
)

// plan is one record and what to do with it.
type plan struct {
	rec    Record
	dst    string
	acl    []zk.ACL
	action action
	reason string
}

type action int8

const (
	undecided action = iota
	doCreate
	doOverwrite
	doSkip
	doRefuse
)

// importer carries an import's state across transactions.
type importer struct {
	w     *zkview.BulkWriter
	opts  ImportOptions
	src   Source
	known map[string]state
	rep   Report
}

// Import recreates src's nodes under opts.To, parents first, in
// transactions of many nodes each. Each transaction is all or nothing;
// when one fails half way the report says what the earlier ones wrote,
// and running the same import with Skip goes on from there.
func Import(ctx context.Context, w *zkview.BulkWriter, src Source, opts ImportOptions) (Report, error) {
	im := &importer{w: w, opts: opts, src: src, known: map[string]state{}}
	im.rep.DryRun = opts.DryRun
	if im.opts.To == "" {
		im.opts.To = src.Root()
	}
	var batch []*plan
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := im.apply(ctx, batch)
		batch, size = batch[:0], 0
		if opts.Progress != nil {
			opts.Progress(im.rep)
		}
		return err
	}
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ferr := flush(); ferr != nil {
				return im.rep, ferr
			}
			return im.rep, err
		}
		p, err := im.prepare(rec)
		if err != nil {
			if ferr := flush(); ferr != nil {
				return im.rep, ferr
			}
			return im.rep, err
		}
		if p == nil {
			continue
		}
		n := zkview.WriteOp{Kind: zkview.OpCreate, Path: p.dst, Data: p.rec.Data, ACL: p.acl}.Size()
		if len(batch) > 0 && (len(batch) >= batchOps || size+n > batchBytes) {
			if err := flush(); err != nil {
				return im.rep, err
			}
		}
		batch = append(batch, p)
		size += n
	}
	return im.rep, flush()
}

// prepare maps a record to its destination and settles what needs no
// server: ephemerals, unreadable nodes, ZooKeeper's own. nil: nothing to
// do (counted).
func (im *importer) prepare(rec Record) (*plan, error) {
	root := im.src.Root()
	rel, ok := strings.CutPrefix(rec.Path, root)
	if root == "/" {
		rel, ok = rec.Path, true
		if rel == "/" {
			rel = ""
		}
	}
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return nil, fmt.Errorf("%s is not under the export's root %s", rec.Path, root)
	}
	dst := im.opts.To + rel
	if im.opts.To == "/" && rel != "" {
		dst = rel
	}
	p := &plan{rec: rec, dst: dst}
	switch {
	case dst == "/":
		im.known[dst] = existed
		im.rep.Skipped++ // the root always exists; its data is not the export's to change
		return nil, nil
	case dst == "/zookeeper" || strings.HasPrefix(dst, "/zookeeper/"):
		im.known[dst] = failed
		im.refuse(p, "belongs to ZooKeeper itself")
		return nil, nil
	case rec.Error != "":
		im.known[dst] = failed
		im.refuse(p, "could not be read for the export: "+rec.Error)
		return nil, nil
	case rec.Ephemeral() && !im.opts.Ephemerals:
		im.known[dst] = failed
		im.rep.Ephemeral++
		return nil, nil
	}
	acl, err := rec.ZKACL()
	if err != nil {
		im.known[dst] = failed
		im.refuse(p, err.Error())
		return nil, nil
	}
	if len(acl) == 0 {
		acl = zk.WorldACL(zk.PermAll) // a node with no ACL cannot be created; ZooKeeper shows none only when it hides it
	}
	p.acl = acl
	if im.known[path.Dir(dst)] == failed {
		im.known[dst] = failed
		im.refuse(p, "its parent was not written")
		return nil, nil
	}
	return p, nil
}

func (im *importer) refuse(p *plan, reason string) {
	p.action, p.reason = doRefuse, reason
	im.rep.Refused++
	if len(im.rep.Refusals) < maxRefusals {
		im.rep.Refusals = append(im.rep.Refusals, Refusal{Path: p.dst, Reason: reason})
	}
}

// decide settles each plan of a batch: nodes under a parent this import
// created cannot exist yet; the others are asked about, a round per
// level of nodes that already existed.
func (im *importer) decide(ctx context.Context, batch []*plan) error {
	for {
		waiting := map[string]bool{} // undecided nodes: their children wait for them
		for _, p := range batch {
			if p.action == undecided {
				waiting[p.dst] = true
			}
		}
		var ask []*plan
		for _, p := range batch {
			if p.action != undecided {
				continue
			}
			switch im.known[path.Dir(p.dst)] {
			case created:
				im.settle(p, false)
			case failed:
				im.known[p.dst] = failed
				im.refuse(p, "its parent was not written")
			case existed:
				ask = append(ask, p)
			default:
				if !waiting[path.Dir(p.dst)] {
					ask = append(ask, p) // its parent is outside the import: ask
				}
			}
		}
		if len(ask) == 0 {
			return nil
		}
		paths := make([]string, len(ask))
		for i, p := range ask {
			paths[i] = p.dst
		}
		exists, errs := im.w.Exists(ctx, paths)
		for i, p := range ask {
			if errs[i] != nil {
				return errs[i]
			}
			im.settle(p, exists[i])
		}
	}
}

// settle decides a plan once it is known whether its node exists.
func (im *importer) settle(p *plan, exists bool) {
	switch {
	case !exists:
		p.action = doCreate
		im.known[p.dst] = created
	case im.opts.Existing == Skip:
		p.action = doSkip
		im.known[p.dst] = existed
		im.rep.Skipped++
	case im.opts.Existing == Overwrite:
		p.action = doOverwrite
		im.known[p.dst] = existed
	default:
		im.known[p.dst] = existed // its children may still be written
		im.refuse(p, "it exists (--skip-existing keeps it, --overwrite replaces its data and ACL)")
	}
}

// apply decides a batch and writes it as one transaction; a refused
// operation is taken out (with what depended on it) and the rest sent
// again.
func (im *importer) apply(ctx context.Context, batch []*plan) error {
	if err := im.decide(ctx, batch); err != nil {
		return err
	}
	for {
		var ops []zkview.WriteOp
		var owners []*plan
		for _, p := range batch {
			switch p.action {
			case doCreate:
				ops = append(ops, zkview.WriteOp{Kind: zkview.OpCreate, Path: p.dst, Data: p.rec.Data, ACL: p.acl})
				owners = append(owners, p)
			case doOverwrite:
				ops = append(ops, zkview.WriteOp{Kind: zkview.OpSetData, Path: p.dst, Data: p.rec.Data, Version: -1})
				owners = append(owners, p)
			}
		}
		if len(ops) == 0 {
			return nil
		}
		if im.opts.DryRun {
			im.count(owners)
			return nil
		}
		err := im.w.Multi(ctx, ops)
		var me *zkview.MultiError
		if errors.As(err, &me) {
			im.drop(batch, owners[me.Index], me.Err)
			continue
		}
		if err != nil {
			return fmt.Errorf("%w (nothing of this transaction was written; %d nodes written before it, the last %s: run the import again with --skip-existing to go on)",
				err, im.rep.Created+im.rep.Updated, orNone(im.rep.LastWritten))
		}
		im.rep.Transactions++
		for _, p := range owners {
			if p.action == doOverwrite {
				if err := im.w.SetACL(ctx, p.dst, p.acl, -1); err != nil {
					return fmt.Errorf("%w (its data was replaced; %d nodes written before it)", err, im.rep.Created+im.rep.Updated)
				}
			}
		}
		im.count(owners)
		return nil
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (im *importer) count(done []*plan) {
	for _, p := range done {
		if p.action == doCreate {
			im.rep.Created++
		} else {
			im.rep.Updated++
		}
		im.rep.LastWritten = p.dst
	}
}

// drop refuses the operation the server refused and every node of the
// batch below it.
func (im *importer) drop(batch []*plan, bad *plan, err error) {
	reason := err.Error()
	if zkview.IsNoAuth(err) {
		reason += " (the parent's ACL does not let this session create; import with --auth of an identity its ACL names)"
	}
	// A node that is there (created meanwhile by someone else, or one
	// whose data could not be replaced) still takes children.
	there := bad.action == doOverwrite || errors.Is(err, zk.ErrNodeExists)
	im.refuse(bad, reason)
	if there {
		im.known[bad.dst] = existed
		return
	}
	im.known[bad.dst] = failed
	for _, p := range batch {
		if (p.action == doCreate || p.action == doOverwrite) && strings.HasPrefix(p.dst, bad.dst+"/") {
			im.known[p.dst] = failed
			im.refuse(p, "its parent was not written")
		}
	}
}
