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

// defaultAdminPort is where ZooKeeper's AdminServer listens unless told
// otherwise (admin.serverPort).
const defaultAdminPort = 8080

// introspectOptions are the AdminServer flags as introspect options.
func (g *globalOptions) introspectOptions() introspect.Options {
	return introspect.Options{AdminURLs: g.adminURLs, AdminPort: g.adminPort, TLS: g.tls}
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
// found), and says in one line on stderr where each member's tables came
// from when that is not the four-letter words everywhere (a warning when a
// member's are missing, else a note on a terminal). Failed requests
// other than refusals are warned about. The error is Ask's: no member
// answered at all.
func (g *globalOptions) introspect(ctx context.Context, stderr io.Writer, cs connstr.ConnectString) (*introspect.Snapshot, error) {
	return g.introspectTouching(ctx, stderr, cs, nil)
}

// introspectTouching is introspect with zkx's own sessions touched just
// before the servers are asked, so that how long other sessions have been
// silent is measured against a moment ago (introspect.Options.Touch).
func (g *globalOptions) introspectTouching(ctx context.Context, stderr io.Writer, cs connstr.ConnectString, own zkview.Toucher) (*introspect.Snapshot, error) {
	opts := g.introspectOptions()
	if own != nil {
		opts.Touch = own.Touch
	}
	in, err := introspect.Ask(ctx, cs, opts)
	if err != nil {
		return nil, err
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
