// Command churnbench measures the explorer under churn, for
// scripts/churn-bench.sh: it opens the explorer (ZKX) in tmux at 120×40 on
// PATH (expanded, its History tab showing), measures it idle, runs
// CHURNGEN against PATH, measures it again, and once the churn has stopped
// once more. It prints one line of figures:
//
//   - cpu: the explorer's CPU (utime+stime from /proc) over a window, in %
//     of one core;
//   - req/s: requests the explorer sent, the sum of the server's per
//     connection `recved` (cons) over the explorer's connections;
//   - notif/s: notifications it received: the same connections' `sent`
//     less their `recved` (each request has one reply);
//   - key→frame p50/p99: from tmux send-keys (k, j in turn: the cursor
//     moves between / and PATH) to capture-pane showing the cursor moved,
//     each a tmux process; then "control", the same through one tmux
//     control-mode client (tmux -C), polled every millisecond, which
//     starts no process per sample;
//   - rss: the explorer's VmRSS 60 s into the churn (and every minute
//     after, with -minutes).
//
// The server must answer the four-letter word cons (zkx serve with
// --4lw-whitelist '*'; ZooKeeper with 4lw.commands.whitelist=*, as
// scripts/zk-standalone.sh sets); churnbench stops when it does not.
//
// With -churn-path the churn goes to another directory: the machine is as
// busy, the explorer's node quiet; what the latency is then is the load's
// share, not the explorer's.
//
//	go run ./scripts/churnbench -zkx ZKX -churngen CHURNGEN -server HOST:PORT [-path /storm] [-churn-path DIR] [-minutes 1] [-label NAME] [-screens DIR] [-rate OPS] [-samples 30]
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

func main() {
	zkxBin := flag.String("zkx", "", "the zkx binary to measure")
	churngen := flag.String("churngen", "", "the churn generator (scripts/churngen, built)")
	server := flag.String("server", "127.0.0.1:2181", "the server, HOST:PORT")
	dir := flag.String("path", "/storm", "the directory churned and opened")
	churned := flag.String("churn-path", "", "churn this directory instead of -path: the machine as busy, the explorer's node quiet (a control for the latency)")
	minutes := flag.Int("minutes", 1, "how long the churn runs (RSS is read every minute)")
	label := flag.String("label", "", "names the run in the output line")
	screens := flag.String("screens", "", "a directory to write the screens seen idle and under churn")
	rate := flag.Int("rate", 0, "cap the churn at this many operations per second (0: as fast as the server answers)")
	samples := flag.Int("samples", 30, "key presses timed each way, idle and under churn")
	flag.Parse()
	if *zkxBin == "" || *churngen == "" {
		fail(errors.New("-zkx and -churngen are needed"))
	}
	if *churned == "" {
		*churned = *dir
	}
	prepare(*server, *dir)
	prepare(*server, *churned)
	session := fmt.Sprintf("churnbench-%d", os.Getpid())
	cmd := fmt.Sprintf("exec %s --server %s --path %s", shellQuote(*zkxBin), *server, *dir)
	run("tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", cmd)
	openSession = session
	defer exec.Command("tmux", "kill-session", "-t", session).Run()
	pid := panePid(session)
	b := &bench{session: session, pid: pid, server: *server}
	b.waitScreen("the tree at "+*dir, func(s string) bool { return strings.Contains(s, "storm") && strings.Contains(s, "zookeeper") })
	b.keys("l", "H") // expand PATH, show its History
	b.waitScreen("the History tab", func(s string) bool { return strings.Contains(s, "followed since") })
	time.Sleep(3 * time.Second)

	idleCPU := b.cpu(10 * time.Second)
	idleLat := b.latencies(*samples)
	idleCtl := b.controlLatencies(*samples)
	b.screen(*screens, *label+"-idle")

	args := []string{*server, *churned, strconv.Itoa(*minutes*60 + 5)}
	if *rate > 0 {
		args = append(args, "8", "16", strconv.Itoa(*rate))
	}
	churn := exec.Command(*churngen, args...)
	churn.Stderr = os.Stderr
	if err := churn.Start(); err != nil {
		fail(err)
	}
	churnStart := time.Now()
	time.Sleep(5 * time.Second)
	busyCPU, req, notif := b.traffic(20 * time.Second)
	busyLat := b.latencies(*samples)
	busyCtl := b.controlLatencies(*samples)
	b.screen(*screens, *label+"-churn")
	var rss []string
	for m := 1; m <= *minutes; m++ {
		time.Sleep(time.Until(churnStart.Add(time.Duration(m) * time.Minute)))
		rss = append(rss, b.rss())
	}
	if err := churn.Wait(); err != nil {
		fail(fmt.Errorf("churngen: %w", err))
	}
	time.Sleep(5 * time.Second)
	afterCPU := b.cpu(10 * time.Second)
	b.screen(*screens, *label+"-after")
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%s: idle cpu %.1f%% key→frame p50 %s p99 %s (control %s/%s) | churn cpu %.1f%% req/s %.1f notif/s %.0f key→frame p50 %s p99 %s (control %s/%s) rss %s | after cpu %.1f%% | load %s\n",
		*label, idleCPU, pct(idleLat, 50), pct(idleLat, 99), pct(idleCtl, 50), pct(idleCtl, 99),
		busyCPU, req, notif, pct(busyLat, 50), pct(busyLat, 99), pct(busyCtl, 50), pct(busyCtl, 99),
		strings.Join(rss, " "), afterCPU, strings.Join(strings.Fields(string(load))[:3], " "))
}

