package cmd

import (
	"context"
	"io"
	"strings"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/introspect"
)

// adminURLEnv holds the AdminServer URLs when --admin-url is not given.
const adminURLEnv = "ZKX_ADMIN_URL"

// defaultMemberTimeout is --member-timeout's default: ZooKeeper answers
// in milliseconds, so a member silent this long is frozen, overloaded or
// cut off.
const defaultMemberTimeout = introspect.DefaultTimeout

// defaultAdminPort is where ZooKeeper's AdminServer listens unless told
// otherwise (admin.serverPort).
const defaultAdminPort = 8080

// introspectOptions are the AdminServer flags as introspect options.
func (g *globalOptions) introspectOptions() introspect.Options {
	return introspect.Options{Timeout: g.memberTimeout, AdminURLs: g.adminURLs, AdminPort: g.adminPort, TLS: g.tls}
}

// splitList reads a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// introspect asks the servers of cs about their sessions, from whichever
// source each member answers (four-letter words, an AdminServer given or
// found), and says on stderr, once, what it found of the members: each
// member that did not answer or does not serve, named as a member; then in
// one line where each member's tables came from when that is not the
// four-letter words everywhere (a warning when a member's are missing,
// else a note on a terminal). Failed requests other than refusals are
// warned about. The error is Ask's: no member answered at all.
func (g *globalOptions) introspect(ctx context.Context, stderr io.Writer, cs connstr.ConnectString) (*introspect.Snapshot, error) {
	return g.introspectTouching(ctx, stderr, cs, serversAsk{notes: true})
}

// serversAsk says how a command asks the servers.
type serversAsk struct {
	// own are zkx's own sessions, touched just before the servers are
	// asked, so that how long other sessions have been silent is measured
	// against a moment ago (introspect.Options.Touch); nil for none.
	own zkview.Toucher
	// read is the member zkx read the tree through, for the note that says
	// how far behind the freshest member it was.
	read introspect.ReadThrough
	// notes: say the members' notes on stderr (a command that prints them
	// on stdout, as part of its answer, does not).
	notes bool
}

// introspectTouching is introspect as ask says.
func (g *globalOptions) introspectTouching(ctx context.Context, stderr io.Writer, cs connstr.ConnectString, ask serversAsk) (*introspect.Snapshot, error) {
	opts := g.introspectOptions()
	if ask.own != nil {
		opts.Touch = ask.own.Touch
	}
	in, err := introspect.Ask(ctx, cs, opts)
	if err != nil {
		return nil, err
	}
	if ask.notes {
		for _, n := range in.MemberNotes(ask.read) {
			warnf(stderr, "%s", n.Text)
		}
	}
	switch line := in.SourcesLine(); {
	case line == "":
	case !in.TablesComplete():
		warnf(stderr, "%s", line)
	case isTerminal(stderr):
		notef(stderr, "%s", line) // where the tables came from: worth a look, not a warning
	}
	for _, p := range in.OtherProblems() {
		warnf(stderr, "%s", p)
	}
	return in, nil
}

// syncFor has the members c reads through catch up with the leader before
// a verdict on path (zkview.Syncer), and says which member that is. A
// failed sync is warned about: what zkx reads may then be older than the
// leader's commits.
func syncFor(ctx context.Context, stderr io.Writer, c any, path string) introspect.ReadThrough {
	s, ok := c.(zkview.Syncer)
	if !ok {
		return introspect.ReadThrough{}
	}
	read := introspect.ReadThrough{Member: s.Server()}
	if err := s.Sync(ctx, path); err != nil {
		warnf(stderr, "could not sync %s with the leader before reading: %v; what zkx reads may be older than the leader's commits", read.Member, err)
		return read
	}
	read.Synced = true
	return read
}
