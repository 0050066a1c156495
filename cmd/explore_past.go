package cmd

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/tui"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/forensics"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// runPastExplorer opens the explorer, read-only, on a data directory's
// tree as it was at --at: rebuilt into an embedded server reached within
// the process (no port), read through an ordinary client, so every page
// works as on a live server; the keys < > { } step through the
// transactions.
func runPastExplorer(cmd *cobra.Command, g *globalOptions, f exploreFlags, start string) error {
	arch, err := forensics.OpenArchive(f.dataDir)
	if err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	for _, skipped := range arch.Dir.Skipped {
		warnSkipped(cmd)(skipped)
	}
	var base time.Time
	if ms, ok := arch.FirstTime(); ok {
		base = time.UnixMilli(ms)
	}
	at, err := forensics.ParseMoment(f.at, time.Local, base)
	if err != nil {
		return fmt.Errorf("--at: %w", err)
	}
	opts := forensics.PastOptions{Loading: func() func() { return pauseCollector(arch) }}
	if f.audit.given() {
		if opts.Audit, err = f.audit.index(cmd.ErrOrStderr(), forensics.AuditKeep{}); err != nil {
			return err
		}
	}
	past, err := forensics.OpenPast(f.dataDir, at, opts)
	if err != nil {
		return err
	}
	defer past.Close()
	for _, p := range past.Problems().List {
		fmt.Fprintln(cmd.ErrOrStderr(), "zkx:", p)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
	c, err := past.Connect(ctx, zkview.WithSessionTimeout(time.Minute))
	cancel()
	if err != nil {
		return fmt.Errorf("the past's server: %w", err)
	}
	defer c.Close()
	return tui.Run(cmd.Context(), tui.Config{
		Client: c, Connect: past.Name(), ReadOnly: true, Path: start,
		HeldTooLong: f.heldTooLong, Past: past,
		// The past's server answers srvr and dump (the ephemerals by
		// session); connections and watches are not on disk, so it
		// refuses cons, wchc and wchp. No AdminServer to look for.
		Introspect: introspect.Options{Timeout: 2 * time.Second, Dial: past.Dial},
	})
}

// pauseCollector holds the garbage collector back while a snapshot loads
// (not while the logs are replayed after it, which leave garbage): the
// load allocates a node at a time, and a collector that runs each time the
// heap doubles scans the growing tree over and over (a third of the load's
// CPU on a million nodes). A memory limit, a few times the largest
// snapshot, still lets it run if the heap grows past what the tree needs.
func pauseCollector(arch *forensics.Archive) (restore func()) {
	var largest int64
	for _, s := range arch.Dir.Snapshots {
		largest = max(largest, s.Size)
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(256<<20 + 8*largest)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
