package cmd

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// kindRecipes finds recipes of every class; counters, leases and queues
// are persistent nodes, so it walks.
var kindRecipes = recipeKind{name: "recipes", tables: true}

// recipeClasses are the classes --class takes, in the order zkx recipes
// lists them.
var recipeClasses = []string{
	recognize.ClassLock, recognize.ClassElection, recognize.ClassQueue, recognize.ClassBarrier, recognize.ClassGroup,
	recognize.ClassPartition, recognize.ClassLease, recognize.ClassCounter, recognize.ClassTTLNode,
}

func newRecipesCommand(g *globalOptions) *cobra.Command {
	var flags scanFlags
	var classes []string
	cmd := &cobra.Command{
		Use:   "recipes [PATH]",
		Short: "List every recognised recipe: groups, partitioners, leases, counters, TTL nodes, locks, queues…",
		Long: `recipes finds every recipe at or under PATH, of every class, and says in one
line what each one's state is. Besides the locks, elections and queues of
their own commands:

  group      Kazoo's Party and ShallowParty, Curator's GroupMember (a
             directory of ephemeral members named by themselves), and the
             membership lists of known systems: each member with its session
  partition  Kazoo's SetPartitioner: its party's members, which member owns
             which item (the session holding the item's lock), items owned by
             nobody, members with no share, and "allocation stuck" when an
             item lock taken before the party last changed is still held past
             --settle (python-zk/kazoo#392)
  lease      Kazoo's NonBlockingLease and MultiNonBlockingLease: the holder
             and end of each lease record, and a record past its end still
             present (nobody holds it: its holder stopped renewing)
  counter    Curator's SharedCount, DistributedAtomicInteger and
             DistributedAtomicLong, Kazoo's Counter: the value, how it is
             stored, and which recipes store it so
  ttl-node   Curator's PersistentTtlNode: whether its owner is alive, by how
             long ago its touch child was set against the interval it was set
             at (ZooKeeper does not show the TTL itself)
  barrier    Curator's DistributedBarrier and double barriers

--check prints only the recipes that need someone now, one row per alarm,
and exits 2 when there is one (0 when none, 3 when part of the tree could
not be read).

JSON (-o json) is one object with a list per class — locks, elections,
queues, barriers, groups, partitions, leases, counters, ttl_nodes — each
recipe as the other commands print it (docs/json.md has every field).
` + tablesHelp + "\n" + recipeHelp,
		Example: `  zkx recipes
  zkx recipes --class partition,lease /jobs
  zkx recipes -o json / | jq '.partitions[] | select(.stuck)'
  zkx recipes --check --settle 5m || page-oncall`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "/"
			if len(args) == 1 {
				var err error
				if path, err = checkPath(args[0]); err != nil {
					return err
				}
			}
			for _, c := range classes {
				if !slices.Contains(recipeClasses, c) {
					return fmt.Errorf("--class %s: not a class; one of %s", c, strings.Join(recipeClasses, ", "))
				}
			}
			s, format, err := flags.scan(cmd, g, path, kindRecipes)
			if err != nil {
				return err
			}
			res := pickClasses(s.res, classes)
			out := cmd.OutOrStdout()
			if flags.check {
				return runRecipesCheck(cmd, s, format, res)
			}
			if format == cliout.JSON {
				err = cliout.WriteJSON(out, res)
			} else {
				err = writeAllRecipes(out, res, flags.long, time.Now())
			}
			if err != nil {
				return err
			}
			return s.finish(cmd, format, kindRecipes, path, res.Len())
		},
	}
	flags.register(cmd, kindRecipes)
	flags.registerMaxima(cmd)
	cmd.Flags().StringSliceVar(&classes, "class", nil, "list only these classes: "+strings.Join(recipeClasses, ", "))
	cmd.Flags().BoolVarP(&flags.long, "long", "l", false, "show every member, holder, lease record and item of each recipe")
	cmd.Flags().BoolVar(&flags.check, "check", false, fmt.Sprintf("print only the recipes that need someone now and exit %d when there is one", exitCheckAlarm))
	cmd.Flags().DurationVar(&flags.heldTooLong, "held-too-long", 10*time.Minute, "warn about lock holders that have held longer than this")
	cmd.Flags().DurationVar(&flags.older, "older", 10*time.Minute, "a queue whose item has waited longer than this is stale")
	cmd.Flags().DurationVar(&flags.settle, "settle", 2*time.Minute, "a partitioner whose item locks were not taken again this long after its party changed is stuck")
	return cmd
}

// pickClasses keeps the lists of the classes asked for (every one when
// none is), each [] rather than null.
func pickClasses(res recognize.Result, classes []string) recognize.Result {
	want := func(c string) bool { return len(classes) == 0 || slices.Contains(classes, c) }
	out := recognize.ResultOf(nil)
	if want(recognize.ClassLock) {
		out.Locks = normalLocks(res.Locks)
	}
	if want(recognize.ClassElection) {
		out.Elections = normalElections(res.Elections)
	}
	if want(recognize.ClassQueue) {
		out.Queues = normalQueues(res.Queues)
	}
	if want(recognize.ClassBarrier) {
		out.Barriers = nonNil(res.Barriers)
	}
	if want(recognize.ClassGroup) {
		out.Groups = nonNil(res.Groups)
	}
	if want(recognize.ClassPartition) {
		out.Partitions = nonNil(res.Partitions)
	}
	if want(recognize.ClassLease) {
		out.Leases = nonNil(res.Leases)
	}
	if want(recognize.ClassCounter) {
		out.Counters = nonNil(res.Counters)
	}
	if want(recognize.ClassTTLNode) {
		out.TTLNodes = nonNil(res.TTLNodes)
	}
	return out
}

