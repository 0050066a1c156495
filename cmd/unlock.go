package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// unlockJSON is what `zkx unlock -o json` prints once the node is deleted.
type unlockJSON struct {
	Path string `json:"path"`
	// Released is the holder whose node was deleted, as zkx locks shows it.
	Released recognize.Contender `json:"released"`
	// Next are the waiters that hold once it is gone, by their libraries'
	// rules; empty when nobody does at once.
	Next []recognize.Contender `json:"next"`
	// Handover says in a sentence who takes over, or why nobody does.
	Handover string `json:"handover"`
	// MayAlsoHold are the waiters that may believe they hold the lock
	// (may_hold): freeing the certain holder does not free them.
	MayAlsoHold []recognize.Contender `json:"may_also_hold"`
	// After is the lock read again once the node was deleted, as zkx locks
	// shows it; null when its directory went with its last node, or the
	// read failed (AfterError says why).
	After      *recognize.Lock `json:"after"`
	AfterError string          `json:"after_error,omitempty"`
	// Outcome says in sentences what the read after the delete found:
	// who holds now, who still waits and on whom.
	Outcome []string `json:"outcome"`
	// Ensemble is what should be said of the members (see ensembleHelp);
	// absent when nothing.
	Ensemble []introspect.MemberNote `json:"ensemble,omitempty"`
}

// unlockAroundLimit bounds the directories unlock reads around its lock
// to find the cycles of sessions it is in.
const unlockAroundLimit = 256

func newUnlockCommand(g *globalOptions) *cobra.Command {
	var (
		flags readFlags
		node  string
		yes   bool
	)
	cmd := &cobra.Command{
		Use:   "unlock PATH",
		Short: "Force-release a lock: delete its holder's node, and say who is next",
		Long: `unlock breaks a stuck lock for a runbook: it recognises the lock at PATH as
zkx locks does (every contender judged by its own library's rule, with the
servers' tables), names the holder — its node, session, client, how long it
has held, when its server last heard from it — and who takes over once its
node is gone (the waiters whose watch on it fires and whose library then
finds nothing before them), asks, and deletes the node. Then it reads the
lock again and says what happened: who holds now (and who took over), who
still waits and on whom ("the writer curator __WRIT__0000000002 (session
0x…) still waits: reader curator __READ__0000000001 (session 0x…) holds").

The delete is conditional: it happens only if the node still belongs to the
holder's session at the version just read, so a lock that changed hands in
the meantime is left alone. The holder is not told: if its process is alive
it may still believe it holds the lock until its session ends.

Holders are those that hold for certain. A waiter that may hold (a Kazoo Lock
that zkx cannot tell runs with or without extra_lock_patterns, without the
servers' watch tables) is not one: unlock frees the certain holder and names
the waiters that may still believe they hold. When the lock is in a cycle of
sessions across locks (a deadlock; the other locks are found from the
ephemeral nodes the servers list for its contenders' sessions, and theirs in
turn), it says so first, with the releases that break it. With two certain holders (a
broken lock) unlock will not guess: pass --node with the one to release (its
name, its short name as zkx locks shows it, or #SEQ). On a terminal it asks
before deleting; otherwise it refuses unless --yes is given. --readonly
refuses it.

--timeout bounds the reads and the delete, not the time taken to answer the
question: the delete and the read after it have a --timeout of their own.

Before it reads the lock, zkx has the member it reads through sync with the
leader, so that a lagging follower cannot show a holder that is gone.

JSON (-o json), once the node is deleted: {path, released (the holder, as
in zkx locks -o json), next (the waiters that hold once it is gone), handover
(who takes over, or why nobody does, in a sentence), may_also_hold (waiters
that may believe they hold), after (the lock read again after the delete, as
in zkx locks -o json; null when its directory went or the read failed, with
after_error), outcome (what that read found, in sentences), ensemble}.

` + ensembleHelp + `

Exit status: 0 when the node was deleted; 1 when nothing was deleted (no
holder, refused, the node changed hands, an error).`,
		Example: `  zkx unlock /app/locks/orders
  zkx unlock /app/locks/orders --node '#41' --yes
  zkx unlock --yes -o json /app/locks/orders | jq -r .handover`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := checkPath(args[0])
			if err != nil {
				return err
			}
			if g.readonly {
				return fmt.Errorf("--readonly: zkx unlock deletes a lock's node")
			}
			format, err := cliout.ParseFormat(flags.output)
			if err != nil {
				return err
			}
			if flags.timeout <= 0 {
				return fmt.Errorf("--timeout must be positive")
			}
			// The reads before the question have --timeout, and the delete
			// and the read after it another: a person's time to answer is
			// not the servers'.
			ctx, cancel := context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			hl, err := openHeldLock(ctx, cmd, g, path, flags.timeout)
			if err != nil {
				return err
			}
			defer hl.client.Close()
			l := hl.lock
			if hl.snapshot != nil {
				// A cycle of sessions through this lock is the first thing
				// to know before freeing it: which release breaks it.
				ephemeralsOf := func(session int64) []string {
					if s := hl.snapshot.Session(session); s != nil {
						return s.Ephemerals
					}
					return nil
				}
				around, _ := recognize.LocksAround(ctx, hl.client, l, ephemeralsOf, hl.opts, unlockAroundLimit)
				marked := []recognize.Lock{*l}
				recognize.MarkDeadlocks(marked, around...)
				l = &marked[0]
			}
			cancel()
			h, err := unlockTarget(l, node)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			describeUnlock(stderr, l, h, time.Now())
			target := recognize.ContenderPath(l.Path, h.Contender.Node)
			if !yes {
				ok, err := confirmOnTerminal(cmd, "delete "+cliout.Clean(target)+"?")
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("not deleted")
				}
			}
			ctx, cancel = context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			if err := hl.writer.DeleteOwned(ctx, target, h.SessionID); err != nil {
				return timedOut(err, flags.timeout)
			}
			res := unlockJSON{Path: l.Path, Released: h.Contender, Next: []recognize.Contender{}, Handover: l.Handover(h.Node),
				MayAlsoHold: []recognize.Contender{}, Ensemble: hl.ensemble}
			for _, n := range h.Next {
				for _, p := range l.Lineup() {
					if p.Node == n {
						res.Next = append(res.Next, p.Contender)
					}
				}
			}
			for _, w := range l.Waiters {
				if w.MayHold {
					res.MayAlsoHold = append(res.MayAlsoHold, w)
				}
			}
			res.After, res.Outcome = unlockOutcome(ctx, hl.client, l, h.Contender, hl.opts)
			if res.After == nil && len(res.Outcome) == 0 {
				res.AfterError = "the lock could not be read again"
			}
			if format == cliout.JSON {
				if res.After != nil {
					after := normalLocks([]recognize.Lock{*res.After})[0]
					res.After = &after
				}
				return cliout.WriteJSON(cmd.OutOrStdout(), res)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "deleted %s\n", cliout.Clean(target))
			if len(res.Outcome) == 0 {
				fmt.Fprintf(out, "next: %s\n", cliout.Clean(res.Handover))
			}
			for _, line := range res.Outcome {
				fmt.Fprintf(out, "now: %s\n", line)
			}
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&node, "node", "", "the holder to release when there are several: its node name, short name or #SEQ")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask (for scripts)")
	return cmd
}

