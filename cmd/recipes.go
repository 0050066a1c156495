package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// recipeHelp is the part of the help the recipe commands share.
const recipeHelp = `
PATH defaults to /. A PATH that is part of a recipe (a Curator semaphore's
locks/ or leases/, a Kazoo semaphore's lock directory, a Kazoo LockingQueue's
entries/) shows the recipe it belongs to. Warnings (a holder whose session
has no connection, a waiter without its watch, foreign children, orphaned
nodes, sequence numbers near the int32 wrap) are listed below the table.

JSON (-o json) is always an array, one object per recipe, in the order of
the walk; lists are [] when empty, never null. Node names are relative to
the recipe's path (a Kazoo semaphore's lock nodes are absolute).

Exit status: 0 when the whole tree was read; 3 when part of it could not be
read (no permission, or --timeout reached): what was found is still printed
(JSON stays a valid array) and stderr names what was not read; 1 on any other
error.`

// contenderHelp documents the JSON of a holder, waiter or candidate.
const contenderHelp = `A holder, waiter or candidate is {node, seq, kind (read | write | lease,
when it applies), format (its own node's layout: zkx | curator | kazoo |
zookeeper-recipes | go-zookeeper | generic | ephemeral-node), view (the
library rule zkx judged it by, e.g. "Kazoo Lock with
extra_lock_patterns=(\"-lock-\",)"), session (0x…), client ("ip:port"; ""
when the servers do not say), client_from ("node data" when the address is
the node's data), data (the node's data as text), age_ms (since its node was
created), held_ms (holders, only when zkx knows when it began to hold:
nothing in the directory changed since its node was created, or the explorer
saw its predecessor go; absent otherwise, age_ms bounds it), waits_for (the
node it watches by its library's rule), watch ("observed" when a server's
watch table confirms it, else "inferred"), connected (whether a server lists
a connection of its session; absent when not known), last_heard_ms (how long
ago its server last answered its session, pings included; absent when not
known), last_heard_at_least (the silence may be longer: zkx had no session
on that server), silent (not heard from for more than a third of its session
timeout: frozen or cut off), expires_by (when the servers expire its session
at the latest if its client stays silent, RFC 3339; expires_by_about when
the servers' tick is not known and it is only about), next (holders: the
waiters that hold once its node is deleted, by their libraries' rules),
may_hold and may_hold_reason (waiters: it holds by one rule its library may
run by and waits by another, and zkx cannot tell which)}.`

// tablesHelp says what the servers' tables add, for locks and elections.
const tablesHelp = `
Client addresses, whether a session is still connected, and whether a
waiter's watch is "observed" come from the servers' four-letter words cons,
dump, wchc and wchp (or the AdminServer with --admin-url). A server that
refuses them (4lw.commands.whitelist) is warned about on stderr and the
command goes on: client is then empty and every watch "inferred".`