// writeAllRecipes prints one row per recipe — its class, kind, format and
// state in a line — or with long a block per recipe, then the warnings.
func writeAllRecipes(out io.Writer, res recognize.Result, long bool, now time.Time) error {
	all := res.All()
	if len(all) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	if long {
		for i, r := range all {
			if err := writeRecipeDetail(out, st, i > 0, r, now); err != nil {
				return err
			}
		}
		return nil
	}
	t := cliout.NewTable(out)
	t.Row(st.Header("PATH"), st.Header("CLASS"), st.Header("KIND"), st.Header("FORMAT"), st.Header("STATE"), st.Header("WARNINGS"))
	for _, r := range all {
		info := r.Info()
		state := cliout.Clean(present.Summary(r, now))
		if len(recognize.AlarmsOf(r)) > 0 {
			state = st.Bad(state)
		}
		t.Row(cliout.Clean(info.Path), info.Class, info.Kind, info.Format, state, warnCount(st, info.Warnings))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	return writeWarnings(out, st, func(yield func(string, []string)) {
		for _, r := range all {
			yield(r.Info().Path, r.Info().Warnings)
		}
	})
}

// writeRecipeDetail prints one recipe in the long view: its title and
// state, its contenders (members, holders, lease records, touch), a
// partitioner's items or a queue's items, and its warnings.
func writeRecipeDetail(out io.Writer, st cliout.Styles, gap bool, r recognize.Recipe, now time.Time) error {
	info := r.Info()
	if q, ok := r.(*recognize.Queue); ok {
		return writeQueueBlock(out, st, gap, *q)
	}
	title := fmt.Sprintf("%s  %s  %s  %s", st.Header(cliout.Clean(info.Path)), info.Kind, info.Format, cliout.Clean(present.Summary(r, now)))
	p, partitioner := r.(*recognize.Partitioner)
	if !partitioner {
		return writeRecipeBlock(out, st, now, gap, title, r.Lineup(), info.Warnings, "")
	}
	if err := writeRecipeBlock(out, st, now, gap, title, r.Lineup(), nil, ""); err != nil {
		return err
	}
	t := cliout.NewTable(out)
	t.Row("  "+st.Header("ITEM"), st.Header("OWNER"), st.Header("HOLDER"), st.Header("WAITERS"), st.Header("SINCE THE PARTY CHANGED"))
	for _, it := range p.Items {
		owner, holder, since := st.Dim("(nobody)"), "-", "-"
		if it.Holder != nil {
			holder, owner = who(*it.Holder), st.Warn("(no member)")
		}
		if it.Owner != "" {
			// Members release their items when the party changes; a
			// holder outside the party does not.
			owner, since = cliout.Clean(it.Owner), "re-taken"
			if it.Stale {
				since = st.Bad("NOT re-taken")
			}
		}
		t.Row("  "+cliout.Clean(it.Item), owner, holder, strconv.Itoa(it.Waiters), since)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	for _, w := range info.Warnings {
		fmt.Fprintf(out, "  %s %s\n", st.Warn("warning:"), cliout.Clean(w))
	}
	return nil
}

// runRecipesCheck prints the alarms of every recipe and returns
// exitCheckAlarm when there is one.
func runRecipesCheck(cmd *cobra.Command, s *recipeScan, format cliout.Format, res recognize.Result) error {
	var alarmed []recognize.Recipe
	for _, r := range res.All() {
		if len(recognize.AlarmsOf(r)) > 0 {
			alarmed = append(alarmed, r)
		}
	}
	out := cmd.OutOrStdout()
	var err error
	if format == cliout.JSON {
		only := recognize.ResultOf(nil)
		for _, r := range alarmed {
			only = appendRecipe(only, r)
		}
		err = cliout.WriteJSON(out, only)
	} else {
		err = writeRecipeAlarms(out, func(yield func(string, []recognize.Alarm)) {
			for _, r := range alarmed {
				yield(r.Info().Path, recognize.AlarmsOf(r))
			}
		})
	}
	if err != nil {
		return err
	}
	if s.partial != nil {
		warnf(cmd.ErrOrStderr(), "%v: recipes not read were not checked", s.partial)
	}
	if len(alarmed) > 0 {
		return exitStatus(exitCheckAlarm)
	}
	if format == cliout.Table && isTerminal(cmd.ErrOrStderr()) {
		notef(cmd.ErrOrStderr(), "%s checked: none needs anyone now", plural(res.Len(), "recipe"))
	}
	if s.partial != nil {
		return &partialError{s.partial}
	}
	return nil
}

// appendRecipe adds a recipe to the list of its class.
func appendRecipe(res recognize.Result, r recognize.Recipe) recognize.Result {
	one := recognize.ResultOf(r)
	res.Locks = append(res.Locks, one.Locks...)
	res.Elections = append(res.Elections, one.Elections...)
	res.Queues = append(res.Queues, one.Queues...)
	res.Barriers = append(res.Barriers, one.Barriers...)
	res.Groups = append(res.Groups, one.Groups...)
	res.Partitions = append(res.Partitions, one.Partitions...)
	res.Leases = append(res.Leases, one.Leases...)
	res.Counters = append(res.Counters, one.Counters...)
	res.TTLNodes = append(res.TTLNodes, one.TTLNodes...)
	return res
}
