package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// exitStillHeld is zkx revoke --wait's exit status when the holder was
// asked and still held when the wait ran out.
const exitStillHeld = 2

// revokeJSON is what `zkx revoke -o json` prints once the request is
// written.
type revokeJSON struct {
	Path string `json:"path"`
	// Holder is the holder asked, as zkx locks shows it (before the write).
	Holder recognize.Contender `json:"holder"`
	// RequestedAt is when the request was written (the node's mtime).
	RequestedAt time.Time `json:"requested_at"`
	// Evidence says why the holder should hear it.
	Evidence string `json:"evidence"`
	// Released, with --wait: whether the holder's node went within it;
	// WaitedMs how long zkx waited.
	Released *bool  `json:"released,omitempty"`
	WaitedMs *int64 `json:"waited_ms,omitempty"`
	// Handover says who takes over once the holder releases.
	Handover string `json:"handover"`
}

func newRevokeCommand(g *globalOptions) *cobra.Command {
	var (
		flags readFlags
		node  string
		wait  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "revoke PATH",
		Short: "Ask a Curator lock's holder to release (cooperative revocation)",
		Long: `revoke asks the holder of the lock at PATH to release it, as Curator's
Revoker does: it writes __REVOKE__ into the holder's node. A Curator
InterProcessMutex (or either side of an InterProcessReadWriteLock) made
revocable before it acquired watches its node and calls its
RevocationListener, which is expected to release. Nothing is forced: the
holder finishes what it is doing, releases cleanly, and who waits next
takes over. zkx unlock, which deletes the node, is for a holder that does
not answer.

Only holders that can hear it are asked. zkx refuses, with the reason,
a Kazoo lock (Kazoo has no revocation), a zkx lock, a semaphore, and a
Curator holder whose node holds data (a lock made revocable writes its
node empty; the default is the client's IP address) or, when the servers'
watch tables can be read, whose session does not watch its own node.

The lock is recognised as zkx locks does; with two holders pass --node
(its name, short name or #SEQ). The write is conditional: only while the
node is still the holder's session's, at the version just read.
zkx locks, the explorer and zkx unlock then show "revocation requested at
03:12:40" on the lock, whoever wrote it. With --wait D zkx watches the
node for D and says whether the holder released. --readonly refuses it.

JSON (-o json), once the request is written: {path, holder (as in zkx
locks -o json), requested_at, evidence (why the holder should hear it),
released and waited_ms (with --wait), handover (who takes over once it
releases)}.

Exit status: 0 when the request was written (and, with --wait, the holder
released within it); 2 with --wait when it still held at the end; 1 when
nothing was written (refused, no holder, an error).`,
		Example: `  zkx revoke /app/locks/orders
  zkx revoke /app/locks/orders --wait 30s || zkx unlock /app/locks/orders
  zkx revoke --node '#41' -o json /app/locks/reports | jq .evidence`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := checkPath(args[0])
			if err != nil {
				return err
			}
			if g.readonly {
				return fmt.Errorf("--readonly: zkx revoke writes into the lock holder's node")
			}
			format, err := cliout.ParseFormat(flags.output)
			if err != nil {
				return err
			}
			if flags.timeout <= 0 {
				return fmt.Errorf("--timeout must be positive")
			}
			if wait < 0 {
				return fmt.Errorf("--wait must not be negative")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), flags.timeout)
			defer cancel()
			hl, err := openHeldLock(ctx, cmd, g, path, flags.timeout)
			if err != nil {
				return err
			}
			defer hl.client.Close()
			l := hl.lock
			held, err := unlockTarget(l, node)
			if err != nil {
				return err
			}
			h := held.Contender
			evidence, err := l.Revocable(h, hl.tables)
			if err != nil {
				return fmt.Errorf("not asked: %w; zkx unlock %s deletes the node instead", err, path)
			}
			target := recognize.ContenderPath(l.Path, h.Node)
			st, err := hl.writer.SetOwned(ctx, target, []byte(recognize.RevokeMarker), h.SessionID)
			if err != nil {
				return timedOut(err, flags.timeout)
			}
			res := revokeJSON{Path: l.Path, Holder: h, RequestedAt: time.UnixMilli(st.Mtime), Evidence: evidence, Handover: l.Handover(h.Node)}
			if format != cliout.JSON {
				describeRevoke(cmd.OutOrStdout(), l, h, res)
			}
			if wait > 0 {
				released, waited, err := awaitRelease(cmd.Context(), hl.client, target, h.SessionID, wait)
				if err != nil {
					return err
				}
				ms := waited.Milliseconds()
				res.Released, res.WaitedMs = &released, &ms
				if format != cliout.JSON {
					if released {
						fmt.Fprintf(cmd.OutOrStdout(), "released after %s; next: %s\n", waitedText(waited), cliout.Clean(res.Handover))
					} else {
						fmt.Fprintf(cmd.OutOrStdout(), "still held after %s: the holder has not answered (zkx unlock %s forces it)\n", waitedText(waited), cliout.Clean(path))
					}
				}
			}
			if format == cliout.JSON {
				if err := cliout.WriteJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			}
			if res.Released != nil && !*res.Released {
				return exitStatus(exitStillHeld)
			}
			return nil
		},
	}
	flags.register(cmd)
	cmd.Flags().StringVar(&node, "node", "", "the holder to ask when there are several: its node name, short name or #SEQ")
	cmd.Flags().DurationVar(&wait, "wait", 0, "then watch the holder's node this long and say whether it released (exit 2 if not)")
	return cmd
}

// describeRevoke says whom zkx asked, why it should hear, and what next.
func describeRevoke(w io.Writer, l *recognize.Lock, h recognize.Contender, res revokeJSON) {
	fmt.Fprintf(w, "asked holder %s of %s to release: wrote %s at %s\n", cliout.Clean(recognize.BareName(h.Node)), cliout.Clean(l.Path),
		recognize.RevokeMarker, res.RequestedAt.Format("15:04:05"))
	for _, line := range [][2]string{
		{"format", present.Format(h)},
		{"session", h.Session},
		{"hears", cliout.Clean(res.Evidence)},
		{"next", cliout.Clean(res.Handover)},
	} {
		fmt.Fprintf(w, "  %-8s %s\n", line[0], line[1])
	}
	fmt.Fprintln(w, "  Nothing is forced: it releases when it is done; zkx unlock deletes the node if it never does.")
}

// waitedText is how long zkx waited: to the millisecond under a second (a
// listening holder answers in a few), as everywhere else beyond.
func waitedText(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return display.Duration(d)
}

// awaitRelease watches the holder's node until it goes or changes hands
// (released), or wait runs out.
func awaitRelease(ctx context.Context, c *zkview.Client, path string, session int64, wait time.Duration) (released bool, waited time.Duration, err error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		st, ch, err := c.ExistsW(ctx, path)
		switch {
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
			return false, time.Since(start), nil
		case err != nil:
			return false, time.Since(start), err
		case st == nil || st.EphemeralOwner != session:
			return true, time.Since(start), nil
		}
		select {
		case ev := <-ch:
			if ev.Type == zk.EventNotWatching && ev.Err != nil && !errors.Is(ev.Err, zk.ErrConnectionClosed) {
				return false, time.Since(start), fmt.Errorf("watch %s: %w", path, ev.Err)
			}
		case <-ctx.Done():
			return false, time.Since(start), nil
		}
	}
}