func newLocksCommand(g *globalOptions, run runFunc[*recipeOptions]) *cobra.Command {
	cmd, opts := newRecipeCommand(g, kindLocks, &cobra.Command{
		Use:   "locks [PATH]",
		Short: "List recognised locks, read-write locks and semaphores, holders and waiters",
		Long: `locks finds every lock-like recipe at or under PATH — mutexes, read-write
locks and semaphores laid out by Curator, Kazoo, ZooKeeper's recipes,
go-zookeeper or zkx — and shows who holds each one, for how long, and who
waits. With -l, every contender is shown: its format, session, client
address, whether the session is still connected, how long ago its server
last heard from it, its node's age, how long it has held (when zkx knows),
the node it waits for and whether the server confirms that watch, then the
wait chain (holder ← first waiter ← second waiter …) and the warnings.

Each contender is judged by its own library's rule, as that library's
source has it: Curator sorts by the text after "lock-", Kazoo sees only its
own names unless given extra_lock_patterns, go-zookeeper parses every
child's number, ZooKeeper's WriteLock orders by the number after the last
'-'. Lock nodes of several libraries in one directory are one queue (the
server numbers every child of a parent in one sequence); every contender
whose library lets it in is a holder, and two holders of a mutex (or a
writer with anyone) is the first warning: "two holders: mutual exclusion is
broken".

A holder whose server has not heard from it for more than a third of its
session timeout (cons lresp, the AdminServer's last_response_time, compared
only with the same server's clock) is warned about: frozen or cut off, with
when its session expires at the latest.

Holders are the contenders that hold for certain. Where a library may run
in several ways (a Kazoo Lock with or without extra_lock_patterns) and the
ways disagree, the servers' watch tables tell which; without them the
contender stays a waiter in its queue place, marked may_hold with the
reason, and a lock it would break is maybe_broken.

Over every lock found, zkx builds the wait-for graph of sessions (a session
waiting in a lock's queue waits for those ahead of it up to the holder): a
cycle — session A holds L1 and waits in L2's queue while session B holds L2
and waits in L1's — is a deadlock, the first warning of every lock in it,
naming each session, what it holds, where it waits, and which releases
break it. With a PATH other than /, the locks elsewhere are found from the
ephemeral nodes the servers list (dump), so a cycle through a lock outside
PATH is seen too; when the servers do not list them, only PATH's locks
count.

--check prints only the locks that need someone now — a deadlock, two
holders (or maybe two, when a waiter may hold by a configuration zkx cannot
confirm), a holder whose session has no connection, a silent holder, a
holder past --held-too-long (by held_ms; by its node's age, which bounds it,
when the start of its holding was not seen, and the alarm says so) — and
exits 2 when there is one (0 when none, 3 when part of the tree could not be
read).

Curator's LeaderSelector and Kazoo's Election are mutexes underneath: they
are listed here, the leader as the holder.

A semaphore's maximum: Kazoo stores it; Curator keeps it in its clients'
code or in a SharedCount they read (SharedCountReader). Tell zkx with --max
SEMAPHORE=N or --max-from SEMAPHORE=COUNT; otherwise zkx looks for a
SharedCount beside the semaphore named <name>-max, -count or -limit (its own
convention), or infers it from a lease waiting (full at the leases held).
More leases held than a known maximum is "broken" (two-holders); than a
conventional one, a warning. A semaphore of 1 (InterProcessSemaphoreMutex)
is a mutex by semaphore.

JSON objects: path, recipe (mutex | rwlock | semaphore), format (zkx |
curator | kazoo | zookeeper-recipes | go-zookeeper | generic |
ephemeral-node, or mixed with formats listing them), deadlock (in a cycle
of sessions across locks), broken (two holders where one may hold, or
more leases than a semaphore's known maximum), maybe_broken (so only if a
waiter marked may_hold holds, which zkx could not confirm), max_leases,
max_from (kazoo | option | shared-count | convention | inferred | unknown:
where a semaphore's maximum came from), max_path, mutex_by_semaphore,
holders (for certain), waiters (in queue order), warnings, and alarms
([{kind: deadlock | two-holders | maybe-two-holders | gone-holder | silent-holder |
held-too-long, node, text}], the warnings --check acts on) and ensemble.
` + contenderHelp + `
` + ensembleHelp + `
` + tablesHelp + "\n" + recipeHelp,
		Example: `  zkx locks
  zkx locks -l /app/locks
  zkx locks -o json / | jq '.[] | select(.waiters | length > 0)'
  zkx locks --held-too-long 1m --admin-url http://zk1:8080/commands /app
  zkx locks --check --held-too-long 15m /app || page-oncall`,
	}, run)
	cmd.Flags().BoolVarP(&opts.long, "long", "l", false, "show every holder and waiter, the wait chain and the warnings")
	cmd.Flags().DurationVar(&opts.heldTooLong, "held-too-long", 10*time.Minute, "warn about holders that have held longer than this")
	cmd.Flags().BoolVar(&opts.check, "check", false, fmt.Sprintf("print only the locks that need someone now (a deadlock, two holders, a holder gone or silent, held past --held-too-long) and exit %d when there is one", exitCheckAlarm))
	opts.registerMaxima(cmd)
	return cmd
}

// exitCheckAlarm is zkx locks --check's exit status when a lock needs
// someone now (Nagios's CRITICAL).
const exitCheckAlarm = 2

// runCheck prints the locks with alarms, one row per alarm (or their JSON
// objects), and returns exitCheckAlarm when there is one.
func runCheck(std streams, s *recipeScan, format cliout.Format, locks []recognize.Lock, heldTooLong time.Duration) error {
	var alarmed []recognize.Lock
	for _, l := range locks {
		if len(l.Alarms) > 0 {
			alarmed = append(alarmed, l)
		}
	}
	out := std.out
	var err error
	if format == cliout.JSON {
		err = cliout.WriteJSON(out, locksJSON(normalLocks(alarmed), s.ensemble))
	} else {
		// A sick member is part of the answer (the lock alarms stay the
		// exit status's subject).
		err = writeAlarms(out, alarmed)
		writeEnsemble(out, s.ensemble)
	}
	if err != nil {
		return err
	}
	return checkVerdict(std, s, format, "locks", len(alarmed),
		fmt.Sprintf("%s checked: none is in a deadlock, has two holders, a holder gone or silent, or one held past %v", plural(len(locks), "lock"), heldTooLong))
}

