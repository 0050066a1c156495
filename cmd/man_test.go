package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestManWritesAPagePerCommand runs zkx man as the release build does and
// checks that every command --help lists has its page, with its examples
// and its JSON notes.
func TestManWritesAPagePerCommand(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600") // 2026-01-01
	dir := t.TempDir()
	if _, errs, err := run(t, "man", "--dir", dir); err != nil {
		t.Fatalf("zkx man: %v\n%s", err, errs)
	}
	root := newRootCommand()
	root.InitDefaultCompletionCmd() // Execute adds it; the pages include it
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page for %q: %v", c.CommandPath(), err)
			return
		}
		if !strings.Contains(string(page), `"2026\-01\-01"`) {
			t.Errorf("%s is not dated $SOURCE_DATE_EPOCH:\n%.200s", name, page)
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
	if _, err := os.Stat(filepath.Join(dir, "zkx-man.1")); err == nil {
		t.Error("the hidden man command has a page")
	}

	locks, err := os.ReadFile(filepath.Join(dir, "zkx-locks.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".SH EXAMPLES\n",
		`  zkx locks \-o json / | jq '.[] | select(.waiters | length > 0)'` + "\n", // an example, verbatim
		"JSON objects: path, recipe (mutex | rwlock | semaphore)",                  // the JSON notes
		"\\fB\\-\\-held\\-too\\-long\\fR \\fIduration\\fR\n",                       // an option
		".SH GLOBAL OPTIONS\n",
	} {
		if !strings.Contains(string(locks), want) {
			t.Errorf("zkx-locks.1 lacks %q", want)
		}
	}
}

func TestManNeedsADirectory(t *testing.T) {
	t.Parallel()
	if _, _, err := run(t, "man"); err == nil || !strings.Contains(err.Error(), "--dir") {
		t.Errorf("zkx man without --dir: %v", err)
	}
}

func TestManDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 23, 0, 0, 0, time.UTC)
	cases := []struct{ build, epoch, want string }{
		{"", "", "2026-03-04"},
		{"2025-12-31T23:30:00Z", "", "2025-12-31"},
		{"2025-12-31T23:30:00-02:00", "", "2026-01-01"}, // in UTC
		{"2025-12-31T23:30:00Z", "1767225600", "2026-01-01"},
		{"not a date", "", "2026-03-04"},
	}
	for _, c := range cases {
		got, err := manDate(c.build, c.epoch, now)
		if err != nil || got != c.want {
			t.Errorf("manDate(%q, %q) = %q, %v; want %q", c.build, c.epoch, got, err, c.want)
		}
	}
	if _, err := manDate("", "yesterday", now); err == nil {
		t.Error("a SOURCE_DATE_EPOCH that is no number was taken")
	}
}