// unlockTarget picks the holder to release: the one holder, or the one
// --node names; with several holders and no --node it refuses to guess.
func unlockTarget(l *recognize.Lock, node string) (recognize.Place, error) {
	holders := []recognize.Place{}
	for _, p := range l.Lineup() {
		if node != "" && nodeMatches(p.Contender, node) {
			if !p.Holding() {
				why := ""
				if p.MayHold {
					why = " (it may believe it holds: it " + p.MayHoldReason + ")"
				}
				return recognize.Place{}, fmt.Errorf("--node %s is %s %d in line, not a holder for certain%s: zkx unlock releases holders", node, p.Role, p.Position, why)
			}
			return p, nil
		}
		if p.Holding() {
			holders = append(holders, p)
		}
	}
	switch {
	case node != "":
		return recognize.Place{}, fmt.Errorf("no contender of %s is %s; holders: %s", l.Path, node, holderNames(l))
	case len(holders) == 0:
		return recognize.Place{}, fmt.Errorf("nobody holds %s: nothing to release", l.Path)
	case len(holders) == 1:
		return holders[0], nil
	}
	broken := ""
	if first := present.FirstWarning(l); first != "" {
		broken = " (" + first + ")"
	}
	return recognize.Place{}, fmt.Errorf("%s has %d holders%s: pass --node with the one to release: %s", l.Path, len(holders), broken, holderNames(l))
}

// nodeMatches reports whether name names c: its node, its short name, or
// #SEQ.
func nodeMatches(c recognize.Contender, name string) bool {
	if seq, ok := strings.CutPrefix(name, "#"); ok {
		n, err := strconv.ParseInt(seq, 10, 32)
		return err == nil && c.Node != "" && int32(n) == c.Seq
	}
	return name == c.Node || name == recognize.BareName(c.Node)
}

func holderNames(l *recognize.Lock) string {
	var names []string
	for _, h := range l.Holders {
		names = append(names, fmt.Sprintf("%s (#%d, %s, session %s)", recognize.BareName(h.Node), h.Seq, h.Format, h.Session))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// describeUnlock says, before asking, whose node it is and who is next,
// in the presenter's words (the explorer's F says the same).
func describeUnlock(w io.Writer, l *recognize.Lock, h recognize.Place, now time.Time) {
	st := cliout.NewStyles(w)
	fmt.Fprintf(w, "%s  %s\n", cliout.Clean(l.Path), present.Head(l, now))
	facts := present.Facts(l, h, now)
	for _, f := range facts {
		text := f.Text
		if f.Alarm {
			text = st.Bad(text)
		}
		fmt.Fprintf(w, "  %-*s %s\n", present.FactWidth, f.Label, text)
	}
	if first := present.FirstWarning(l); first != "" {
		fmt.Fprintf(w, "  %s %s\n", brokenLabel(st, *l), first)
	}
	if others := present.MayAlsoHold(l); len(others) > 0 {
		fmt.Fprintf(w, "  %s\n", st.Warn("May also believe it holds:"))
		for _, o := range others {
			fmt.Fprintf(w, "    %s\n", o)
		}
	}
	fmt.Fprintf(w, "  %s\n", present.NotTold)
}

// unlockOutcome reads the lock again after its holder's node went, and
// says what it finds (present.Outcome); nil, nil when the read failed.
func unlockOutcome(ctx context.Context, c *zkview.Client, before *recognize.Lock, released recognize.Contender, opts recognize.Options) (*recognize.Lock, []string) {
	opts.Now = time.Time{}
	r, err := recognize.Dir(ctx, c, before.Path, opts)
	switch {
	case zkview.IsNoNode(err):
		return nil, present.Outcome(before, released, nil)
	case err != nil:
		return nil, nil
	}
	after, ok := r.(*recognize.Lock)
	if !ok {
		return nil, present.Outcome(before, released, nil) // emptied: nothing left to recognise
	}
	return after, present.Outcome(before, released, after)
}
