package cli

import (
	"context"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/connstr"
	"github.com/zkx-dev/zkx/zkview"
)

// introspectFlags are the flags of commands that ask the servers about
// their sessions (four-letter words, or the AdminServer).
type introspectFlags struct {
	adminURL string
}

func (f *introspectFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.adminURL, "admin-url", "", "one member's AdminServer, e.g. http://zk1:8080/commands: its tables are read over HTTP, which 4lw.commands.whitelist does not restrict")
}

// tableWords are the four-letter words whose tables the commands show
// (sessions, client addresses, ephemerals, watches); a refusal of another
// word (mntr, conf…) costs them nothing and is not reported.
var tableWords = map[string]bool{"cons": true, "dump": true, "wchc": true, "wchp": true}

// introspect asks the servers of cs about their sessions. Refusals of the
// words that matter and failed requests are warned about on stderr; the
// error is Introspect's: no member answered at all.
func (f *introspectFlags) introspect(ctx context.Context, stderr io.Writer, cs connstr.ConnectString) (*zkview.Introspection, error) {
	in, err := zkview.Introspect(ctx, cs.Servers, cs.Chroot, zkview.IntrospectOptions{AdminURL: f.adminURL})
	if err != nil {
		return nil, err
	}
	for _, r := range in.Refused {
		if tableWords[r.Command] {
			warnf(stderr, "%s", r)
		}
	}
	for _, p := range in.Problems {
		warnf(stderr, "%s", p)
	}
	return in, nil
}

// lateTables are server tables that arrive while a scan runs: Introspect
// and Scan start together, and a recogniser that asks before the tables
// are in waits for them. Until set, and when the introspection failed,
// every answer is "not known".
type lateTables struct {
	ready chan struct{}
	once  sync.Once
	t     zkview.ServerTables
}

func newLateTables() *lateTables { return &lateTables{ready: make(chan struct{})} }

// set delivers the tables (nil: not known); only the first call counts.
func (l *lateTables) set(in *zkview.Introspection) {
	l.once.Do(func() {
		l.t = in.Tables() // a nil Introspection answers "not known"
		close(l.ready)
	})
}

func (l *lateTables) ClientAddress(session int64) (string, bool) {
	<-l.ready
	return l.t.ClientAddress(session)
}

func (l *lateTables) Connected(session int64) (bool, bool) {
	<-l.ready
	return l.t.Connected(session)
}

func (l *lateTables) Watches(session int64, path string) (bool, bool) {
	<-l.ready
	return l.t.Watches(session, path)
}
