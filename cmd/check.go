package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/alarms"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// The exit statuses of zkx check, by the monitoring-plugin convention
// (Nagios, Icinga, Sensu): 1 is WARNING there, so zkx check never exits 1.
const (
	exitCheckOK      = 0
	exitCheckUnknown = 3
)

func newCheckCommand(g *globalOptions, run runFunc[*recipeOptions]) *cobra.Command {
	cmd, opts := newRecipeCommand(g, kindRecipes, &cobra.Command{
		Use:   "check [PATH]",
		Short: "Judge every recipe at or under PATH, and the members, once: exit 0 OK, 2 an alarm, 3 could not tell",
		Long: `check reads every recipe at or under PATH (default /) — locks, elections,
queues, partitioners, systems' roles — and asks every member of the
ensemble, once, and says whether anything needs someone now, for cron and
Nagios-style monitors (Icinga, Sensu, Zabbix's external checks).

It prints one line first, the status (OK, CRITICAL or UNKNOWN, with how many
alarms, recipes and members), then one line per alarm: the kind, the path
(or the member) and the alarm's sentence. The alarm kinds are those of
docs/metrics.md: deadlock, two-holders, maybe-two-holders, gone-holder,
silent-holder, held-too-long (locks), leaderless, leader-silent (elections),
queue-stale, item-stuck (queues), allocation-stuck (partitioners), and
member-down (a member that does not answer or does not serve). The
thresholds are the flags below, as for zkx locks, queues and recipes, so the
page, the check and the explorer agree.

Exit status (the monitoring-plugin convention):
  0  OK: everything was read and no alarm holds
  2  CRITICAL: at least one alarm holds (even when part of the tree could
     not be read)
  3  UNKNOWN: zkx could not tell — no session, --timeout reached, part of
     the tree unreadable with no alarm in what was read, a bad flag
It never exits 1 (a monitor reads 1 as WARNING).

With -o json the answer is {status, alarms: [{kind, path, recipe, member,
node, text}], recipes, unknown}.`,
		Example: `  zkx check
  zkx check /app --held-too-long 15m --older 30m
  zkx check --admin-url http://zk1:8080/commands,http://zk2:8080/commands || page-oncall
  # Nagios / Icinga command definition:
  #   command_line /usr/bin/zkx check --server $HOSTADDRESS$:2181 $ARG1$`,
	}, run)
	// Whatever keeps zkx check from telling is UNKNOWN (3), a bad argument
	// or flag too: a monitor reads 1 as WARNING.
	maxArgs, runIt := cmd.Args, cmd.RunE
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if err := maxArgs(cmd, args); err != nil {
			return unknownCheck(cmd.OutOrStdout(), err)
		}
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		err := runIt(cmd, args)
		var status exitStatus
		if err != nil && !errors.As(err, &status) {
			return unknownCheck(cmd.OutOrStdout(), err)
		}
		return err
	}
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return unknownCheck(cmd.OutOrStdout(), err) })
	opts.registerMaxima(cmd)
	cmd.Flags().DurationVar(&opts.heldTooLong, "held-too-long", 10*time.Minute, "a lock holder that has held longer than this is an alarm")
	cmd.Flags().DurationVar(&opts.older, "older", 10*time.Minute, "a queue whose item has waited longer than this is stale")
	cmd.Flags().DurationVar(&opts.settle, "settle", 2*time.Minute, "a partitioner whose item locks were not taken again this long after its party changed is stuck")
	return cmd
}

// unknownCheck says why zkx check could not tell, on stdout where a
// monitor reads the status line, and exits 3.
func unknownCheck(out io.Writer, err error) error {
	// One line, as a monitor shows the first: an error's indented
	// lines (one per member) follow on it.
	fmt.Fprintf(out, "UNKNOWN: %s\n", cliout.Clean(strings.Join(strings.Fields(err.Error()), " ")))
	return exitStatus(exitCheckUnknown)
}

// checkAnswer is zkx check's JSON.
type checkAnswer struct {
	Status  string         `json:"status"` // OK | CRITICAL | UNKNOWN
	Alarms  []alarms.Alarm `json:"alarms"`
	Recipes int            `json:"recipes"`
	// Unknown says what could not be read, "" when everything was.
	Unknown string `json:"unknown,omitempty"`
}

