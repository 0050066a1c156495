package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/demo/redislock"
	"github.com/zkx-dev/zkx/demo/sweepchart"
)

// runSweep runs --sweep: every lane at every contender count, in fresh
// sessions, with the server's CPU time where it can be read: the embedded
// ZooKeeper server runs as a child process (zkx serve) so its own CPU is
// measured apart from the contenders', and a real Redis reports its own.
func runSweep(ctx context.Context, cmd *cobra.Command, g *globalOptions, f demoFlags, kinds []demo.Kind, format cliout.Format) error {
	counts, err := parseCounts(f.sweep)
	if err != nil {
		return err
	}
	raiseFileLimit()
	progress := cmd.ErrOrStderr()
	var (
		servers  []string
		zkCPU    func() time.Duration
		capacity connectionCapacity
	)
	if cmd.Flags().Changed("server") {
		var cleanup func()
		if servers, cleanup, err = demoServer(cmd, g); err != nil {
			return err
		}
		defer cleanup()
		capacity = serverCapacity(ctx, servers)
	} else {
		child, err := startServeChild(ctx)
		if err != nil {
			return err
		}
		defer child.stop()
		fmt.Fprintf(progress, "embedded ZooKeeper-compatible server (zkx serve, pid %d) on %s\n", child.cmd.Process.Pid, child.addr)
		servers, zkCPU = []string{child.addr}, child.cpu
	}
	shared := laneSettings(f, servers)
	redisCPU := func() time.Duration { return -1 }
	if hasRedis(kinds) {
		addr, stopRedis, err := demoRedis(ctx, cmd, f)
		if err != nil {
			return err
		}
		defer stopRedis()
		shared.Redis = addr
		if f.redis != "" || os.Getenv("ZKX_REDIS") != "" {
			redisCPU = redisServerCPU(addr)
		}
	}
	o := demo.SweepOptions{
		Lanes: kinds, Counts: counts, Duration: f.duration, Lane: shared, Progress: progress,
		ServerCPU: func(k demo.Kind) time.Duration {
			if k == demo.Redis {
				return redisCPU()
			}
			if zkCPU == nil {
				return -1
			}
			return zkCPU()
		},
	}
	if capacity.limited() {
		o.Limit, o.LimitReason = capacity.total-demoReserve, capacity.String()
	}
	res, err := demo.Sweep(ctx, o)
	if err != nil {
		return err
	}
	if f.chart != "" {
		where := "the embedded server"
		if cmd.Flags().Changed("server") {
			where = strings.Join(servers, ",")
		}
		title := fmt.Sprintf("zkx demo sweep on %s, hold %v, %v per point", where, f.hold, f.duration)
		if err := sweepchart.Write(f.chart, title, res); err != nil {
			return err
		}
		fmt.Fprintf(progress, "chart written to %s\n", f.chart)
	}
	if format == cliout.JSON {
		return cliout.WriteJSON(cmd.OutOrStdout(), res)
	}
	return writeSweepTable(cmd.OutOrStdout(), res)
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

// serveChild is zkx serve run by the sweep.
type serveChild struct {
	cmd  *exec.Cmd
	addr string
}

// startServeChild runs this binary's embedded server in a process of its
// own, with no limits on sessions beyond the open-file limit it inherits.
func startServeChild(ctx context.Context) (*serveChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	c := exec.Command(exe, "serve", "--listen", "127.0.0.1:0", "--tick", "200ms")
	c.SysProcAttr = serveChildAttr()
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("embedded server: %s serve: %w", exe, err)
	}
	child := &serveChild{cmd: c}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	select {
	case line, ok := <-lines:
		const marker = "listening on "
		i := strings.Index(line, marker)
		if !ok || i < 0 {
			child.stop()
			return nil, fmt.Errorf("embedded server: zkx serve said %q", line)
		}
		child.addr = strings.Fields(line[i+len(marker):])[0]
		return child, nil
	case <-time.After(15 * time.Second):
		child.stop()
		return nil, fmt.Errorf("embedded server: zkx serve did not start within 15s")
	case <-ctx.Done():
		child.stop()
		return nil, ctx.Err()
	}
}

// cpu is the CPU time (user and system) the server has used so far, from
// /proc/PID/stat; -1 when it cannot be read.
func (s *serveChild) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux platform Go supports
	return time.Duration(utime+stime) * time.Second / clockTicks
}

func (s *serveChild) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// redisServerCPU reads a real Redis's own CPU time (INFO cpu:
// used_cpu_user + used_cpu_sys); -1 when it does not say.
func redisServerCPU(addr string) func() time.Duration {
	return func() time.Duration {
		c := redislock.NewClient(addr, nil)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		info, err := c.Info(ctx, "cpu").Result()
		if err != nil {
			return -1
		}
		var total float64
		found := 0
		for _, line := range strings.Split(info, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					total += x
					found++
				}
			}
		}
		if found != 2 {
			return -1
		}
		return time.Duration(total * float64(time.Second))
	}
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
