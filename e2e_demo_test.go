package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// acquisitionsLine reads the three lanes' acquisition totals.
var acquisitionsLine = regexp.MustCompile(`acq(?:uisitions)?\s+[0-9.…]+(?:/s)?\s+([0-9,]+)`)

// laneOf13 is a lane's title with 13 contenders.
var laneOf13 = regexp.MustCompile(`(CHAIN|HERD|SPIN|REDIS) +13\b`)

func acquisitions(screen string) []int {
	var out []int
	for _, m := range acquisitionsLine.FindAllStringSubmatch(screen, -1) {
		n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

// TestDemoEndToEnd runs the real binary's demo in tmux as a presenter
// would: the four lanes count up, ? lists the demo's keys, + adds a
// contender to each lane, q leaves the demo page and q again quits, and
// the process exits cleanly.
func TestDemoEndToEnd(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	m := newTmux(t, "demo")
	stderr, exitFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "exit")
	m.start(bin + " demo 2>" + stderr + "; echo $? >" + exitFile)

	// All four lanes on screen, counting.
	var first []int
	m.waitFor("four lanes with acquisitions", time.Minute, stderr, func(s string) bool {
		first = acquisitions(s)
		return strings.Contains(s, "CHAIN") && strings.Contains(s, "HERD") && strings.Contains(s, "SPIN") && strings.Contains(s, "REDIS") &&
			len(first) == 4 && first[0] > 0 && first[1] > 0 && first[2] > 0 && first[3] > 0
	})
	m.waitFor("acquisitions counting up in every lane", 30*time.Second, stderr, func(s string) bool {
		now := acquisitions(s)
		return len(now) == 4 && now[0] > first[0] && now[1] > first[1] && now[2] > first[2] && now[3] > first[3]
	})

	m.keys("?")
	m.waitFor("the demo's keys in the help", 10*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "more contenders") && strings.Contains(s, "crash holder") &&
			strings.Contains(s, "close holder") && strings.Contains(s, "stall next holder") && strings.Contains(s, "hold longer") &&
			strings.Contains(s, "reset counters")
	})
	m.keys("x") // any key closes the help
	m.waitFor("the help closed", 10*time.Second, stderr, func(s string) bool { return strings.Contains(s, "CHAIN") })

	m.keys("+")
	m.waitFor("13 contenders", 30*time.Second, stderr, func(s string) bool {
		return strings.Contains(s, "13 contenders per lane") && len(laneOf13.FindAllString(s, -1)) == 4
	})

	m.keys("q")
	m.waitFor("back on the tree page", 10*time.Second, stderr, func(s string) bool {
		return !strings.Contains(s, "CHAIN") && strings.Contains(s, "tree")
	})
	m.keys("q")
	if code := m.waitExit(exitFile, stderr); code != "0" {
		errs, _ := os.ReadFile(stderr)
		t.Fatalf("zkx demo exited with %s; stderr:\n%s", code, errs)
	}
}
