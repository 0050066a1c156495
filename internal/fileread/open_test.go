//go:build unix

package fileread

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	regular := filepath.Join(dir, "file")
	os.WriteFile(regular, []byte("text"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(regular, link)
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, ok := range []string{regular, link} {
		if b, err := ReadFile(ok); err != nil || string(b) != "text" {
			t.Errorf("%s: %q %v", ok, b, err)
		}
	}
	for path, kind := range map[string]string{pipe: "a named pipe", "/dev/zero": "a character device", dir: "a directory"} {
		_, err := ReadFile(path) // a pipe without a writer, a device without end: both return at once
		if !IsNotRegular(err) || !strings.Contains(err.Error(), path+": not a regular file ("+kind+")") {
			t.Errorf("%s: %v", path, err)
		}
	}
}
