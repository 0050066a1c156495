// Command testreport reads `go test -json` on standard input and says what
// the plain `go test ./...` summary hides: every skipped test with its
// reason. It prints one line per package as it finishes, the output of
// every failed test and of every package that failed to build or run, then
// the skipped tests, then a count.
//
//	go test -json ./... | go run ./scripts/testreport
//	ZKX_REAL_ZK=required go test -json ./... | go run ./scripts/testreport -required
//
// It exits 1 when a test or a package failed, when a test started and never
// ended (the binary died), when the input held no test event at all (go
// test failed before running anything), and — with -required, or with
// ZKX_REAL_ZK=required in its own environment — when a test skipped for a
// missing peer. A skip is for a missing peer when its message starts with
// "SKIPPING ": the test kits (internal/testkit/zktest, redistest) start
// every such message so ("SKIPPING real ZooKeeper test: …", "SKIPPING
// interop test: …", "SKIPPING Kerberos test: …"), and a test that skips
// for a missing tool of its own says it the same way. Under
// ZKX_REAL_ZK=required the kits fail such tests themselves; this check
// catches a skip that went around them.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent, plus the
// build events go test -json interleaves: ImportPath, build-output,
// build-fail).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

// peerSkipPrefix starts the message of a skip for a missing peer.
const peerSkipPrefix = "SKIPPING "

// skip is one skipped test and why.
type skip struct {
	pkg, test, reason string
}

// peer reports whether the test skipped because a peer was missing.
func (s skip) peer() bool { return strings.HasPrefix(s.reason, peerSkipPrefix) }

// packageCounts is what one package's tests did.
type packageCounts struct {
	passed, failed, skipped int
}

// report follows the stream and keeps what the summary needs.
type report struct {
	out       io.Writer
	events    int
	output    map[string]*strings.Builder // by package and test ("" for the package itself)
	running   map[string]bool             // tests started and not ended, by key
	counts    map[string]*packageCounts
	skips     []skip
	failed    []string // "pkg TestName", or "pkg" for a package that failed without a failed test
	noTests   []string // packages without test files
	buildFail map[string]bool
}

func newReport(out io.Writer) *report {
	return &report{
		out:       out,
		output:    map[string]*strings.Builder{},
		running:   map[string]bool{},
		counts:    map[string]*packageCounts{},
		buildFail: map[string]bool{},
	}
}

func key(pkg, test string) string { return pkg + "\x00" + test }

func (r *report) count(pkg string) *packageCounts {
	c := r.counts[pkg]
	if c == nil {
		c = &packageCounts{}
		r.counts[pkg] = c
	}
	return c
}

// take handles one event.
func (r *report) take(e event) {
	switch e.Action {
	case "build-output":
		r.buffer(key(e.ImportPath, "build"), e.Output)
		return
	case "build-fail":
		r.buildFail[e.ImportPath] = true
		fmt.Fprintf(r.out, "BUILD FAIL  %s\n%s", e.ImportPath, indent(r.take0(key(e.ImportPath, "build"))))
		return
	}
	r.events++
	k := key(e.Package, e.Test)
	switch e.Action {
	case "run":
		r.running[k] = true
	case "output":
		r.buffer(k, e.Output)
	case "pass":
		if e.Test == "" {
			c := r.count(e.Package)
			fmt.Fprintf(r.out, "ok    %-52s %6.1fs  %d passed%s\n", e.Package, e.Elapsed, c.passed, skippedNote(c))
			r.take0(k)
			return
		}
		delete(r.running, k)
		r.count(e.Package).passed++
		r.take0(k)
	case "skip":
		if e.Test == "" {
			r.noTests = append(r.noTests, e.Package)
			r.take0(k)
			return
		}
		delete(r.running, k)
		r.count(e.Package).skipped++
		r.skips = append(r.skips, skip{e.Package, e.Test, reason(r.take0(k))})
	case "fail":
		if e.Test == "" {
			r.packageFailed(e)
			return
		}
		delete(r.running, k)
		r.count(e.Package).failed++
		r.failed = append(r.failed, e.Package+" "+e.Test)
		fmt.Fprintf(r.out, "--- FAIL  %s %s (%.2fs)\n%s", e.Package, e.Test, e.Elapsed, indent(r.take0(k)))
	}
}

