package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// scriptedEditor is an editor for tests: its Nth run replaces the file
// with the Nth text given; a round marked to pause tells the test it has
// started (a FIFO) and waits for the test's go (another FIFO) before it
// writes, so the test can change the node while "the user edits".
type scriptedEditor struct {
	dir string
}

func newScriptedEditor(t *testing.T, rounds ...string) *scriptedEditor {
	t.Helper()
	e := &scriptedEditor{dir: t.TempDir()}
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
	if err := os.WriteFile(filepath.Join(e.dir, "editor.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, text := range rounds {
		if err := os.WriteFile(filepath.Join(e.dir, fmt.Sprintf("edit%d", i+1)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZKX_EDITOR", "sh "+filepath.Join(e.dir, "editor.sh"))
	return e
}

// pause makes round n wait; started is readable once it runs, and go
// lets it write.
func (e *scriptedEditor) pause(t *testing.T, n int) (started, goOn string) {
	t.Helper()
	started, goOn = filepath.Join(e.dir, fmt.Sprintf("started%d", n)), filepath.Join(e.dir, fmt.Sprintf("go%d", n))
	for _, f := range []string{started, goOn} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return started, goOn
}

// runWithInput runs zkx with stdin.
func runWithInput(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errs.String(), err
}

func getData(t *testing.T, connect, path string) (string, int32) {
	t.Helper()
	c, _, err := zk.Connect([]string{connect}, 10e9, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data, st, err := c.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), st.Version
}

// TestEditJSONWithErrorAndConflict: a scripted editor first breaks the
// JSON (zkx names the line and column and the user edits again), then,
// while it runs the second time, the node changes on the server: zkx
// shows what changed and the user overwrites it knowingly.
func TestEditJSONWithErrorAndConflict(t *testing.T) {
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		populate(t, connect, map[string]int32{base: 0, base + "/cfg": 0})
		setData(t, connect, base+"/cfg", "{\n  \"replicas\": 3,\n  \"zone\": \"a\"\n}\n")
		ed := newScriptedEditor(t,
			"{\n  \"replicas\": 5,\n  \"zone\": \"a\",\n}\n", // a trailing comma
			"{\n  \"replicas\": 5,\n  \"zone\": \"a\"\n}\n")
		started, goOn := ed.pause(t, 2)
		done := make(chan struct{})
		var out, errOut string
		var err error
		go func() {
			defer close(done)
			out, errOut, err = runWithInput(t, "e\no\n", "--server", connect, "edit", base+"/cfg")
		}()
		// Round 2 runs: someone else changes the node meanwhile.
		if b, rerr := os.ReadFile(started); rerr != nil || strings.TrimSpace(string(b)) != "started" {
			t.Fatalf("the editor's second round: %q %v", b, rerr)
		}
		setData(t, connect, base+"/cfg", "{\n  \"replicas\": 3,\n  \"zone\": \"b\"\n}\n")
		if werr := os.WriteFile(goOn, []byte("go\n"), 0o600); werr != nil {
			t.Fatal(werr)
		}
		<-done
		if err != nil {
			t.Fatalf("edit: %v\n%s%s", err, out, errOut)
		}
		for _, want := range []string{
			"not JSON any more: line 4, column 1: invalid character '}' looking for beginning of object key string",
			"changed while you edited (version 1 → 2)",
			"-   \"zone\": \"a\"", "+   \"zone\": \"b\"",
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
		data, version := getData(t, connect, base+"/cfg")
		if data != "{\n  \"replicas\": 5,\n  \"zone\": \"a\"\n}\n" || version != 3 || !strings.Contains(out, "saved "+base+"/cfg: version 2 → 3") {
			t.Errorf("after overwrite: %q v%d\n%s", data, version, out)
		}
	})
}

// TestEditOutcomes: discard after a conflict writes nothing (exit 1); a
// file saved unchanged writes nothing (exit 0); binary data is refused; a
// read-only zkx refuses; text that was not JSON is not checked as JSON.
func TestEditOutcomes(t *testing.T) {
	connect := zktest.Embedded(t)
	base := zktest.Path(t)
	populate(t, connect, map[string]int32{base: 0, base + "/text": 0, base + "/bin": 0, base + "/json": 0})
	setData(t, connect, base+"/text", "plain text")
	setData(t, connect, base+"/bin", "\x00\x01\xff")
	setData(t, connect, base+"/json", `{"a":1}`)

	newScriptedEditor(t, "not json {")
	if out, _, err := runWithInput(t, "", "--server", connect, "edit", base+"/text"); err != nil || !strings.Contains(out, "saved") {
		t.Errorf("text saved as text: %v %s", err, out)
	}
	newScriptedEditor(t, `{"a":1}`)
	if out, _, err := runWithInput(t, "", "--server", connect, "edit", base+"/json"); err != nil || !strings.Contains(out, "no change") {
		t.Errorf("unchanged: %v %s", err, out)
	}
	newScriptedEditor(t, "x")
	if _, _, err := runWithInput(t, "", "--server", connect, "edit", base+"/bin"); err == nil || !strings.Contains(err.Error(), "binary data (3 bytes") {
		t.Errorf("binary: %v", err)
	}
	if _, _, err := runWithInput(t, "", "--server", connect, "--readonly", "edit", base+"/text"); err == nil || !strings.Contains(err.Error(), "--readonly") {
		t.Errorf("read-only: %v", err)
	}
	// Broken JSON, then end of input: discarded, nothing written.
	newScriptedEditor(t, `{"a":`)
	_, errOut, err := runWithInput(t, "", "--server", connect, "edit", base+"/json")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "nothing written") || !strings.Contains(errOut, "line 1, column 5") {
		t.Errorf("broken JSON, discarded: %v\n%s", err, errOut)
	}
	if data, _ := getData(t, connect, base+"/json"); data != `{"a":1}` {
		t.Errorf("discarded edit wrote %q", data)
	}
}
