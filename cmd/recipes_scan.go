package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipeKind is what one of the recipe commands lists.
type recipeKind struct {
	name   string // "locks"
	tables bool   // needs the servers' session tables (clients, watches)
	// contended: its members are ephemeral, so the servers' list of
	// ephemeral nodes finds it without a walk (recognize.ScanContended).
	contended bool
}

var (
	kindLocks = recipeKind{name: "locks", tables: true, contended: true}
	// Queues read the servers' tables for their items in flight: whose
	// session processes each, and whether it is still there.
	kindQueues    = recipeKind{name: "queues", tables: true}
	kindElections = recipeKind{name: "elections", tables: true, contended: true}
)

// recipeOptions are the flags and argument of the commands that
// recognise recipes: locks, queues, elections, systems and recipes.
type recipeOptions struct {
	globals *globalOptions
	kind    recipeKind
	read    readOptions
	long    bool
	check   bool
	// heldTooLong is --held-too-long, or the context's when the flag is
	// not given (heldTooLongGiven).
	heldTooLong      time.Duration
	heldTooLongGiven bool
	connections      int
	walk             bool
	batch            bool
	// semaphore maxima (--max, --max-from) and the queue and partitioner
	// bounds (--older, --settle), for recognize.Options.
	maxes, maxFrom []string
	maxima         map[string]recognize.SemaphoreMax // --max and --max-from, once checked
	older, settle  time.Duration
	// classes are zkx recipes' --class: the classes it lists (every one
	// when none is given).
	classes []string
	path    string
}

// newRecipeCommand is a recipe command of kind with the flags they all
// take; its constructor adds its own.
func newRecipeCommand(g *globalOptions, kind recipeKind, cmd *cobra.Command, run runFunc[*recipeOptions]) (*cobra.Command, *recipeOptions) {
	opts := &recipeOptions{globals: g, kind: kind}
	cmd.Args = cobra.MaximumNArgs(1)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		opts.heldTooLongGiven = c.Flags().Changed("held-too-long")
		return runE(opts, run)(c, args)
	}
	opts.read.register(cmd)
	cmd.Flags().IntVar(&opts.connections, "connections", 4, "sessions to read over (a server works through each connection in order)")
	cmd.Flags().BoolVar(&opts.batch, "batch", true, batchFlagHelp)
	if kind.contended {
		cmd.Flags().BoolVar(&opts.walk, "walk", false, "walk every node under PATH even when the servers list their ephemeral nodes (which finds "+kind.name+" without a walk)")
	}
	return cmd, opts
}

// complete takes PATH (/ by default) and checks the flags.
func (o *recipeOptions) complete(args []string) (err error) {
	o.path = "/"
	if len(args) == 1 {
		if o.path, err = checkPath(args[0]); err != nil {
			return err
		}
	}
	if err := checkClasses(o.classes); err != nil {
		return err
	}
	o.heldTooLong = o.globals.heldTooLong(o.heldTooLongGiven, o.heldTooLong)
	if o.heldTooLongGiven && o.heldTooLong <= 0 {
		return fmt.Errorf("--held-too-long must be positive")
	}
	if err := o.read.check(); err != nil {
		return err
	}
	if o.connections < 1 {
		return fmt.Errorf("--connections must be at least 1")
	}
	if o.maxima, err = semaphoreMaxima(o.maxes, o.maxFrom, o.path); err != nil {
		return err
	}
	if o.older < 0 || o.settle < 0 {
		return fmt.Errorf("--older and --settle must be positive")
	}
	return nil
}

// recipeScan is what a recipe command found.
type recipeScan struct {
	res recognize.Result
	// tables answer whether a session is connected (never nil).
	tables *introspect.Pending
	// ensemble is what should be said of the members: those that did not
	// answer, and the member read through when it lagged.
	ensemble []introspect.MemberNote
	// partial, when set, says why res is incomplete.
	partial error
	// around are the locks of the rest of the tree, found from the
	// ephemeral nodes the servers list, for the cycles of sessions that
	// pass through the locks under a PATH other than /; none otherwise.
	around []recognize.Lock
}

