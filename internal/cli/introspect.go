package cli

import (
	"github.com/zkx-dev/zkx/zkview/introspect"

	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/internal/connstr"
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
func (f *introspectFlags) introspect(ctx context.Context, stderr io.Writer, cs connstr.ConnectString) (*introspect.Snapshot, error) {
	in, err := introspect.Ask(ctx, cs, introspect.Options{AdminURL: f.adminURL})
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
