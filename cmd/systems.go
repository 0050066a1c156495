package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/present"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// kindSystems finds every recognised object of a known system; their
// queues are persistent nodes, so it walks.
var kindSystems = recipeKind{name: "systems", tables: true}

func newSystemsCommand(g *globalOptions, run runFunc[*recipeOptions]) *cobra.Command {
	cmd, opts := newRecipeCommand(g, kindSystems, &cobra.Command{
		Use:   "systems [PATH]",
		Short: "Show the coordination nodes of Kafka, HBase, Hadoop HA, Solr, Helix and others",
		Long: `systems finds, at or under PATH, the coordination nodes of the systems that
run on ZooKeeper — found by the shape of the tree, under any chroot or prefix —
and shows per system (and root) its leaders, with their session, client and how
long they have led, and who is in line; its members; its queues with pending
items; and what is wrong: a leader whose session is gone, an epoch that went
backwards, a breadcrumb naming another node than the lock, a leader node that
names someone not first in line.

Recognised: Kafka in ZooKeeper mode (controller, controller_epoch, brokers,
partition states, the isr_change_, config_change_ and log_dir_event_
notification queues, delete_topics, reassign_partitions), HBase (master and
backup-masters, rs, meta-region-server, 1.x table locks), the Hadoop HA
elector of HDFS and YARN (ActiveStandbyElectorLock, ActiveBreadCrumb), Solr
(overseer and shard leader elections, overseer queues, live_nodes), Helix
(CONTROLLER/LEADER, LIVEINSTANCES), Curator service discovery, ClickHouse's
distributed DDL queue, BookKeeper (bookies, auditor election), and the Curator
latches of Storm and Druid.

JSON (-o json) is an array of {system, root, leaders: [{role, path, leader,
candidates}], members: [{role, path, members}], queues: [{role, path,
pending, items}], warnings}. A leader, candidate or member is a contender as
in zkx locks; its data is what the system's bytes say (a broker's endpoints,
a master's host:port). zkx locks, elections and queues list the same objects
with system and role fields.

--check prints only what needs someone now, one row per alarm, and exits 2
when there is one (0 when none, 3 when part of the tree could not be read).
` + tablesHelp + "\n" + recipeHelp,
		Example: `  zkx systems
  zkx systems /kafka
  zkx systems -o json | jq '.[] | {system, root, leader: .leaders[0].leader.data}'
  zkx systems --check /kafka || page-oncall`,
	}, run)
	cmd.Flags().BoolVar(&opts.check, "check", false, fmt.Sprintf("print only what needs someone now (a leader or controller gone or silent, a vacant role with candidates, an alarm of a system's lock or queue) and exit %d when there is one", exitCheckAlarm))
	cmd.Flags().DurationVar(&opts.heldTooLong, "held-too-long", 10*time.Minute, "warn about DDL entries pending longer than this")
	return cmd
}

// runSystems shows the known systems' coordination nodes at and under
// opts.path.
func runSystems(ctx context.Context, opts *recipeOptions, std streams) error {
	s, err := scanRecipes(ctx, opts, std)
	if err != nil {
		return err
	}
	format := opts.read.format
	if opts.check {
		return systemsCheck(std, s, format)
	}
	systems := recognize.Systems(s.res)
	if format == cliout.JSON {
		err = cliout.WriteJSON(std.out, systems)
	} else {
		err = writeSystems(std.out, systems)
	}
	if err != nil {
		return err
	}
	return s.finish(std.errOut, format, kindSystems, opts.path, len(systems))
}

// writeSystems prints one block per system: leaders, members, queues,
// warnings.
func writeSystems(out io.Writer, systems []recognize.SystemSummary) error {
	st := cliout.NewStyles(out)
	for i, s := range systems {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "%s  %s\n", st.Header(s.System), cliout.Clean(s.Root))
		t := cliout.NewTable(out)
		for _, l := range s.Leaders {
			who, session, client, held := st.Dim("(nobody)"), "-", "", "-"
			if c := l.Leader; c != nil {
				who, session, client, held = cliout.Clean(c.Data), orDash(st, c.Session), cliout.Clean(c.ClientText()), present.HeldOf(*c, time.Now()).Cell
				if who == "" {
					who = cliout.Clean(recognize.BareName(c.Node))
				}
			}
			var line []string
			for _, c := range l.Candidates {
				name := c.Data
				if name == "" {
					name = c.Session
				}
				line = append(line, cliout.Clean(name))
			}
			in := "in line: " + orNone(line)
			t.Row("  "+l.Role, who, session, client, "for "+held, in)
		}
		for _, m := range s.Members {
			var names []string
			for _, c := range m.Members {
				names = append(names, cliout.Clean(orName(c)))
			}
			t.Row("  "+m.Role, fmt.Sprintf("%d live", len(m.Members)), "", "", "", truncate(strings.Join(names, ", "), 100))
		}
		for _, q := range s.Queues {
			var items []string
			for _, it := range q.Items {
				items = append(items, cliout.Clean(truncate(it.Data, 40)))
			}
			first := ""
			if len(items) > 0 {
				first = "first: " + strings.Join(items, " | ")
			}
			t.Row("  "+q.Role, fmt.Sprintf("%d pending", q.Pending), "", "", "", first)
		}
		if err := t.Flush(); err != nil {
			return err
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(out, "  %s %s\n", st.Warn("warning:"), cliout.Clean(w))
		}
	}
	return nil
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "(none)"
	}
	return strings.Join(list, ", ")
}

// orName is a member's node name, or its data when the name is a random
// instance id (a UUID) that says less.
func orName(c recognize.Contender) string {
	name := recognize.BareName(c.Node)
	if len(name) == 36 && c.Data != "" {
		return c.Data
	}
	return name
}