// packageFailed prints a package's failure, with its own output when no
// failed test has explained it (a build failure, a panic, a timeout, a
// failing TestMain).
func (r *report) packageFailed(e event) {
	c := r.count(e.Package)
	var died []string
	for k := range r.running {
		if pkg, test, _ := strings.Cut(k, "\x00"); pkg == e.Package {
			delete(r.running, k)
			c.failed++
			r.failed = append(r.failed, pkg+" "+test+" (never ended)")
			died = append(died, fmt.Sprintf("--- DID NOT END  %s %s\n%s", pkg, test, indent(r.take0(k))))
		}
	}
	sort.Strings(died)
	fmt.Fprintf(r.out, "FAIL  %-52s %6.1fs  %d passed, %d failed%s\n", e.Package, e.Elapsed, c.passed, c.failed, skippedNote(c))
	own := r.take0(key(e.Package, ""))
	if c.failed == 0 {
		if e.FailedBuild == "" {
			r.failed = append(r.failed, e.Package)
		}
		fmt.Fprint(r.out, indent(own))
	}
	fmt.Fprint(r.out, strings.Join(died, ""))
}

func (r *report) buffer(k, s string) {
	b := r.output[k]
	if b == nil {
		b = &strings.Builder{}
		r.output[k] = b
	}
	b.WriteString(s)
}

// take0 returns and forgets the output kept under k.
func (r *report) take0(k string) string {
	b := r.output[k]
	delete(r.output, k)
	if b == nil {
		return ""
	}
	return b.String()
}

func skippedNote(c *packageCounts) string {
	if c.skipped == 0 {
		return ""
	}
	return fmt.Sprintf(", %d skipped", c.skipped)
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(s, "\n")+"\n", "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

var (
	// logPrefix is what t.Log and t.Skip put before a message: "file.go:12: ".
	logPrefix = regexp.MustCompile(`^[\w.-]+\.go:\d+: `)
	// framing are the lines go test writes around a test, not the test's own.
	framing = regexp.MustCompile(`^(=== (RUN|PAUSE|CONT|NAME)|--- (SKIP|PASS|FAIL):)`)
)

// reason is a skipped test's message: its output without go test's framing
// lines and without the file:line prefix, lines joined.
func reason(output string) string {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || framing.MatchString(l) {
			continue
		}
		lines = append(lines, logPrefix.ReplaceAllString(l, ""))
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return strings.Join(lines, " / ")
}

// finish prints the skips and the count, and reports whether the run is a
// success.
func (r *report) finish(required bool) bool {
	ok := true
	for k := range r.running {
		pkg, test, _ := strings.Cut(k, "\x00")
		r.failed = append(r.failed, pkg+" "+test+" (never ended)")
	}
	sort.Slice(r.skips, func(i, j int) bool {
		if r.skips[i].pkg != r.skips[j].pkg {
			return r.skips[i].pkg < r.skips[j].pkg
		}
		return r.skips[i].test < r.skips[j].test
	})
	var peers []skip
	if len(r.skips) > 0 {
		fmt.Fprintf(r.out, "\nSkipped (%d):\n", len(r.skips))
		for _, s := range r.skips {
			fmt.Fprintf(r.out, "  %s %s: %s\n", s.pkg, s.test, s.reason)
			if s.peer() {
				peers = append(peers, s)
			}
		}
	}
	var passed, failed int
	for _, c := range r.counts {
		passed += c.passed
		failed += c.failed
	}
	fmt.Fprintf(r.out, "\n%d passed, %d failed, %d skipped (%d for a missing peer) in %d packages",
		passed, failed, len(r.skips), len(peers), len(r.counts))
	if len(r.noTests) > 0 {
		fmt.Fprintf(r.out, "; %d packages have no tests", len(r.noTests))
	}
	fmt.Fprintln(r.out)
	if r.events == 0 {
		fmt.Fprintln(r.out, "FAIL: no test events read: did go test run? (it needs -json)")
		ok = false
	}
	if len(r.buildFail) > 0 {
		var names []string
		for p := range r.buildFail {
			names = append(names, p)
		}
		sort.Strings(names)
		fmt.Fprintf(r.out, "FAIL: %d packages did not build: %s\n", len(names), strings.Join(names, ", "))
		ok = false
	}
	if len(r.failed) > 0 {
		sort.Strings(r.failed)
		fmt.Fprintf(r.out, "FAIL: %s\n", strings.Join(r.failed, ", "))
		ok = false
	}
	if required && len(peers) > 0 {
		fmt.Fprintf(r.out, "FAIL: ZKX_REAL_ZK=required but %d tests skipped for a missing peer (messages starting %q above)\n", len(peers), peerSkipPrefix)
		ok = false
	}
	return ok
}

// read feeds the report every event of in; a line that is not an event
// (go test writes some of its own errors as text) is printed as it is.
func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(r.out, "%s\n", line)
			continue
		}
		r.take(e)
	}
	return sc.Err()
}

func main() {
	required := flag.Bool("required", os.Getenv("ZKX_REAL_ZK") == "required",
		"fail when a test skipped for a missing peer (default: whether ZKX_REAL_ZK=required)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go test -json ./... | go run ./scripts/testreport [-required]")
		flag.PrintDefaults()
	}
	flag.Parse()
	r := newReport(os.Stdout)
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	if !r.finish(*required) {
		os.Exit(1)
	}
}
