package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkserver"
)

// scriptedEditor is $ZKX_EDITOR for tests: its Nth run replaces the file
// with the Nth text; a paused round says it started (a FIFO) and waits
// for the test's go (another FIFO) before writing.
func scriptedEditor(t *testing.T, rounds ...string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	script := `#!/bin/sh
dir="$(dirname "$0")"
n=$(( $(cat "$dir/n" 2>/dev/null || echo 0) + 1 ))
echo $n > "$dir/n"
if [ -p "$dir/started$n" ]; then
  echo started > "$dir/started$n"
  read go < "$dir/go$n"
fi
cp "$dir/edit$n" "$1"
`
	if err := os.WriteFile(filepath.Join(dir, "editor.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, text := range rounds {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("edit%d", i+1)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZKX_EDITOR", "sh "+filepath.Join(dir, "editor.sh"))
	return dir
}

// runEditorsHere makes the app run programs without a terminal.
func runEditorsHere(app *app) {
	app.shared.Exec = func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd {
		return func() tea.Msg { return done(c.Run()) }
	}
}

// TestEditInEditor: e opens the node in the editor; broken JSON is named
// with its line and column and edited again; a change made on the server
// while the editor runs is shown and overwritten on request.
func TestEditInEditor(t *testing.T) {
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		admin := zktest.Conn(t, connect)
		mustCreate(t, admin, base, "", 0)
		mustCreate(t, admin, base+"/cfg", "{\n  \"replicas\": 3,\n  \"zone\": \"a\"\n}\n", 0)
		dir := scriptedEditor(t, "{\n  \"replicas\": 5\n  \"zone\": \"a\"\n}\n", "{\n  \"replicas\": 5,\n  \"zone\": \"a\"\n}\n")
		started, goOn := filepath.Join(dir, "started2"), filepath.Join(dir, "go2")
		for _, f := range []string{started, goOn} {
			if err := syscall.Mkfifo(f, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		app := newTestApp(t, connect, false)
		runEditorsHere(app)
		d := newDriver(t, app, 120, 40)
		d.waitText("zookeeper")
		d.key(":")
		d.typeText("cd " + base + "/cfg")
		d.key("enter")
		d.waitText(`"replicas": 3`)
		d.key("e")
		s := d.waitText("Not JSON any more")
		if !strings.Contains(s, "line 3, column 3") {
			t.Errorf("the dialog does not name the line and column:\n%s", s)
		}
		changed := make(chan error, 1)
		go func() { // while the second round runs, someone else writes
			if _, err := os.ReadFile(started); err != nil {
				changed <- err
				return
			}
			_, err := admin.Set(base+"/cfg", []byte("{\n  \"replicas\": 3,\n  \"zone\": \"b\"\n}\n"), -1)
			changed <- err
			os.WriteFile(goOn, []byte("go\n"), 0o600)
		}()
		d.key("e")
		s = d.waitText("changed meanwhile")
		if err := <-changed; err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"version 0 → 1", `-   "zone": "a"`, `+   "zone": "b"`, "o overwrite theirs"} {
			if !strings.Contains(s, want) {
				t.Errorf("conflict dialog lacks %q:\n%s", want, s)
			}
		}
		d.key("o")
		d.waitText("saved " + base + "/cfg: version 1 → 2")
		data, st, err := admin.Get(base + "/cfg")
		if err != nil || string(data) != "{\n  \"replicas\": 5,\n  \"zone\": \"a\"\n}\n" || st.Version != 2 {
			t.Errorf("after overwrite: %q v%d %v", data, st.Version, err)
		}
	})
}

// TestEditRefusals: binary data is refused with a note; a read-only
// explorer runs no editor at all.
func TestEditRefusals(t *testing.T) {
	connect := zktest.EmbeddedServer(t, zkserver.Config{}).ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	mustCreate(t, admin, base+"/bin", "\x00\x01\x02", 0)
	scriptedEditor(t, "x")
	app := newTestApp(t, connect, false)
	ran := 0
	app.shared.Exec = func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd { ran++; return nil }
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("cd " + base + "/bin")
	d.key("enter")
	d.waitText("hex")
	d.key("e")
	d.waitText("binary data (3 bytes, not UTF-8 text): zkx edits text only")
	if ran != 0 {
		t.Errorf("an editor ran on binary data")
	}

	ro := newTestApp(t, connect, true)
	ro.shared.Exec = func(c *exec.Cmd, done tea.ExecCallback) tea.Cmd {
		t.Error("a read-only explorer ran an editor")
		return nil
	}
	d = newDriver(t, ro, 120, 40)
	d.waitText("READ-ONLY")
	d.key("e")
	d.settle()
}

// TestCreateModesInDialog: n asks a name, a kind and data; TTL asks a
// duration, and a server without extended types refuses with its name;
// ephemeral asks after a warning.
func TestCreateModesInDialog(t *testing.T) {
	t.Parallel()
	connect := zktest.EmbeddedServer(t, zkserver.Config{NoExtendedTypes: true}).ConnectString()
	base := zktest.Path(t)
	admin := zktest.Conn(t, connect)
	mustCreate(t, admin, base, "", 0)
	app := newTestApp(t, connect, false)
	d := newDriver(t, app, 120, 40)
	d.waitText("zookeeper")
	d.key(":")
	d.typeText("cd " + base)
	d.key("enter")
	d.waitText(base)
	create := func(name, kind string, extra ...string) string {
		d.key("n")
		d.waitText("New node under")
		d.typeText(name)
		d.key("enter")
		d.waitText("Kind of")
		d.key(kind)
		for _, x := range extra {
			d.waitFor("the next question", func(s string) bool { return d.app.dialog != nil })
			if x == "y" {
				d.key("y")
				continue
			}
			d.typeText(x)
			d.key("enter")
		}
		d.waitText("Data for")
		d.typeText("v")
		d.key("enter")
		return d.waitFor("the outcome", func(s string) bool {
			return strings.Contains(s, "created ") || strings.Contains(s, "✗")
		})
	}
	if s := create("seq-", "s"); !strings.Contains(s, "created "+base+"/seq-0000000000 (sequential)") {
		t.Errorf("sequential:\n%s", s)
	}
	if s := create("box", "c"); !strings.Contains(s, "(container)") {
		t.Errorf("container:\n%s", s)
	}
	if s := create("t", "t", "90s"); !strings.Contains(s, "TTL nodes are off") {
		t.Errorf("TTL on a server without extended types:\n%s", s)
	}
	d.key("n")
	d.waitText("New node under")
	d.typeText("e")
	d.key("enter")
	d.waitText("Kind of")
	d.key("e")
	if s := d.waitText("An ephemeral node"); !strings.Contains(s, "deleted when you quit the explorer") {
		t.Errorf("no warning before an ephemeral:\n%s", s)
	}
	d.key("y")
	d.waitText("Data for")
	d.key("enter")
	d.waitText("(ephemeral)")
	_, st, err := admin.Get(base + "/e")
	if err != nil || st.EphemeralOwner != app.shared.Client.SessionID() {
		t.Errorf("the ephemeral node: %+v %v", st, err)
	}
	if _, _, err := admin.Get(base + "/t"); err != zk.ErrNoNode {
		t.Errorf("the refused TTL node exists: %v", err)
	}
}
