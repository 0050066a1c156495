package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/hostile"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// hostileQuiet are the commands that print nothing a server, a file or a
// node's name gave them, each with why: every other command has runs in
// TestHostileTextInEveryCommand.
var hostileQuiet = map[string]string{
	"completion": "prints a shell script of zkx's own",
	"demo":       "runs its own server and contenders, and the explorer (tested with the hostile scene in tui)",
	"digest":     "prints the digest of the user:password it is given",
	"exporter":   "runs until stopped and writes only its own notes (its address, its session, counts); what it serves is Prometheus's exposition format, for Prometheus (docs/metrics.md)",
	"help":       "prints zkx's own words",
	"man":        "writes zkx's own manual pages",
	"serve":      "serves; prints its own address",
	"version":    "prints zkx's own version",
}

// TestHostileTextInEveryCommand runs every command of zkx on the hostile
// scene (internal/testkit/hostile: node names, data, recipes, systems'
// nodes, ACLs, the servers' answers) and on hostile files (a contexts
// file, an audit log, an export), in its text output — tables and plain —
// with its notes, warnings and errors: nothing it writes on stdout or
// stderr, nor the error zkx prints, holds a byte a terminal would act on.
// A command with neither runs here nor a reason in hostileQuiet fails the
// test: a new command is not left out.
func TestHostileTextInEveryCommand(t *testing.T) {
	scene := hostile.Serve(t)
	connect := scene.Addr
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Setenv("ZKX_EDITOR", "true") // leaves the data as it was
	t.Setenv(authEnv, "")

	// A contexts file whose names, server and chroot are hostile; JSON
	// is YAML, its escapes YAML's.
	config := filepath.Join(dir, "config.yaml")
	ctxName := hostile.UTF8("ctx")
	contexts, err := json.Marshal(map[string]any{"current-context": ctxName, "contexts": map[string]map[string]string{
		ctxName:                {"server": connect, "chroot": "/" + hostile.Name("chroot")},
		hostile.UTF8("broken"): {"server": hostile.UTF8("server")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// YAML takes a C1 control escaped only; JSON leaves it as it is.
	writeFile(t, config, strings.ReplaceAll(string(contexts), "\u009b", `\u009b`))
	// An audit log whose users, addresses and paths are hostile.
	auditLog := filepath.Join(dir, "audit.log")
	writeFile(t, auditLog, fmt.Sprintf("2026-11-27T15:08:21.145+0000 INFO  org.apache.zookeeper.audit.Slf4jAuditLogger - session=0x%x\tuser=%s,%s\tip=%s\toperation=%s\tznode=%s\tznode_type=%s\tresult=success\n",
		hostile.Holder, hostile.Field("user"), hostile.Field("ip"), hostile.Field("ip"), hostile.Field("op"), hostile.Base+"/"+hostile.Field("znode"), hostile.Field("type")))
	// An export of the scene, to import (it is refused: the scene's
	// server is read-only).
	exported, _, err := run(t, "--server", connect, "export", hostile.Dir)
	if exitCode(err) == 1 { // 3: its node with a digest ACL is not read
		t.Fatalf("export: %v", err)
	}
	exportFile := filepath.Join(dir, "export.jsonl")
	writeFile(t, exportFile, exported)

	session := fmt.Sprintf("0x%x", hostile.Holder)
	listed := hostile.Listed + "/" + strings.ReplaceAll(hostile.Text("all"), "/", "")
	runs := map[string][][]string{
		"audit":     {{"audit", auditLog}, {"audit", "--user", hostile.Field("user"), auditLog}},
		"check":     {{"check", hostile.Base}},
		"context":   {{"context", "list"}, {"context", "show"}, {"context", "show", hostile.UTF8("broken")}, {"context", "use", hostile.Text("nope")}},
		"cp":        {{"cp", hostile.Dir, hostile.Base + "/" + hostile.Name("copy")}},
		"diff":      {{"diff", hostile.Dir, hostile.CuratorLock}, {"diff", hostile.Dir, exportFile}},
		"edit":      {{"edit", hostile.Dir + "/text"}, {"edit", hostile.Dir}, {"edit", listed}},
		"elections": {{"elections", hostile.Base}, {"elections", "-l", hostile.Base}},
		"export":    {{"export", hostile.Base}},
		"find":      {{"find", hostile.Base}, {"find", hostile.Base, "--name", "*evil*"}, {"find", hostile.Base, "--data", "hidden"}},
		"get":       {{"get", hostile.Dir}, {"get", hostile.Dir + "/json"}, {"get", "--decode", "hex", hostile.Dir}, {"get", hostile.HBase + "/master"}, {"get", listed}},
		"import":    {{"import", exportFile, "--to", hostile.Base + "/" + hostile.Name("imported"), "--dry-run"}, {"import", exportFile, "--to", hostile.Base + "/" + hostile.Name("imported")}},
		"lock":      {{"lock", hostile.CuratorLock, "--", "true"}},
		"locks":     {{"locks", hostile.Base}, {"locks", "-l", hostile.Base}, {"locks", "-l", hostile.CuratorLock}, {"locks", "-l", hostile.KazooLock}},
		"ls":        {{"ls", hostile.Base}, {"ls", "-l", hostile.Dir}, {"ls", "-l", hostile.Listed}, {"ls", listed}},
		"mirror":    {{"mirror", hostile.Dir, hostile.Base + "/" + hostile.Name("mirror")}},
		"mv":        {{"mv", hostile.Dir, hostile.Base + "/" + hostile.Name("moved")}},
		"queues":    {{"queues", hostile.Base}, {"queues", "-l", hostile.Base}},
		"quota":     {{"quota", hostile.Base}},
		"recipes":   {{"recipes", hostile.Base}, {"recipes", "-l", hostile.Base}},
		"revoke":    {{"revoke", hostile.CuratorLock}},
		"sessions":  {{"sessions"}, {"sessions", session}, {"sessions", fmt.Sprintf("0x%x", hostile.Kazoo)}},
		"setacl":    {{"setacl", hostile.Dir, "world:anyone:r"}},
		"stat":      {{"stat", hostile.Dir + "/acl"}, {"stat", listed}},
		"systems":   {{"systems", hostile.Base}},
		"tree":      {{"tree", hostile.Base}},
		"unlock":    {{"unlock", hostile.CuratorLock}, {"unlock", hostile.KazooLock}},
		"watch":     {{"watch", hostile.Dir}, {"watch", "--children", hostile.Dir + "/text"}}, // a node each: the last watch may linger
		"whoami":    {{"whoami"}},
	}
	for _, c := range newRootCommand().Commands() {
		_, ran := runs[c.Name()]
		_, quiet := hostileQuiet[c.Name()]
		if ran == quiet == !slices.Contains(hostileFileCommands, c.Name()) {
			t.Errorf("zkx %s: give it runs in TestHostileTextInEveryCommand (or TestHostileTextInZooKeepersFiles) or a reason in hostileQuiet", c.Name())
		}
	}

	names := make([]string, 0, len(runs))
	for name := range runs {
		names = append(names, name)
	}
	for _, name := range sortedNames(names) {
		for i, args := range runs[name] {
			t.Run(fmt.Sprintf("%s %d", name, i+1), func(t *testing.T) {
				all := append([]string{"--server", connect, "--config", config, "--auth", "digest:" + hostile.DigestUser + ":" + hostile.Password}, args...)
				if name == "context" {
					all = append([]string{"--config", config}, args...)
				}
				var out, errs string
				var err error
				if name == "watch" {
					out, errs, err = watchAChange(t, scene, all)
				} else {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					out, errs, err = runContext(ctx, t, all...)
				}
				printed := map[string]string{"stdout": out, "stderr": errs}
				if err != nil {
					printed["the error zkx prints"] = errorLine(err)
				}
				checkHostileRun(t, args, out, errs, err)
			})
		}
	}
}

// checkHostileRun fails the test for what a command wrote, or the error
// zkx prints for it, that a terminal would act on.
func checkHostileRun(t *testing.T, args []string, out, errs string, err error) {
	t.Helper()
	printed := map[string]string{"stdout": out, "stderr": errs}
	if err != nil {
		printed["the error zkx prints"] = errorLine(err)
	}
	t.Logf("zkx %q: exit %d, %d bytes on stdout, stderr %.200q; %.200q", args, exitCode(err), len(out), errs, printed["the error zkx prints"])
	// The scene's text shows: escaped, or in a hex dump's text column.
	if all := out + errs + printed["the error zkx prints"]; !strings.Contains(all, `\u202e`) && !strings.Contains(all, "[8m") {
		t.Errorf("zkx %q showed none of the scene's hostile text (escaped)", args)
	}
	for what, text := range printed {
		for _, f := range hostile.Controls(text, hostile.Allow{Tab: true}) {
			t.Errorf("zkx %q: %s: %s at %s in the line %s", args, what, f.What, f.Context, f.Line)
		}
	}
}

// hostileFileCommands read ZooKeeper's own files: TestHostileTextInZooKeepersFiles
// runs them on files a real ZooKeeper wrote.
var hostileFileCommands = []string{"history", "snapshot", "txnlog"}

// TestHostileTextInZooKeepersFiles has a real ZooKeeper write hostile text
// into its files — node names (what ZooKeeper lets in: bidi overrides,
// zero-width runes), data (anything), a digest user's name in the audit
// log — and runs the commands that read those files on them, as
// TestHostileTextInEveryCommand does the others.
func TestHostileTextInZooKeepersFiles(t *testing.T) {
	t.Parallel()
	ens := zktest.RealWith(t, zktest.RealOptions{Audit: true})
	m := ens.Members()[0]
	c := zktest.Conn(t, ens.ConnectString())
	if err := c.AddAuth("digest", []byte(hostile.User("auditor")+":pw")); err != nil {
		t.Fatal(err)
	}
	base := "/" + hostile.Name("files")
	lock := base + "/" + hostile.Name("lock")
	create(t, c, base, []byte(hostile.Text("base")), 0, zk.WorldACL(zk.PermAll))
	create(t, c, lock, nil, 0, zk.WorldACL(zk.PermAll))
	create(t, c, base+"/"+hostile.Name("node"), []byte(hostile.Text("data")), 0, zk.WorldACL(zk.PermAll))
	holder, err := c.Create(lock+"/_c_2b1f1b9e-6a42-4d3e-9a3e-2a7f36a1c001-lock-", []byte(hostile.Text("holder")), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(base+"/"+hostile.Name("node"), []byte(hostile.Text("changed")), -1); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(holder, -1); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Started again, ZooKeeper snapshots what it loaded.
	m.Kill(t)
	m.Restart(t)
	ens.WaitServing(t)
	m.WaitSnapshots(t)
	m.Kill(t)
	snapshots, _ := filepath.Glob(filepath.Join(m.DataDir(), "version-2", "snapshot.*"))
	if len(snapshots) == 0 {
		t.Fatalf("no snapshot in %s", m.DataDir())
	}
	sort.Strings(snapshots)
	runs := [][]string{
		{"txnlog", m.DataDir()},
		{"txnlog", "--path", base, m.DataDir()},
		{"snapshot", "--data", snapshots[len(snapshots)-1]},
		{"history", "--data-dir", m.DataDir(), base},
		{"history", "--data-dir", m.DataDir(), "--audit", m.AuditDir(), base},
		{"audit", m.AuditDir()},
	}
	for i, args := range runs {
		t.Run(fmt.Sprintf("%s %d", args[0], i+1), func(t *testing.T) {
			out, errs, err := run(t, args...)
			checkHostileRun(t, args, out, errs, err)
		})
	}
}

// watchAChange runs zkx watch (args) until it has printed a change of the
// data of the node it watches (its last argument) made once it watches,
// then ends it.
func watchAChange(t *testing.T, scene *hostile.Scene, args []string) (string, string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := newRootCommand()
	out := &signalWriter{wrote: make(chan struct{}, 1)}
	var errs bytes.Buffer
	root.SetOut(out)
	root.SetErr(&errs)
	root.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	node := args[len(args)-1]
	deadline := time.After(20 * time.Second)
changing:
	for {
		// The watch the server lists may be an earlier command's, not yet
		// gone with its session: a change it took is changed again until
		// zkx watch prints one.
		scene.WaitWatched(t, node)
		scene.SetData(t, node, []byte(hostile.Text("changed")))
		select {
		case <-out.wrote:
			break changing
		case err := <-done:
			return out.String(), errs.String(), err
		case <-deadline:
			t.Errorf("zkx %q printed no change in 20s", args)
			break changing
		case <-time.After(time.Second):
		}
	}
	cancel()
	err := <-done
	return out.String(), errs.String(), err
}

// signalWriter keeps what is written and signals each write.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return w.buf.Write(p)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
