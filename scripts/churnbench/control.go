package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// tmuxControl is a tmux control-mode client (tmux -C) on the explorer's
// session: its commands go over one pipe, so a latency sample costs no
// process start (a `tmux send-keys` or `capture-pane` process each takes
// milliseconds to start on a machine the churn keeps busy, and that is the
// measuring tool's time, not the explorer's).
type tmuxControl struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	blocks chan []string // each command's output, in order
}

func startControl(session string) *tmuxControl {
	cmd := exec.Command("tmux", "-C", "attach-session", "-t", session)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(fmt.Errorf("tmux -C: %w", err))
	}
	c := &tmuxControl{cmd: cmd, stdin: stdin, blocks: make(chan []string, 16)}
	go c.read(stdout)
	// The attach answers with a block of its own: skip to ours.
	const mark = "churnbench-control-ready"
	fmt.Fprintf(stdin, "display-message -p %s\n", mark)
	for {
		select {
		case b, ok := <-c.blocks:
			if !ok {
				fail(fmt.Errorf("tmux -C ended before it answered"))
			}
			if strings.Join(b, "\n") == mark {
				return c
			}
		case <-time.After(10 * time.Second):
			fail(fmt.Errorf("tmux -C did not answer within 10s"))
		}
	}
}

// read collects what stands between %begin and %end (or %error) as one
// block; notifications (%output and the like) come outside blocks and are
// not needed.
func (c *tmuxControl) read(r io.Reader) {
	defer close(c.blocks)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var block []string
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "%begin "):
			in, block = true, nil
		case in && (strings.HasPrefix(line, "%end ") || strings.HasPrefix(line, "%error ")):
			in = false
			c.blocks <- block
		case in:
			block = append(block, line)
		}
	}
}

// run sends one command and returns its output.
func (c *tmuxControl) run(command string) []string {
	if _, err := fmt.Fprintln(c.stdin, command); err != nil {
		fail(fmt.Errorf("tmux -C %s: %w", command, err))
	}
	select {
	case b, ok := <-c.blocks:
		if !ok {
			fail(fmt.Errorf("tmux -C ended at %s", command))
		}
		return b
	case <-time.After(10 * time.Second):
		fail(fmt.Errorf("tmux -C: no answer to %s within 10s", command))
	}
	return nil
}

func (c *tmuxControl) close() {
	c.stdin.Close()
	c.cmd.Wait()
}
