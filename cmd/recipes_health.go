package cmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// registerMaxima adds --max and --max-from: what zkx is told of Curator
// semaphores' maxima, which Curator does not store.
func (o *recipeOptions) registerMaxima(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&o.maxes, "max", nil, "a Curator semaphore's maximum, as in its clients' code: SEMAPHORE=N, or N for the semaphore at PATH (an InterProcessSemaphoreMutex is 1); repeatable")
	cmd.Flags().StringArrayVar(&o.maxFrom, "max-from", nil, "the SharedCount a Curator semaphore reads its maximum from (its SharedCountReader): SEMAPHORE=COUNT, or COUNT for the semaphore at PATH; repeatable")
}

// semaphoreMaxima reads --max and --max-from, by semaphore path; a value
// without a semaphore is for the one at the command's PATH.
func semaphoreMaxima(maxes, maxFrom []string, path string) (map[string]recognize.SemaphoreMax, error) {
	out := map[string]recognize.SemaphoreMax{}
	split := func(flag, v string) (string, string, error) {
		sem, value, ok := strings.Cut(v, "=")
		if !ok {
			if path == "/" {
				return "", "", fmt.Errorf("--%s %s: name the semaphore (SEMAPHORE=%s), or give it as the command's PATH", flag, v, v)
			}
			sem, value = path, v
		}
		clean, err := checkPath(sem)
		if err != nil {
			return "", "", fmt.Errorf("--%s %s: %w", flag, v, err)
		}
		if _, dup := out[clean]; dup {
			return "", "", fmt.Errorf("--%s %s: the maximum of %s is given twice", flag, v, clean)
		}
		return clean, value, nil
	}
	for _, v := range maxes {
		sem, value, err := split("max", v)
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--max %s: the maximum must be a whole number from 1", v)
		}
		out[sem] = recognize.SemaphoreMax{Count: n}
	}
	for _, v := range maxFrom {
		sem, value, err := split("max-from", v)
		if err != nil {
			return nil, err
		}
		count, err := checkPath(value)
		if err != nil {
			return nil, fmt.Errorf("--max-from %s: %w", v, err)
		}
		out[sem] = recognize.SemaphoreMax{From: count}
	}
	return out, nil
}

// runQueueCheck prints the queues with alarms, one row per alarm (or their
// JSON objects), and returns exitCheckAlarm when there is one.
func runQueueCheck(std streams, s *recipeScan, format cliout.Format, queues []recognize.Queue, older time.Duration) error {
	var alarmed []recognize.Queue
	for _, q := range queues {
		if len(q.Alarms) > 0 {
			alarmed = append(alarmed, q)
		}
	}
	out := std.out
	var err error
	if format == cliout.JSON {
		err = cliout.WriteJSON(out, normalQueues(alarmed))
	} else {
		err = writeRecipeAlarms(out, func(yield func(string, []recognize.Alarm)) {
			for _, q := range alarmed {
				yield(q.Path, q.Alarms)
			}
		})
	}
	if err != nil {
		return err
	}
	return checkVerdict(std, s, format, "queues", len(alarmed),
		fmt.Sprintf("%s checked: no item waiting longer than %v, none stuck in flight", plural(len(queues), "queue"), older))
}

// writeRecipeAlarms prints one row per alarm: the recipe's path, the
// alarm's kind, what it is about, and its sentence.
func writeRecipeAlarms(out io.Writer, each func(yield func(path string, alarms []recognize.Alarm))) error {
	st := cliout.NewStyles(out)
	t := cliout.NewTable(out)
	rows := 0
	each(func(path string, alarms []recognize.Alarm) {
		for _, a := range alarms {
			if rows == 0 {
				t.Row(st.Header("PATH"), st.Header("ALARM"), st.Header("ABOUT"), st.Header("WHAT"))
			}
			rows++
			about := a.Node
			if about == "" {
				about = "-"
			}
			t.Row(cliout.Clean(path), st.Bad(a.Kind), cliout.Clean(recognize.BareName(about)), cliout.Clean(a.Text))
		}
	})
	if rows == 0 {
		return nil
	}
	return t.Flush()
}
