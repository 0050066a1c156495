package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/internal/display"
)

// progress shows, on a terminal's stderr, how a long read goes: nodes
// read, the rate, the node being read. Nothing is shown when stderr is not
// a terminal. Other messages for stderr go through it (it is an
// io.Writer), so that they do not land in the middle of its line.
type progress struct {
	mu    sync.Mutex
	out   io.Writer
	on    bool
	count int
	start time.Time
	last  time.Time
	shown bool
}

// progressEvery is how often the line is redrawn at most.
const progressEvery = 200 * time.Millisecond

func newProgress(w io.Writer) *progress {
	return &progress{out: w, on: isTerminal(w), start: time.Now()}
}

// isTerminal reports whether w is a terminal (through a progress line
// too, which writes to one).
func isTerminal(w io.Writer) bool {
	switch w := w.(type) {
	case *progress:
		return w.on
	case *os.File:
		return cliout.IsTerminal(w)
	}
	return false
}

// nodes is how many nodes were read so far.
func (p *progress) nodes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

// add counts one node read, at path.
func (p *progress) add(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	p.draw(path)
}

// reached sets the count of nodes done to n, the last at path, for work
// that reports its progress in steps (a transaction at a time).
func (p *progress) reached(n int, path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count = n
	p.draw(path)
}

// draw redraws the line, at most every progressEvery.
func (p *progress) draw(path string) {
	if !p.on || time.Since(p.last) < progressEvery {
		return
	}
	p.last = time.Now()
	rate := float64(p.count) / time.Since(p.start).Seconds()
	line := fmt.Sprintf("%s nodes read (%.0f/s) %s", display.Count(p.count), rate, display.Line(path))
	fmt.Fprint(p.out, "\r\x1b[K"+clipLine(line, 100))
	p.shown = true
}

// Write writes a message on its own line, clearing the progress line
// first; the next add draws it again.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	return p.out.Write(b)
}

// finish clears the line, before the results.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
		p.shown = false
	}
}

// clipLine keeps a progress line within n runes, cutting its middle.
func clipLine(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2-1]) + "…" + string(r[len(r)-n/2:])
}
