package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview"
)

// exitPartial is the exit status of a scan that printed a partial result,
// so scripts can tell it from a failure (1).
const exitPartial = 3

// partialError is returned after a partial result was printed.
type partialError struct{ err error }

func (e *partialError) Error() string {
	return "partial result (printed; nodes may be missing from it): " + e.err.Error()
}

func (e *partialError) Unwrap() error { return e.err }

// walkEnded names what ended a walk that streamed part of a subtree: its
// deadline makes it a partial result (exit 3), as a timed-out recipe scan
// is, once anything was printed.
func walkEnded(err error, root string, printed bool, timeout time.Duration) error {
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	err = fmt.Errorf("--timeout %v reached before the walk of %s finished: %w", timeout, root, err)
	if printed {
		return &partialError{err}
	}
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func orDash(st cliout.Styles, s string) string {
	if s == "" {
		return st.Dim("-")
	}
	return s
}

// truncate cuts s to n runes, marking the cut with "…".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// statMillisFormat is RFC 3339 with milliseconds, ZooKeeper's resolution.
const statMillisFormat = "2006-01-02T15:04:05.000Z07:00"

func statTimeJSON(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(statMillisFormat)
}

// warnf writes a warning line on stderr.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "zkx: warning: %s\n", cliout.Clean(fmt.Sprintf(format, args...)))
}

// warnSkipped warns on stderr of a file of a data directory that was
// not read (datadir.Dir.Skipped).
func warnSkipped(cmd *cobra.Command) func(error) {
	return func(err error) { warnf(cmd.ErrOrStderr(), "skipped %v", err) }
}

// notef tells stderr how a result came about, when that is worth knowing
// but nothing is wrong.
func notef(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "zkx: note: %s\n", cliout.Clean(fmt.Sprintf(format, args...)))
}

// unreadableNodes counts the nodes a walk could not read: each is marked
// where it is printed, and what is below it is missing from the output.
type unreadableNodes struct{ count, noRead int }

func (u *unreadableNodes) note(n zkview.WalkNode) {
	if n.Err != nil {
		u.count++
		if zkview.IsNoAuth(n.Err) {
			u.noRead++
		}
	}
}

// result is the walk's error, or, for a walk that ended well but met
// nodes it could not read, a partial result (exit 3).
func (u *unreadableNodes) result(err error) error {
	if err != nil || u.count == 0 {
		return err
	}
	return &partialError{fmt.Errorf("%s could not be read (marked; %s): what is below them is missing", plural(u.count, "node"), whyUnreadable(u.count, u.noRead, "marked"))}
}

// whyUnreadable says why count nodes could not be read, noRead of them
// refused for want of READ permission: permissions are blamed for those
// alone; the others carry their own error where they are (where).
func whyUnreadable(count, noRead int, where string) string {
	switch {
	case noRead == count:
		return "no READ permission for this session? pass --auth"
	case noRead == 0:
		return "each " + where + " with why"
	}
	return fmt.Sprintf("%d without READ permission for this session (pass --auth), %d for another reason, each %s with why", noRead, count-noRead, where)
}