// prepare makes sure dir exists before the explorer opens it, once the
// server gives sessions (a ZooKeeper answers ruok before it serves).
func prepare(server, dir string) {
	conn, events, err := zk.Connect([]string{server}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	deadline := time.After(60 * time.Second)
	for waiting := true; waiting; {
		select {
		case ev := <-events:
			waiting = ev.State != zk.StateHasSession
		case <-deadline:
			fail(fmt.Errorf("no session with %s within 60s", server))
		}
	}
	go func() {
		for range events { // keep the channel drained
		}
	}()
	if _, err := conn.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		fail(fmt.Errorf("create %s: %w", dir, err))
	}
}

type bench struct {
	session string
	pid     int
	server  string
}

// cpu is the explorer's CPU over d, in % of a core.
func (b *bench) cpu(d time.Duration) float64 {
	t0, c0 := time.Now(), cpuTicks(b.pid)
	time.Sleep(d)
	return percent(cpuTicks(b.pid)-c0, time.Since(t0))
}

// traffic is the explorer's CPU, requests and notifications per second
// over d.
func (b *bench) traffic(d time.Duration) (cpu, req, notif float64) {
	r0, s0 := b.counters()
	t0, c0 := time.Now(), cpuTicks(b.pid)
	time.Sleep(d)
	took := time.Since(t0)
	cpu = percent(cpuTicks(b.pid)-c0, took)
	r1, s1 := b.counters()
	req = float64(r1-r0) / took.Seconds()
	notif = float64((s1-r1)-(s0-r0)) / took.Seconds()
	return cpu, req, notif
}

// counters sums the server's recved and sent over the explorer's
// connections (a connection that closed in between is not counted).
func (b *bench) counters() (recved, sent int64) {
	local := b.localAddrs()
	text := fourLetter(b.server, "cons")
	re := regexp.MustCompile(`/([0-9.:\[\]a-f]+)\[\d+\]\(queued=\d+,recved=(\d+),sent=(\d+)`)
	found := false
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		if !local[m[1]] {
			continue
		}
		found = true
		r, _ := strconv.ParseInt(m[2], 10, 64)
		s, _ := strconv.ParseInt(m[3], 10, 64)
		recved += r
		sent += s
	}
	if !found {
		// A server that refuses cons would read as no traffic at all.
		fail(fmt.Errorf("cons on %s lists none of the explorer's connections: %.200q", b.server, text))
	}
	return recved, sent
}

// localAddrs are the local addresses of the explorer's TCP connections.
func (b *bench) localAddrs() map[string]bool {
	out, err := exec.Command("ss", "-tnpH", "state", "established").Output()
	if err != nil {
		fail(fmt.Errorf("ss: %w", err))
	}
	addrs := map[string]bool{}
	tag := fmt.Sprintf("pid=%d,", b.pid)
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && strings.Contains(line, tag) {
			addrs[f[2]] = true
		}
	}
	return addrs
}

