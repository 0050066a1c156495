package auditlog

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// fixtures are the audit logs a real ZooKeeper 3.8 wrote during the
// post-mortem scenario (testdata/postmortem/README.md): the same events
// in three layouts.
var (
	fixtures = filepath.Join("..", "..", "testdata", "postmortem", "audit")
	// rotatedDir holds zookeeper_audit.log and its rotated copies, in
	// ZooKeeper's documented layout ("%d{ISO8601} %p %c{2}: %m%n"), times
	// without a zone.
	rotatedDir = filepath.Join(fixtures, "rotated")
	// zonedFile is "%d{yyyy-MM-dd'T'HH:mm:ss.SSSZ} %-5p %c - %m%n".
	zonedFile = filepath.Join(fixtures, "audit-zoned.log")
	// serverLog is the server's own log, gzipped, in Debian's layout
	// ("%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n"): the events among the
	// other loggers' lines.
	serverLog = filepath.Join(fixtures, "zookeeper.log.gz")
)

// readAll reads every event of paths, and the line errors on the way.
func readAll(t *testing.T, paths []string, opts Options) ([]Event, []error) {
	t.Helper()
	l, err := Open(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var events []Event
	var problems []error
	for {
		e, err := l.Next()
		if errors.Is(err, io.EOF) {
			return events, problems
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		events = append(events, e)
	}
}

// serverZone is the zone the fixtures' server ran in, as its zoned file
// says: the rotated files' times are written in it without saying so.
func serverZone(t *testing.T) *time.Location {
	t.Helper()
	events, problems := readAll(t, []string{zonedFile}, Options{Location: time.UTC})
	if len(problems) > 0 || len(events) == 0 {
		t.Fatalf("%s: %d events, problems %v", zonedFile, len(events), problems)
	}
	first, err := os.ReadFile(zonedFile)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000-0700", string(first[:28]))
	if err != nil {
		t.Fatal(err)
	}
	_, offset := at.Zone()
	return time.FixedZone("server", offset)
}

// sameEvent compares two readings of one event, where they were read
// apart.
func sameEvent(a, b Event) bool {
	if !a.Time.Equal(b.Time) {
		return false
	}
	a.File, a.Line, a.Time = "", 0, time.Time{}
	b.File, b.Line, b.Time = "", 0, time.Time{}
	return a == b
}

// TestLayoutsReadAlike reads the scenario's audit events in the three
// layouts the server wrote them in — the rotated files of ZooKeeper's
// documented layout, the zoned file, the server's own log among other
// loggers' lines — and finds the same events, in time order, with every
// field.
func TestLayoutsReadAlike(t *testing.T) {
	t.Parallel()
	zone := serverZone(t)
	rotated, p1 := readAll(t, []string{rotatedDir}, Options{Location: zone})
	zoned, p2 := readAll(t, []string{zonedFile}, Options{Location: time.UTC}) // its own zone wins
	server, p3 := readAll(t, []string{serverLog}, Options{Location: zone})
	if len(p1)+len(p2)+len(p3) > 0 {
		t.Fatalf("problems: %v %v %v", p1, p2, p3)
	}
	if len(rotated) < 50 || len(zoned) != len(rotated) || len(server) != len(rotated) {
		t.Fatalf("%d events rotated, %d zoned, %d in the server's log", len(rotated), len(zoned), len(server))
	}
	files := map[string]bool{}
	for i := range rotated {
		files[rotated[i].File] = true
		if !sameEvent(rotated[i], zoned[i]) || !sameEvent(rotated[i], server[i]) {
			t.Fatalf("event %d differs:\n rotated %+v\n zoned   %+v\n server  %+v", i, rotated[i], zoned[i], server[i])
		}
		if i > 0 && rotated[i].Time.Before(rotated[i-1].Time) {
			t.Errorf("event %d (%s:%d) is before the one before it", i, rotated[i].File, rotated[i].Line)
		}
	}
	if len(files) < 3 {
		t.Errorf("the rotated events came from %d files: %v", len(files), files)
	}
	first := rotated[0]
	if first.Operation != OpStart || first.HasSession || first.User == "" || first.Result != ResultSuccess {
		t.Errorf("the first event is not the server's start: %+v", first)
	}
	kinds := map[string]int{}
	for _, e := range rotated {
		kinds[e.Operation+" "+e.Result]++
		switch {
		case e.Operation == OpEphemeral:
			if !e.ByServer() || e.IP != "" || e.User != first.User || !e.HasSession || e.Znode == "" {
				t.Errorf("an ephemeral's deletion not by the server's user %q: %+v", first.User, e)
			}
		case e.HasSession:
			if e.IP == "" || !strings.Contains(","+e.User+",", ","+e.IP+",") {
				t.Errorf("a client's event without its address among its users: %+v", e)
			}
		}
		if e.Operation == OpSetACL && e.ACL == "" {
			t.Errorf("a setAcl without its ACL: %+v", e)
		}
		if e.Operation == OpCreate && e.ZnodeType == "" {
			t.Errorf("a create without its node's type: %+v", e)
		}
	}
	for _, want := range []string{"create success", "create failure", "delete success", "setData success",
		"setAcl success", "multiOperation failure", OpEphemeral + " success"} {
		if kinds[want] == 0 {
			t.Errorf("no %q among %v", want, kinds)
		}
	}
}

// TestAuthenticatedUsers: the users a digest-authenticated session logs
// are its user's name and its address, in no fixed order.
func TestAuthenticatedUsers(t *testing.T) {
	t.Parallel()
	events, _ := readAll(t, []string{zonedFile}, Options{})
	users := map[string]bool{}
	for _, e := range events {
		if e.HasSession && !e.ByServer() {
			users[strings.Join(e.Authenticated(), ",")] = true
		}
	}
	for _, want := range []string{"", "billing", "reports", "worker", "batch", "ops"} {
		if !users[want] {
			t.Errorf("no event by %q among %v", want, users)
		}
	}
}

// damaged writes lines to a file of its own and reads it.
func damaged(t *testing.T, name, text string) ([]Event, []error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return readAll(t, []string{path}, Options{Location: time.UTC})
}

func fixtureLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// TestDamagedLogs: a line cut short, a line of the audit logger that is
// no event, a broken session id, a result that is none of ZooKeeper's —
// each a *LineError naming the file and line, the events around it read
// as they are, none made up.
func TestDamagedLogs(t *testing.T) {
	t.Parallel()
	lines := fixtureLines(t, zonedFile)
	whole := len(lines)
	check := func(name, text string, wantEvents int, want error, wantLine int) {
		t.Helper()
		events, problems := damaged(t, name, text)
		if len(events) != wantEvents {
			t.Errorf("%s: %d events, want %d", name, len(events), wantEvents)
		}
		if len(problems) != 1 {
			t.Fatalf("%s: problems %v, want one", name, problems)
		}
		var le *LineError
		if !errors.As(problems[0], &le) || !errors.Is(le, want) || le.Line != wantLine || !strings.HasSuffix(le.File, name) {
			t.Errorf("%s: %v, want %v at line %d", name, problems[0], want, wantLine)
		}
	}
	last := lines[whole-1]
	cut := strings.Join(lines[:whole-1], "\n") + "\n" + last[:len(last)-20]
	check("cut.log", cut, whole-1, ErrTruncated, whole)

	mid := lines[10]
	broken := append(append(append([]string{}, lines[:10]...), mid[:len(mid)-30]), lines[10:]...)
	check("cut-inside.log", strings.Join(broken, "\n")+"\n", whole, ErrMalformed, 11)

	badSession := strings.Replace(lines[5], "session=0x", "session=zz", 1)
	check("session.log", strings.Join(append(append([]string{}, lines[:5]...), append([]string{badSession}, lines[6:]...)...), "\n"), whole-1, ErrMalformed, 6)

	badResult := strings.Replace(lines[7], "result=success", "result=maybe", 1)
	if badResult == lines[7] {
		badResult = strings.Replace(lines[7], "result=failure", "result=maybe", 1)
	}
	check("result.log", strings.Join(append(append([]string{}, lines[:7]...), append([]string{badResult}, lines[8:]...)...), "\n"), whole-1, ErrMalformed, 8)

	long := strings.Join(lines[:3], "\n") + "\n" + lines[3] + strings.Repeat("x", maxLine) + "\n"
	check("long.log", long, 3, ErrTooLong, 4)
}

// TestOtherLoggersAndText: a file of other lines gives no event and no
// problem; one with CRLF line ends reads as with LF.
func TestOtherLoggersAndText(t *testing.T) {
	t.Parallel()
	var other []string
	b, err := os.ReadFile(serverLog)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(text), "\n") {
		if !strings.Contains(line, "Slf4jAuditLogger") {
			other = append(other, line)
		}
	}
	if events, problems := damaged(t, "other.log", strings.Join(other, "\n")); len(events)+len(problems) != 0 {
		t.Errorf("other loggers' lines: %d events, problems %v", len(events), problems)
	}
	lines := fixtureLines(t, zonedFile)
	events, problems := damaged(t, "crlf.log", strings.Join(lines, "\r\n")+"\r\n")
	want, _ := readAll(t, []string{zonedFile}, Options{})
	if len(problems) != 0 || len(events) != len(want) || !sameEvent(events[len(events)-1], want[len(want)-1]) {
		t.Errorf("CRLF: %d events (want %d), problems %v", len(events), len(want), problems)
	}
}

// TestOpenErrors: a missing file, an empty folder, a broken gzip stream
// are errors naming the path.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.log")
	if _, err := Open([]string{missing}, Options{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := Open([]string{dir}, Options{}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("an empty folder: %v", err)
	}
	if _, err := Open(nil, Options{}); err == nil {
		t.Error("no path: no error")
	}
	gz := filepath.Join(dir, "audit.log.gz")
	if err := os.WriteFile(gz, []byte("\x1f\x8bnot gzip at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open([]string{gz}, Options{}); err == nil || !strings.Contains(err.Error(), gz) {
		t.Errorf("a broken gzip header: %v", err)
	}
	// A gzip stream flushed after each line, as a logger that compresses
	// as it writes would, cut in half: the lines before the cut are read.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for _, line := range fixtureLines(t, zonedFile) {
		zw.Write([]byte(line + "\n"))
		zw.Flush()
	}
	zw.Close()
	cutGz := filepath.Join(dir, "cut.log.gz")
	if err := os.WriteFile(cutGz, buf.Bytes()[:buf.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	events, problems := readAll(t, []string{cutGz}, Options{})
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), cutGz) || len(events) == 0 {
		t.Errorf("a gzip stream cut in half: %d events, problems %v", len(events), problems)
	}
}

// TestFolderPicksAuditFiles: in a folder, the files named audit are read
// and the others left; without such a name, every file is.
func TestFolderPicksAuditFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{"zookeeper_audit.log": "a", "zookeeper_audit.log.1": "b", "zookeeper.log": "c", ".hidden_audit": "d"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Files([]string{dir}, nil)
	if err != nil || len(files) != 2 || filepath.Base(files[0]) != "zookeeper_audit.log" || filepath.Base(files[1]) != "zookeeper_audit.log.1" {
		t.Errorf("Files(%s) = %v, %v", dir, files, err)
	}
	os.Remove(filepath.Join(dir, "zookeeper_audit.log"))
	os.Remove(filepath.Join(dir, "zookeeper_audit.log.1"))
	if files, err := Files([]string{dir}, nil); err != nil || len(files) != 1 || filepath.Base(files[0]) != "zookeeper.log" {
		t.Errorf("without audit files: %v, %v", files, err)
	}
}

// TestNamedPipeNeverHangs: a named pipe among the audit files is passed
// over with a warning naming it, and one given by name is refused at once
// (a reader would wait for its writer for ever).
func TestNamedPipeNeverHangs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zookeeper_audit.log"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "zookeeper_audit.log.1")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	var warned []error
	files, err := Files([]string{dir}, func(err error) { warned = append(warned, err) })
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "zookeeper_audit.log" {
		t.Errorf("Files(%s) = %v, %v", dir, files, err)
	}
	if len(warned) != 1 || !fileread.IsNotRegular(warned[0]) || !strings.Contains(warned[0].Error(), pipe) {
		t.Errorf("warnings: %v", warned)
	}
	if _, err := Open([]string{pipe}, Options{}); !fileread.IsNotRegular(err) {
		t.Errorf("Open(the pipe) = %v, want a refusal", err)
	}
}

// TestSkip: the events Skip passes over are counted and not read; the
// others read as without it; a broken line is reported whatever Skip says.
func TestSkip(t *testing.T) {
	t.Parallel()
	all, _ := readAll(t, []string{zonedFile}, Options{})
	asked := 0
	skip := func(session int64, znode []byte) bool {
		asked++
		return !strings.HasPrefix(string(znode), "/pm/kazoo-lock")
	}
	kept, problems := readAll(t, []string{zonedFile}, Options{Skip: skip})
	var want []Event
	for _, e := range all {
		if !e.HasSession || strings.HasPrefix(e.Znode, "/pm/kazoo-lock") {
			want = append(want, e)
		}
	}
	if len(problems) != 0 || len(kept) != len(want) || asked == 0 {
		t.Fatalf("%d events kept of %d, want %d; asked %d times; problems %v", len(kept), len(all), len(want), asked, problems)
	}
	for i := range kept {
		if !sameEvent(kept[i], want[i]) {
			t.Fatalf("event %d: %+v, want %+v", i, kept[i], want[i])
		}
	}
	l, err := Open([]string{zonedFile}, Options{Skip: skip})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := l.Next(); !errors.Is(err, io.EOF); _, err = l.Next() {
	}
	if st := l.Stats()[0]; st.Skipped != len(all)-len(want) || st.Events != len(want) {
		t.Errorf("stats %+v: want %d skipped, %d events", st, len(all)-len(want), len(want))
	}
	l.Close()

	lines := fixtureLines(t, zonedFile)
	last := lines[len(lines)-1]
	cut := strings.Join(lines[:len(lines)-1], "\n") + "\n" + last[:len(last)-10]
	_, problems = damaged(t, "cut.log", cut)
	path := filepath.Join(t.TempDir(), "cut.log")
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	_, skipped := readAll(t, []string{path}, Options{Skip: func(int64, []byte) bool { return true }})
	if len(problems) != 1 || len(skipped) != 1 || !errors.Is(skipped[0], ErrTruncated) {
		t.Errorf("a cut line under Skip: %v (without Skip: %v)", skipped, problems)
	}
}