// scanRecipes recognises the recipes at and under opts.path. A path that
// is itself a component of a recipe (a Curator semaphore's locks/, a Kazoo
// semaphore's lock directory…) gives the recipe it belongs to.
// Introspection runs while the tree is walked; its refusals are warned
// about on stderr.
func scanRecipes(ctx context.Context, opts *recipeOptions, std streams) (*recipeScan, error) {
	g, path, kind := opts.globals, opts.path, opts.kind
	cs, err := g.connect()
	if err != nil {
		return nil, err
	}
	// Several connections, batching reads where the server answers
	// multiRead: a server works through each connection's requests in
	// order, and per request, so one connection and a request per node
	// cap a walk of a large tree.
	conn, err := openConnection(ctx, opts.read.timeout, func(ctx context.Context) (zkview.BulkReader, error) {
		return g.dialBulk(ctx, opts.connections, opts.batch)
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, c := conn.ctx, conn.client
	progress := newProgress(std.errOut)
	defer progress.finish()
	tables := introspect.NewPending()
	ropts := recognize.Options{HeldTooLong: opts.heldTooLong, QueueStale: opts.older, PartitionSettle: opts.settle,
		SemaphoreMax: opts.maxima, Visit: func(n zkview.WalkNode) { progress.add(n.Path) }}
	scan := &recipeScan{tables: tables}
	if kind.tables {
		// A verdict on who holds is read after the member zkx reads
		// through has caught up with the leader.
		ask := serversAsk{read: syncFor(ctx, progress, c, path), notes: !opts.check || opts.read.format != cliout.Table}
		if t, ok := c.(zkview.Toucher); ok {
			ask.own = t
		}
		ropts.Tables = tables
		go func() {
			in, err := g.introspectTouching(ctx, progress, cs, ask)
			if err != nil {
				warnf(progress, "%v; client addresses, connections and watches are unknown", err)
			}
			scan.ensemble = in.MemberNotes(ask.read) // before Set: read after Wait
			tables.Set(in, err)
		}()
	} else {
		tables.Set(nil, nil)
	}
	// Stderr is written by the introspection until the tables are in.
	defer tables.Wait()
	var ephemerals recognize.EphemeralList
	if kind.contended && !opts.walk {
		ephemerals = tables
	}

	if path != "/" {
		v, err := recognize.Dir(ctx, c, path, ropts)
		var pe *zkview.PathError
		switch {
		case err != nil && errors.As(err, &pe) && pe.Path == path:
			return nil, err // path itself cannot be read: nothing to show
		case err != nil:
			// A node below (or beside) path: Scan reads them again and
			// reports what it cannot read as a partial result.
		case v != nil && v.Info().Path != path:
			// A component: its recipe lives above path, and the
			// recipe's members are all below it.
			scan.res = recognize.ResultOf(v)
			return scan.done(), nil
		}
	}
	res, err := recognize.ScanContended(ctx, c, path, ropts, ephemerals)
	if res.FoundBy == recognize.FoundByEphemerals && progress.on {
		notef(progress, "found from the ephemeral nodes the servers list (dump), without walking the tree (--walk walks it)")
	}
	var around []recognize.Lock
	if kind == kindLocks && path != "/" && err == nil && len(res.Locks) > 0 {
		around = locksAround(ctx, c, ropts, tables)
	}
	if err != nil {
		if !res.Partial || (zkview.IsNoNode(err) && empty(res)) {
			return nil, err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("--timeout %v reached before the scan of %s finished: %w", opts.read.timeout, path, err)
		}
		scan.res, scan.partial = res, err
		return scan.done(), nil
	}
	scan.res, scan.around = res, around
	return scan.done(), nil
}

// done waits for the servers' tables (the recognisers may not have asked
// for them), so that ensemble is in.
func (s *recipeScan) done() *recipeScan {
	s.tables.Wait()
	return s
}

// locksAround are the locks of the whole tree, found from the ephemeral
// nodes the servers list (no walk): a cycle of sessions through a lock
// under PATH may run through locks elsewhere. None when the servers do not
// list their ephemeral nodes, or the read fails: the cycles are then
// looked for among PATH's locks alone.
func locksAround(ctx context.Context, r zkview.Reader, opts recognize.Options, tables recognize.EphemeralList) []recognize.Lock {
	list, ok := tables.Ephemerals()
	if !ok {
		return nil
	}
	opts.Visit = nil
	res, err := recognize.FromEphemerals(ctx, r, "/", list, opts)
	if err != nil && !res.Partial {
		return nil
	}
	return res.Locks
}

func empty(res recognize.Result) bool {
	return len(res.Locks)+len(res.Elections)+len(res.Queues)+len(res.Barriers)+len(res.Groups) == 0
}

// finish ends a recipe command: a note when nothing was found, and the
// partial error, after the output.
func (s *recipeScan) finish(errOut io.Writer, format cliout.Format, kind recipeKind, path string, found int) error {
	if found == 0 && format == cliout.Table {
		fmt.Fprintf(errOut, "zkx: no %s recognised at or under %s\n", kind.name, path)
	}
	if s.partial != nil {
		return &partialError{s.partial}
	}
	return nil
}
