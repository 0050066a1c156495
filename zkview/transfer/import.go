package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
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
	// DryRun reports what the import would do, and writes nothing: each
	// transaction the import would send is sent to be judged and not
	// applied (zkview.BulkWriter.Validate), so that what the server
	// refuses — a missing parent, a node that exists, an invalid ACL, a
	// parent whose ACL does not let this session create — is what the
	// real run would see.
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
	bulk  *zkview.BulkWriter
	opts  ImportOptions
	src   Source
	known map[string]state
	rep   Report
	// dryCreated are the ACLs of the nodes a dry run counted as created:
	// a later transaction that creates below them has them created first
	// in the transaction it sends to be judged.
	dryCreated map[string][]zk.ACL
}

// StoppedError is an import that failed once it had begun to write: the
// transactions before the failing one are written, Written nodes, the
// last of them Last; nothing of the failing one is. The same import again
// with Skip goes on from there.
type StoppedError struct {
	Written int
	Last    string
	Err     error
	// DataReplaced names a node whose data was replaced (overwrite) but
	// whose ACL could not be.
	DataReplaced string
}

func (e *StoppedError) Error() string {
	if e.DataReplaced != "" {
		return fmt.Sprintf("%v (the data of %s was replaced, its ACL not; %d nodes were written, the last %s: run the import again with --overwrite to go on)",
			e.Err, e.DataReplaced, e.Written, orNone(e.Last))
	}
	return fmt.Sprintf("%v (nothing of this transaction was written; %d nodes were written before it, the last %s: run the import again with --skip-existing to go on)",
		e.Err, e.Written, orNone(e.Last))
}

func (e *StoppedError) Unwrap() error { return e.Err }

// Import recreates src's nodes under opts.To, parents first, in
// transactions of many nodes each. Each transaction is all or nothing;
// when one fails half way the report says what the earlier ones wrote,
// and running the same import with Skip goes on from there.
func Import(ctx context.Context, w *zkview.BulkWriter, src Source, opts ImportOptions) (Report, error) {
	im := &importer{bulk: w, opts: opts, src: src, known: map[string]state{}}
	im.rep.DryRun = opts.DryRun
	if opts.DryRun {
		im.dryCreated = map[string][]zk.ACL{}
	}
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
	if !under(rec.Path, root) {
		return nil, fmt.Errorf("%s is not under the export's root %s", rec.Path, root)
	}
	rel := strings.TrimPrefix(rec.Path, root)
	if root == "/" {
		rel = strings.TrimSuffix(rec.Path, "/")
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
		im.known[dst] = failed
		im.refuse(p, "it has no ACL: ZooKeeper refuses to create a node without one (InvalidACL)")
		return nil, nil
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
		exists, errs := im.bulk.Exists(ctx, paths)
		for i, p := range ask {
			if errs[i] != nil {
				return im.stopped(errs[i])
			}
			im.settle(p, exists[i])
		}
	}
}

// settle decides a plan once it is known whether its node exists.
func (im *importer) settle(p *plan, exists bool) {
	switch {
	case !exists && im.tooLarge(p, zkview.OpCreate, failed):
	case !exists:
		p.action = doCreate
		im.known[p.dst] = created
	case im.opts.Existing == Overwrite && im.tooLarge(p, zkview.OpSetData, existed):
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

// tooLarge refuses a plan whose operation no ZooKeeper request can hold
// (jute.maxbuffer), before anything is sent: alone in a transaction, the
// server would drop the connection. The node is then known as st.
func (im *importer) tooLarge(p *plan, kind zkview.WriteKind, st state) bool {
	err := im.bulk.CheckSize(zkview.WriteOp{Kind: kind, Path: p.dst, Data: p.rec.Data, ACL: p.acl})
	if err == nil {
		return false
	}
	im.known[p.dst] = st
	im.refuse(p, err.Error())
	return true
}

// stopped is err, once the import has begun to write.
func (im *importer) stopped(err error) error {
	if im.opts.DryRun {
		return err
	}
	return &StoppedError{Written: im.rep.Created + im.rep.Updated, Last: im.rep.LastWritten, Err: err}
}

// apply decides a batch and writes it as one transaction (a dry run sends
// it to be judged); a refused operation is taken out (with what depended
// on it) and the rest sent again.
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
		var err error
		if im.opts.DryRun {
			err = im.validate(ctx, ops, owners)
		} else {
			err = im.bulk.Multi(ctx, ops)
		}
		var me *zkview.MultiError
		if errors.As(err, &me) {
			im.drop(batch, owners[me.Index], me.Err)
			continue
		}
		if err != nil {
			return im.stopped(err)
		}
		im.rep.Transactions++
		for _, p := range owners {
			if p.action == doOverwrite && !im.opts.DryRun {
				if err := im.bulk.SetACL(ctx, p.dst, p.acl, -1); err != nil {
					return &StoppedError{Written: im.rep.Created + im.rep.Updated, Last: im.rep.LastWritten, Err: err, DataReplaced: p.dst}
				}
			}
			if p.action == doCreate && im.opts.DryRun {
				im.dryCreated[p.dst] = p.acl
			}
		}
		im.count(owners)
		return nil
	}
}

// validate sends a dry run's transaction to be judged: its operations
// without their data (sizes were checked apart: data changes nothing
// else of what the server judges), after the creation of the nodes the
// dry run counted as created in earlier transactions that they sit below.
// A refusal is a *zkview.MultiError indexing ops.
func (im *importer) validate(ctx context.Context, ops []zkview.WriteOp, owners []*plan) error {
	need := map[string]bool{}
	for _, p := range owners {
		for dir := path.Dir(p.dst); im.dryCreated[dir] != nil && !need[dir]; dir = path.Dir(dir) {
			need[dir] = true
		}
	}
	prefix := make([]zkview.WriteOp, 0, len(need))
	for dir := range need {
		prefix = append(prefix, zkview.WriteOp{Kind: zkview.OpCreate, Path: dir, ACL: im.dryCreated[dir]})
	}
	sort.Slice(prefix, func(i, j int) bool { return prefix[i].Path < prefix[j].Path }) // parents first
	all := append(prefix, ops...)
	for i := len(prefix); i < len(all); i++ {
		all[i].Data = nil
	}
	err := im.bulk.Validate(ctx, all)
	var me *zkview.MultiError
	if errors.As(err, &me) {
		if me.Index < len(prefix) {
			return fmt.Errorf("the server now refuses %s, which this dry run counted as created: %w", me.Op.Path, me.Err)
		}
		me.Index -= len(prefix)
		me.Op = ops[me.Index]
	}
	return err
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
	switch {
	case zkview.IsNoAuth(err) && bad.action == doOverwrite:
		reason += " (its ACL does not let this session write; import with --auth of an identity its ACL names)"
	case zkview.IsNoAuth(err):
		reason += " (the parent's ACL does not let this session create; import with --auth of an identity its ACL names)"
	case zkview.IsNoNode(err) && bad.action == doCreate:
		reason = "its parent " + path.Dir(bad.dst) + " does not exist"
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
