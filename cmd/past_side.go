package cmd

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/datadir"
	"github.com/zkx-dev/zkx/internal/display"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/forensics"
)

// pastSource is DIR@MOMENT:/path — a subtree as it was at a moment of a
// data directory's past — opened: the past rebuilt as the explorer on the
// past rebuilds it (forensics.OpenPast), read directly — every node and
// ACL — by the walk that reads a live subtree.
type pastSource struct {
	past   *forensics.Past
	reader zkview.Reader
	path   string
	// name says which past: "DIR at zxid 0x… (time UTC)".
	name string
}

// splitPastSpec splits DIR@MOMENT:/path, when DIR names a data directory
// (one ZooKeeper wrote, or a version-2 folder); ok is false otherwise —
// a live path or a context's may hold "@" and ":" too. The moment is
// what --at takes: a zxid or a time, whose colons are before ":/".
func splitPastSpec(spec string) (dir, moment, path string, ok bool) {
	at := strings.LastIndex(spec[:max(strings.Index(spec, ":/"), 0)], "@")
	if at <= 0 {
		return "", "", "", false
	}
	rest := spec[at+1:]
	colon := strings.Index(rest, ":/")
	if colon <= 0 {
		return "", "", "", false
	}
	dir, moment, path = spec[:at], rest[:colon], rest[colon+1:]
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", "", "", false
	}
	if _, err := datadir.Open(dir); err != nil {
		return "", "", "", false
	}
	return dir, moment, path, true
}

// openPastSource opens spec when it is DIR@MOMENT:/path; ok is false when
// it is not one. Problems rebuilding the past are told on stderr.
func openPastSource(cmd *cobra.Command, spec string) (ps *pastSource, ok bool, err error) {
	dir, moment, p, ok := splitPastSpec(spec)
	if !ok {
		return nil, false, nil
	}
	clean, err := checkPath(p)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", spec, err)
	}
	arch, err := forensics.OpenArchive(dir)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", spec, err)
	}
	var base time.Time
	if ms, ok := arch.FirstTime(); ok {
		base = time.UnixMilli(ms)
	}
	at, err := forensics.ParseMoment(moment, time.Local, base)
	if err != nil {
		return nil, true, fmt.Errorf("%s: the moment %w", spec, err)
	}
	past, err := forensics.OpenPast(dir, at, forensics.PastOptions{Still: true, Loading: func() func() { return pauseCollector(arch) }})
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", spec, err)
	}
	for _, pr := range past.Problems().List {
		fmt.Fprintln(cmd.ErrOrStderr(), "zkx:", pr)
	}
	pos := past.Position()
	when := pos.Time.UTC().Format("2006-01-02 15:04:05.000") + " UTC"
	if pos.Approximate {
		when = "≈" + when
	}
	name := fmt.Sprintf("%s at zxid %s (%s)", dir, display.Hex(pos.Zxid), when)
	notef(cmd.ErrOrStderr(), "%s is the past of %s", spec, name)
	return &pastSource{past: past, reader: past.Reader(), path: clean, name: name}, true, nil
}

// Close stops the past's server.
func (ps *pastSource) Close() { ps.past.Close() }
