package cmd

import (
	"fmt"
	"io"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/introspect"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The members' notes in the JSON of locks, elections, sessions and unlock:
// every object of the listing carries the same "ensemble" list, absent
// when every member answered and none lagged (a listing stays an array).

// lockJSON is a lock as `zkx locks -o json` prints it.
type lockJSON struct {
	recognize.Lock
	Ensemble []introspect.MemberNote `json:"ensemble,omitempty"`
}

// electionJSON is an election as `zkx elections -o json` prints it.
type electionJSON struct {
	recognize.Election
	Ensemble []introspect.MemberNote `json:"ensemble,omitempty"`
}

func locksJSON(locks []recognize.Lock, ensemble []introspect.MemberNote) []lockJSON {
	out := make([]lockJSON, len(locks))
	for i, l := range locks {
		out[i] = lockJSON{l, ensemble}
	}
	return out
}

func electionsJSON(elections []recognize.Election, ensemble []introspect.MemberNote) []electionJSON {
	out := make([]electionJSON, len(elections))
	for i, e := range elections {
		out[i] = electionJSON{e, ensemble}
	}
	return out
}

// writeEnsemble prints the members' notes after a table, one line each,
// as part of the answer (locks --check).
func writeEnsemble(out io.Writer, ensemble []introspect.MemberNote) {
	st := cliout.NewStyles(out)
	for _, n := range ensemble {
		fmt.Fprintf(out, "%s %s\n", st.Warn("ensemble:"), cliout.Clean(n.Text))
	}
}

// ensembleHelp documents the ensemble field, in the commands' help.
const ensembleHelp = `ensemble, the same on every object, is absent when every member answered
and none lagged; else [{member (its client address), admin_url (its
AdminServer, when the note is about it too), kind (no-answer | unreachable
| not-serving | behind), text}]: a member that did not answer within
--member-timeout or does not serve (the sessions connected to it are then
missing from the tables), or the member zkx read through when it was well
behind the freshest one.`