// writeAlarms prints one row per alarm of each lock: what is wrong, with
// whom, in the warning's words.
func writeAlarms(out io.Writer, locks []recognize.Lock) error {
	if len(locks) == 0 {
		return nil
	}
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("PATH"), st.Header("ALARM"), st.Header("HOLDER"), st.Header("WHAT"))
	for _, l := range locks {
		for _, a := range l.Alarms {
			holder := "-"
			for _, h := range l.Holders {
				if h.Node == a.Node {
					holder = who(h)
				}
			}
			kind := styled(st, present.AlarmSeverity(a.Kind), a.Kind)
			t.Row(cliout.Clean(l.Path), kind, holder, cliout.Clean(a.Text))
		}
	}
	return t.Flush()
}

func newQueuesCommand(g *globalOptions, run runFunc[*recipeOptions]) *cobra.Command {
	cmd, opts := newRecipeCommand(g, kindQueues, &cobra.Command{
		Use:   "queues [PATH]",
		Short: "List recognised queues, their length and first items",
		Long: `queues finds every queue at or under PATH — Curator's DistributedQueue
(and its priority, delay and id variants), Kazoo's Queue and LockingQueue,
ZooKeeper's DistributedQueue (and zkx's and Curator's SimpleDistributedQueue,
which share its layout) — and shows its length, how old its oldest item is,
how many items a consumer is processing, and its items in the order they
will be taken (the first 1000 are read). With -l every item read is listed
with its age, a delay queue's due time ("due in 3m", "overdue 12m"), an id
queue's id, and for an item in flight the consumer's session.

Items in flight: a Curator queue with guaranteed delivery (QueueBuilder
.lockPath) processes each item under an ephemeral node of the same name in
its lockPath, which is in the clients' code: zkx finds it beside the queue
by name (<queue>-lock, <queue>-locks, <queue>_lock… or a sibling lock or
locks holding only queue- names) or, when PATH is above both, by its items'
names. A Kazoo LockingQueue's taken/ nodes are its items in flight. Their
consumers' sessions are looked up in the servers' tables (cons): a consumer
with no connection, or silent, leaves its item stuck until its session
expires.

--check prints only the queues that need someone now and exits 2 when there
is one (0 when none, 3 when part of the tree could not be read): a queue is
stale when an item has waited longer than --older (since its node was
created, or for a delay queue's item since it was due; items not yet due or
in flight do not wait), and an item in flight is stuck when its consumer's
session has no connection or is silent.

JSON objects: path, format, kind (priority | delay | id | lock-path, for
Curator's variants; absent for a plain queue), length (every item),
oldest_age_ms (the oldest item's node, read or not), longest_wait_ms, due
(delay queues: items due now), in_flight, lock_path, stale, items (in the
order they are taken, at most 1000: {node, data, priority (Kazoo, Curator's
priority queue), taken (Kazoo LockingQueue), age_ms, id (id queue),
due_in_ms (delay queue; negative once overdue), waiting_ms, in_flight,
consumer (a contender as in zkx locks: the session processing it)}),
warnings, alarms ([{kind: queue-stale | item-stuck, node, text}]).
` + tablesHelp + "\n" + recipeHelp,
		Example: `  zkx queues
  zkx queues -l /app/jobs
  zkx queues -o json / | jq '.[] | {path, length, oldest_age_ms}'
  zkx queues --check --older 15m /app || page-oncall`,
	}, run)
	cmd.Flags().BoolVarP(&opts.long, "long", "l", false, "list every item read")
	cmd.Flags().BoolVar(&opts.check, "check", false, fmt.Sprintf("print only the queues that need someone now (an item waiting longer than --older, an item in flight whose consumer is gone or silent) and exit %d when there is one", exitCheckAlarm))
	cmd.Flags().DurationVar(&opts.older, "older", 10*time.Minute, "a queue whose item has waited longer than this is stale")
	return cmd
}

