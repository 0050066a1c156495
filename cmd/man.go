package cmd

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/manpage"
)

// newManCommand is the hidden `zkx man`, which the release build runs to
// put the man pages into the archives and packages (scripts/release-docs.sh).
func newManCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:    "man --dir DIR",
		Short:  "Write a man page for every command into DIR",
		Hidden: true,
		Long: `man writes zkx(1) and a page for every command (zkx-locks(1), zkx-context-use(1),
…) into DIR, from the text --help shows: description, JSON notes, options
with their defaults, examples and subcommands.

The pages are dated with $SOURCE_DATE_EPOCH when it is set, else with the
build date stamped into zkx, else today, so that a release build writes the
same pages every time.`,
		Example: `  zkx man --dir /tmp/man && man -l /tmp/man/zkx-locks.1`,
		Args:    cobra.NoArgs,
		// The pages are the same whatever contexts file the builder has.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return fmt.Errorf("--dir is required: the directory to write the pages into")
			}
			pageDate, err := manDate(currentBuild().Date, os.Getenv("SOURCE_DATE_EPOCH"), time.Now())
			if err != nil {
				return err
			}
			files, err := manpage.WriteTree(cmd.Root(), manpage.Header{
				Date:   pageDate,
				Source: "zkx " + currentBuild().Version,
				Manual: "zkx manual",
			}, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "zkx: wrote %d man pages into %s\n", len(files), dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the directory to write the pages into (created if missing)")
	return cmd
}

// manDate is the date on the pages: $SOURCE_DATE_EPOCH (the reproducible
// builds convention: seconds since 1970) when set, else the build date,
// else now.
func manDate(buildDate, sourceDateEpoch string, now time.Time) (string, error) {
	const day = "2006-01-02"
	if sourceDateEpoch != "" {
		secs, err := strconv.ParseInt(sourceDateEpoch, 10, 64)
		if err != nil {
			return "", fmt.Errorf("$SOURCE_DATE_EPOCH %q: want seconds since 1970", sourceDateEpoch)
		}
		return time.Unix(secs, 0).UTC().Format(day), nil
	}
	if t, err := time.Parse(time.RFC3339, buildDate); err == nil {
		return t.UTC().Format(day), nil
	}
	return now.UTC().Format(day), nil
}
