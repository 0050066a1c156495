package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/demo/sweepchart"
)

// runSweep runs --sweep: every lane at every contender count, in fresh
// sessions (demo.RunSweep), then draws and prints what it measured.
func runSweep(ctx context.Context, cmd *cobra.Command, g *globalOptions, f demoFlags, kinds []demo.Kind, format cliout.Format) error {
	counts, err := parseCounts(f.sweep)
	if err != nil {
		return err
	}
	run := demo.SweepRun{
		SweepOptions: demo.SweepOptions{Lanes: kinds, Counts: counts, Duration: f.duration, Lane: laneSettings(f, nil), Progress: cmd.ErrOrStderr()},
		Redis:        redisFlag(f),
	}
	where := "the embedded server"
	if cmd.Flags().Changed("server") {
		servers, cleanup, err := demoServer(cmd, g)
		if err != nil {
			return err
		}
		defer cleanup()
		run.Servers, where = servers, strings.Join(servers, ",")
	} else {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("embedded server: %w", err)
		}
		// Unbounded, every word answered: the sweep measures the server
		// with thousands of contenders from one address, and reads its
		// tables.
		run.ServeArgv = []string{exe, "serve", "--listen", "127.0.0.1:0", "--tick", "200ms",
			"--max-client-cnxns", "0", "--max-tree-size", "0", "--max-watches", "0", "--4lw-whitelist", "*"}
	}
	res, err := demo.RunSweep(ctx, run)
	if err != nil {
		return err
	}
	// The figures are printed before the chart is drawn, so a chart that
	// cannot be written (no such directory) loses none of them.
	if format == cliout.JSON {
		err = cliout.WriteJSON(cmd.OutOrStdout(), res)
	} else {
		err = writeSweepTable(cmd.OutOrStdout(), res)
	}
	if err != nil || f.chart == "" {
		return err
	}
	title := fmt.Sprintf("zkx demo sweep on %s, hold %v, %v per point", where, f.hold, f.duration)
	if err := sweepchart.Write(f.chart, title, res); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "chart written to %s\n", f.chart)
	return nil
}

// parseCounts reads "10,50,100".
func parseCounts(list string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10000 {
			return nil, fmt.Errorf("--sweep: %q is not a contender count from 1 to 10000", s)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--sweep: no contender count given (e.g. 10,50,100)")
	}
	return out, nil
}

func writeSweepTable(out io.Writer, res demo.SweepResult) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	t.Row(st.Header("LANE"), st.Header("CONTENDERS"), st.Header("ACQ/S"), st.Header("NOTIFICATIONS/ACQ"),
		st.Header("READS/ACQ"), st.Header("CREATES/ACQ"), st.Header("HANDOFF P99"), st.Header("SERVER CPU"), st.Header("VIOLATIONS"))
	for _, p := range res.Points {
		cpu := "-"
		if p.ServerCPUMs != nil {
			cpu = fmt.Sprintf("%.0f ms", *p.ServerCPUMs)
		}
		violations := st.Good("0")
		if p.Violations > 0 {
			violations = st.Warn(strconv.FormatUint(p.Violations, 10))
		}
		t.Row(p.Lane, strconv.Itoa(p.Contenders), fmt.Sprintf("%.1f", p.AcquisitionsPerSecond),
			fmt.Sprintf("%.2f", p.NotificationsPerAcquisition), fmt.Sprintf("%.2f", p.ReadsPerAcquisition),
			fmt.Sprintf("%.2f", p.CreatesPerAcquisition), fmt.Sprintf("%.1f ms", p.HandoffP99Ms), cpu, violations)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if res.Stopped != "" {
		_, err := fmt.Fprintln(out, res.Stopped)
		return err
	}
	return nil
}
