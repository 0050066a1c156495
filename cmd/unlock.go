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
}

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
finds nothing before them), asks, and deletes the node.

The delete is conditional: it happens only if the node still belongs to the
holder's session at the version just read, so a lock that changed hands in
the meantime is left alone. The holder is not told: if its process is alive
it may still believe it holds the lock until its session ends.

With two holders (a broken lock) unlock will not guess: pass --node with the
one to release (its name, its short name as zkx locks shows it, or #SEQ).
On a terminal it asks before deleting; otherwise it refuses unless --yes is
given. --readonly refuses it.

JSON (-o json), once the node is deleted: {path, released (the holder, as
in zkx locks -o json), next (the waiters that hold once it is gone), handover
(who takes over, or why nobody does, in a sentence)}.

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
			ctx, cancel := context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			hl, err := openHeldLock(ctx, cmd, g, path, flags.timeout)
			if err != nil {
				return err
			}
			defer hl.client.Close()
			l := hl.lock
			h, err := unlockTarget(l, node)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			describeUnlock(stderr, l, h)
			if !yes {
				ok, err := confirmOnTerminal(cmd, "delete "+cliout.Clean(recognize.ContenderPath(l.Path, h.Node))+"?")
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("not deleted")
				}
			}
			target := recognize.ContenderPath(l.Path, h.Node)
			if err := hl.writer.DeleteOwned(ctx, target, h.SessionID); err != nil {
				return timedOut(err, flags.timeout)
			}
			res := unlockJSON{Path: l.Path, Released: h, Next: []recognize.Contender{}, Handover: l.Handover(h.Node)}
			for _, n := range h.Next {
				for _, p := range l.Lineup() {
					if p.Node == n {
						res.Next = append(res.Next, p.Contender)
					}
				}
			}
			if format == cliout.JSON {
				return cliout.WriteJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\nnext: %s\n", cliout.Clean(target), cliout.Clean(res.Handover))
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
func unlockTarget(l *recognize.Lock, node string) (recognize.Contender, error) {
	if node != "" {
		for _, p := range l.Lineup() {
			if !nodeMatches(p.Contender, node) {
				continue
			}
			if !p.Holding() {
				return recognize.Contender{}, fmt.Errorf("--node %s is %s %d in line, not a holder: zkx unlock releases holders", node, p.Role, p.Position)
			}
			return p.Contender, nil
		}
		return recognize.Contender{}, fmt.Errorf("no contender of %s is %s; holders: %s", l.Path, node, holderNames(l))
	}
	switch len(l.Holders) {
	case 0:
		return recognize.Contender{}, fmt.Errorf("nobody holds %s: nothing to release", l.Path)
	case 1:
		return l.Holders[0], nil
	}
	broken := ""
	if l.Broken || l.MaybeBroken {
		broken = " (" + l.Warnings[0] + ")"
	}
	return recognize.Contender{}, fmt.Errorf("%s has %d holders%s: pass --node with the one to release: %s", l.Path, len(l.Holders), broken, holderNames(l))
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

// describeUnlock says, before asking, whose node it is and who is next.
func describeUnlock(w io.Writer, l *recognize.Lock, h recognize.Contender) {
	client := h.ClientText()
	if client == "" {
		client = "unknown (the servers' connection lists were not read)"
	}
	held := "unknown (zkx did not see it begin); its node is " + heldFor(h.AgeMs) + " old"
	if h.HeldMs != nil {
		held = heldFor(*h.HeldMs)
	}
	heard := "unknown"
	switch {
	case h.LastHeardMs != nil && h.Silent:
		heard = "SILENT for " + heldFor(*h.LastHeardMs) + ": frozen or cut off"
	case h.LastHeardMs != nil:
		heard = heldFor(*h.LastHeardMs) + " ago"
	case h.Connected != nil && !*h.Connected:
		heard = "no connection: its session is ending"
	}
	fmt.Fprintf(w, "%s %s, %s: holder %s\n", cliout.Clean(l.Path), l.Recipe, l.Format, cliout.Clean(recognize.BareName(h.Node)))
	for _, line := range [][2]string{
		{"format", h.Format + viewSuffix(h)},
		{"session", h.Session},
		{"client", cliout.Clean(client)},
		{"held", held},
		{"heard", heard},
		{"next", cliout.Clean(l.Handover(h.Node))},
	} {
		fmt.Fprintf(w, "  %-8s %s\n", line[0], line[1])
	}
	if note := h.RevokeNote(time.Now()); note != "" {
		fmt.Fprintf(w, "  %-8s %s\n", "revoke", note)
	}
	switch {
	case l.Broken:
		fmt.Fprintf(w, "  BROKEN   %s\n", cliout.Clean(l.Warnings[0]))
	case l.MaybeBroken:
		fmt.Fprintf(w, "  MAYBE BROKEN %s\n", cliout.Clean(l.Warnings[0]))
	}
	fmt.Fprintln(w, "  Its owner is not told: if it is alive it may still believe it holds the lock.")
}

func viewSuffix(c recognize.Contender) string {
	if c.View == "" {
		return ""
	}
	return " (" + c.View + ")"
}