// latencies presses k and j in turn, n times, and times each until the
// cursor's line moved.
func (b *bench) latencies(n int) []time.Duration {
	var out []time.Duration
	for i := range n {
		k := "k"
		if i%2 == 1 {
			k = "j"
		}
		before := cursorLine(b.capture())
		start := time.Now()
		run("tmux", "send-keys", "-t", b.session, k)
		for {
			if line := cursorLine(b.capture()); line != before && line >= 0 {
				out = append(out, time.Since(start))
				break
			}
			if time.Since(start) > 10*time.Second {
				fail(fmt.Errorf("the cursor did not move within 10s of %q; the screen:\n%s", k, b.capture()))
			}
			time.Sleep(2 * time.Millisecond)
		}
		time.Sleep(150 * time.Millisecond)
	}
	return out
}

// controlLatencies does what latencies does through a tmux control-mode
// client: the keys and the screen reads go over its pipe, polled every
// millisecond, with no process started per sample.
func (b *bench) controlLatencies(n int) []time.Duration {
	c := startControl(b.session)
	defer c.close()
	capture := func() int { return cursorLine(strings.Join(c.run("capture-pane -p -t "+b.session), "\n")) }
	var out []time.Duration
	for i := range n {
		k := "k"
		if i%2 == 1 {
			k = "j"
		}
		before := capture()
		start := time.Now()
		c.run("send-keys -t " + b.session + " " + k)
		for {
			if line := capture(); line != before && line >= 0 {
				out = append(out, time.Since(start))
				break
			}
			if time.Since(start) > 10*time.Second {
				fail(fmt.Errorf("the cursor did not move within 10s of %q (through tmux -C); the screen:\n%s", k, b.capture()))
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(150 * time.Millisecond)
	}
	return out
}

// cursorLine is the screen line of the tree's cursor (›), -1 if none.
func cursorLine(screen string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "›") {
			return i
		}
	}
	return -1
}

func (b *bench) keys(keys ...string) {
	for _, k := range keys {
		run("tmux", "send-keys", "-t", b.session, k)
		time.Sleep(300 * time.Millisecond)
	}
}

func (b *bench) capture() string {
	out, err := exec.Command("tmux", "capture-pane", "-p", "-t", b.session).Output()
	if err != nil {
		fail(fmt.Errorf("capture-pane: %w", err))
	}
	return string(out)
}

func (b *bench) waitScreen(what string, ok func(string) bool) {
	deadline := time.Now().Add(30 * time.Second)
	for !ok(b.capture()) {
		if time.Now().After(deadline) {
			fail(fmt.Errorf("no %s on screen within 30s:\n%s", what, b.capture()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screen writes what the pane shows to dir/name.txt.
func (b *bench) screen(dir, name string) {
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.capture()), 0o644); err != nil {
		fail(err)
	}
}

func (b *bench) rss() string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", b.pid))
	if err != nil {
		fail(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return fmt.Sprintf("%dMB", kb/1024)
		}
	}
	return "?"
}

// cpuTicks is utime+stime of pid, in clock ticks (1/100 s).
func cpuTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		fail(fmt.Errorf("the explorer is gone: %w", err))
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after the command's name
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return utime + stime
}

func percent(ticks int64, d time.Duration) float64 {
	return float64(ticks) / 100 / d.Seconds() * 100
}

func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)*p/100, len(s)-1)
	return s[i].Round(time.Millisecond).String()
}

func panePid(session string) int {
	out, err := exec.Command("tmux", "list-panes", "-t", session, "-F", "#{pane_pid}").Output()
	if err != nil {
		fail(fmt.Errorf("tmux list-panes: %w", err))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		fail(fmt.Errorf("pane pid %q: %w", out, err))
	}
	return pid
}

func fourLetter(server, word string) string {
	c, err := net.DialTimeout("tcp", server, 5*time.Second)
	if err != nil {
		fail(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(word)); err != nil {
		fail(err)
	}
	var b strings.Builder
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

func run(name string, args ...string) {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		fail(fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out))
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// openSession is the tmux session the explorer runs in, once opened: fail
// closes it too, or the explorer would stay connected to the server and
// load the next run.
var openSession string

func fail(err error) {
	fmt.Fprintln(os.Stderr, "churnbench:", err)
	if openSession != "" {
		exec.Command("tmux", "kill-session", "-t", openSession).Run()
	}
	os.Exit(1)
}