// runCheckAll is zkx check: one scan of every class, the deadlocks across
// its locks, and the members' notes, judged together.
func runCheckAll(ctx context.Context, opts *recipeOptions, std streams) error {
	opts.check = true // the members' notes are said in the answer, not on stderr
	s, err := scanRecipes(ctx, opts, std)
	if err != nil {
		return err
	}
	path, format := opts.path, opts.read.format
	recognize.MarkDeadlocks(s.res.Locks, s.around...)
	found := alarms.Of(s.res.All(), s.ensemble)
	answer := checkAnswer{Alarms: nonNil(found), Recipes: s.res.Len()}
	status := exitCheckOK
	switch {
	case len(found) > 0:
		answer.Status, status = "CRITICAL", exitCheckAlarm
	case s.partial != nil:
		answer.Status, status = "UNKNOWN", exitCheckUnknown
	default:
		answer.Status = "OK"
	}
	if s.partial != nil {
		answer.Unknown = s.partial.Error()
	}
	out := std.out
	if format == cliout.JSON {
		err = cliout.WriteJSON(out, answer)
	} else {
		err = writeCheck(out, answer, path)
	}
	if err != nil {
		return err
	}
	if status == exitCheckOK {
		return nil
	}
	return exitStatus(status)
}

// writeCheck prints the status line, then one line per alarm: its kind,
// its path or member, and its sentence.
func writeCheck(out io.Writer, a checkAnswer, path string) error {
	line := fmt.Sprintf("%s: %s at or under %s", a.Status, plural(len(a.Alarms), "alarm"), path)
	if len(a.Alarms) == 0 && a.Unknown == "" {
		line = fmt.Sprintf("OK: %s at or under %s, and the members: no alarm", plural(a.Recipes, "recipe"), path)
	}
	if a.Unknown != "" {
		line += "; not all read: " + a.Unknown
	}
	if _, err := fmt.Fprintln(out, cliout.Clean(line)); err != nil {
		return err
	}
	for _, al := range a.Alarms {
		if _, err := fmt.Fprintf(out, "%s %s: %s\n", al.Kind, cliout.Clean(al.Subject()), cliout.Clean(al.Text)); err != nil {
			return err
		}
	}
	return nil
}

// runAlarmsCheck is --check of elections and systems: the recipes with an
// alarm, one row per alarm (or jsonOf's JSON of them), exit 2 when there
// is one, 3 when part of the tree could not be read, else 0.
func runAlarmsCheck(std streams, s *recipeScan, format cliout.Format, recipes []recognize.Recipe, what string, jsonOf func([]recognize.Recipe) any) error {
	var alarmed []recognize.Recipe
	for _, r := range recipes {
		if len(recognize.AlarmsOf(r)) > 0 {
			alarmed = append(alarmed, r)
		}
	}
	out := std.out
	var err error
	if format == cliout.JSON {
		err = cliout.WriteJSON(out, jsonOf(alarmed))
	} else {
		err = writeRecipeAlarms(out, func(yield func(string, []recognize.Alarm)) {
			for _, r := range alarmed {
				yield(r.Info().Path, recognize.AlarmsOf(r))
			}
		})
		writeEnsemble(out, s.ensemble)
	}
	if err != nil {
		return err
	}
	return checkVerdict(std, s, format, what, len(alarmed), fmt.Sprintf("%d %s checked: none needs anyone now", len(recipes), what))
}

// checkVerdict ends every --check once its alarms are written: what could
// not be read is said; exit 2 when an alarm holds, else (on a terminal)
// calm is noted, and a partial read exits 3.
func checkVerdict(std streams, s *recipeScan, format cliout.Format, what string, alarmed int, calm string) error {
	if s.partial != nil {
		warnf(std.errOut, "%v: %s not read were not checked", s.partial, what)
	}
	if alarmed > 0 {
		return exitStatus(exitCheckAlarm)
	}
	if format == cliout.Table && isTerminal(std.errOut) {
		notef(std.errOut, "%s", calm)
	}
	if s.partial != nil {
		return &partialError{s.partial}
	}
	return nil
}

// electionsCheck is zkx elections --check: a leader gone or silent, or
// candidates with nobody leading.
func electionsCheck(std streams, s *recipeScan, format cliout.Format, elections []recognize.Election) error {
	recipes := make([]recognize.Recipe, len(elections))
	for i := range elections {
		recipes[i] = &elections[i]
	}
	return runAlarmsCheck(std, s, format, recipes, "elections", func(alarmed []recognize.Recipe) any {
		out := make([]recognize.Election, 0, len(alarmed))
		for _, r := range alarmed {
			out = append(out, *r.(*recognize.Election))
		}
		return electionsJSON(normalElections(out), s.ensemble)
	})
}

// systemsCheck is zkx systems --check: the alarms of every recognised
// object of a known system (a controller or master gone or silent, a
// vacant role with candidates, a lock of a system held too long).
func systemsCheck(std streams, s *recipeScan, format cliout.Format) error {
	var recipes []recognize.Recipe
	for _, r := range s.res.All() {
		if r.Info().System != "" {
			recipes = append(recipes, r)
		}
	}
	return runAlarmsCheck(std, s, format, recipes, "system objects", func(alarmed []recognize.Recipe) any {
		only := recognize.ResultOf(nil)
		for _, r := range alarmed {
			only = appendRecipe(only, r)
		}
		return recognize.Systems(only)
	})
}