func newElectionsCommand(g *globalOptions, run runFunc[*recipeOptions]) *cobra.Command {
	cmd, opts := newRecipeCommand(g, kindElections, &cobra.Command{
		Use:   "elections [PATH]",
		Short: "List recognised leader elections, leaders and candidates",
		Long: `elections finds every leader election at or under PATH — Curator's
LeaderLatch (and zkx's Election), ZooKeeper's LeaderElectionSupport — and
shows the leader, for how long it has led, and the candidates in line. With
-l every candidate is shown with its session, client, the node it watches
and whether the server confirms that watch.

Curator's LeaderSelector and Kazoo's Election are mutexes underneath and
cannot be told from a lock: zkx locks lists them.

--check prints only the elections that need someone now — a leader whose
session has no connection or is silent (leader-silent), candidates waiting
with nobody leading (leaderless) — and exits 2 when there is one (0 when
none, 3 when part of the tree could not be read).

JSON objects: path, format, leader (null when nobody leads), candidates (in
line), warnings, alarms ([{kind: leaderless | leader-silent, node, text}])
and ensemble.
` + contenderHelp + `
` + ensembleHelp + `
` + tablesHelp + "\n" + recipeHelp,
		Example: `  zkx elections
  zkx elections -l /app/election
  zkx elections -o json / | jq -r '.[] | "\(.path) \(.leader.client)"'
  zkx elections --check /app || page-oncall`,
	}, run)
	cmd.Flags().BoolVarP(&opts.long, "long", "l", false, "show every candidate, the wait chain and the warnings")
	cmd.Flags().BoolVar(&opts.check, "check", false, fmt.Sprintf("print only the elections that need someone now (a leader gone or silent, candidates with nobody leading) and exit %d when there is one", exitCheckAlarm))
	return cmd
}

// runLocks lists the locks at and under opts.path, or with --check those
// that need someone now.
func runLocks(ctx context.Context, opts *recipeOptions, std streams) error {
	s, err := scanRecipes(ctx, opts, std)
	if err != nil {
		return err
	}
	recognize.MarkDeadlocks(s.res.Locks, s.around...)
	locks := normalLocks(s.res.Locks)
	format := opts.read.format
	if opts.check {
		return runCheck(std, s, format, locks, opts.heldTooLong)
	}
	if format == cliout.JSON {
		err = cliout.WriteJSON(std.out, locksJSON(locks, s.ensemble))
	} else {
		err = writeLocks(std.out, locks, opts.long)
	}
	if err != nil {
		return err
	}
	return s.finish(std.errOut, format, kindLocks, opts.path, len(locks))
}

// runQueues lists the queues at and under opts.path, or with --check
// those that need someone now.
func runQueues(ctx context.Context, opts *recipeOptions, std streams) error {
	s, err := scanRecipes(ctx, opts, std)
	if err != nil {
		return err
	}
	queues := normalQueues(s.res.Queues)
	format := opts.read.format
	if opts.check {
		return runQueueCheck(std, s, format, queues, opts.older)
	}
	if format == cliout.JSON {
		err = cliout.WriteJSON(std.out, queues)
	} else {
		err = writeQueues(std.out, queues, opts.long)
	}
	if err != nil {
		return err
	}
	return s.finish(std.errOut, format, kindQueues, opts.path, len(queues))
}

// runElections lists the leader elections at and under opts.path.
func runElections(ctx context.Context, opts *recipeOptions, std streams) error {
	s, err := scanRecipes(ctx, opts, std)
	if err != nil {
		return err
	}
	elections := normalElections(s.res.Elections)
	format := opts.read.format
	if opts.check {
		return electionsCheck(std, s, format, elections)
	}
	if format == cliout.JSON {
		err = cliout.WriteJSON(std.out, electionsJSON(elections, s.ensemble))
	} else {
		err = writeElections(std.out, elections, opts.long)
	}
	if err != nil {
		return err
	}
	return s.finish(std.errOut, format, kindElections, opts.path, len(elections))
}

// The normal* functions make every list of the JSON [] rather than null,
// as docs/json.md promises, whatever the recogniser left nil.

func normalLocks(ls []recognize.Lock) []recognize.Lock {
	out := make([]recognize.Lock, len(ls))
	for i, l := range ls {
		l.Holders, l.Waiters, l.Warnings = nonNil(l.Holders), nonNil(l.Waiters), nonNil(l.Warnings)
		out[i] = l
	}
	return out
}

func normalQueues(qs []recognize.Queue) []recognize.Queue {
	out := make([]recognize.Queue, len(qs))
	for i, q := range qs {
		q.Items, q.Warnings = nonNil(q.Items), nonNil(q.Warnings)
		out[i] = q
	}
	return out
}

func normalElections(es []recognize.Election) []recognize.Election {
	out := make([]recognize.Election, len(es))
	for i, e := range es {
		e.Candidates, e.Warnings = nonNil(e.Candidates), nonNil(e.Warnings)
		out[i] = e
	}
	return out
}
