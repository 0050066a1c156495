package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Defaults of the demo.
const (
	DefaultContenders = 12
	DefaultHold       = 20 * time.Millisecond
	DefaultPoll       = 100 * time.Millisecond // a typical Redis lock client's retry delay
	// Base is the directory the demo works under.
	Base = "/zkx-demo"
)

// LaneDir is where a ZooKeeper lane's contenders lock.
func LaneDir(base string, k Kind) string { return base + "/lanes/" + string(k) }

// RedisKeyFor is the Redis lane's key for a demo under base: "zkx-demo:lock".
func RedisKeyFor(base string) string {
	return strings.ReplaceAll(strings.TrimPrefix(base, "/"), "/", ":") + ":lock"
}

// LaneConfigFor is lane k's configuration for a demo under base, from the
// settings shared by every lane.
func LaneConfigFor(k Kind, base string, shared LaneConfig) LaneConfig {
	c := shared
	if k == Redis {
		c.Key = RedisKeyFor(base)
	} else {
		c.Dir = LaneDir(base, k)
	}
	return c
}

// HeadlessOptions configure RunHeadless.
type HeadlessOptions struct {
	Lanes      []Kind // default: every lane
	Base       string // the demo's directory, and the Redis key's prefix (default Base)
	Contenders int
	Duration   time.Duration // measured time per lane
	// Lane holds the settings shared by the lanes: servers, the Redis
	// address, hold, poll, lease, session timeout, crashes and stalls.
	Lane     LaneConfig
	Progress io.Writer // one line per lane as it starts; nil for none

	// serverCPU (sweeps) reads the CPU time lane k's server has used so
	// far, or -1; cpu is what it used in the last measured window.
	serverCPU func(k Kind) time.Duration
	cpu       time.Duration
}

// LaneResult is one lane's measured figures, as `zkx demo --headless -o json`
// prints them.
type LaneResult struct {
	Lane                  string  `json:"lane"`
	Contenders            int     `json:"contenders"`
	AcquisitionsPerSecond float64 `json:"acquisitions_per_second"`
	Counters
}

// Result is every lane's figures.
type Result struct {
	Lanes []LaneResult `json:"lanes"`
}

// RunHeadless runs the lanes one after another on the same servers,
// each with its contenders all in line before the measured window opens,
// and returns what was measured.
func RunHeadless(ctx context.Context, o HeadlessOptions) (Result, error) {
	if o.Contenders < 1 {
		return Result{}, errNoContenders
	}
	if o.Base == "" {
		o.Base = Base
	}
	if len(o.Lanes) == 0 {
		o.Lanes = Kinds
	}
	var res Result
	for _, k := range o.Lanes {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: %d contenders for %v…\n", k, o.Contenders, o.Duration)
		}
		r, err := runLane(ctx, &o, k)
		if err != nil {
			return res, fmt.Errorf("%s lane: %w", k, err)
		}
		res.Lanes = append(res.Lanes, r)
	}
	return res, nil
}

func runLane(ctx context.Context, o *HeadlessOptions, k Kind) (LaneResult, error) {
	lane := NewLane(k, LaneConfigFor(k, o.Base, o.Lane))
	defer lane.Stop()
	if err := lane.Start(o.Contenders); err != nil {
		return LaneResult{}, err
	}
	if err := waitAllInLine(ctx, lane); err != nil {
		return LaneResult{}, err
	}
	lane.Reset()
	var cpuBefore time.Duration
	if o.serverCPU != nil {
		cpuBefore = o.serverCPU(k)
	}
	window := time.NewTimer(o.Duration)
	defer window.Stop()
	select {
	case <-window.C:
	case <-ctx.Done():
		return LaneResult{}, ctx.Err()
	}
	c := lane.counters()
	if o.serverCPU != nil {
		o.cpu = -1
		if after := o.serverCPU(k); cpuBefore >= 0 && after >= 0 {
			o.cpu = after - cpuBefore
		}
	}
	return LaneResult{
		Lane: string(k), Contenders: o.Contenders,
		AcquisitionsPerSecond: float64(c.Acquisitions) / o.Duration.Seconds(),
		Counters:              c,
	}, nil
}

// waitAllInLine waits until every contender has taken part once (holding,
// waiting or polling), so the measured window sees a full lane.
func waitAllInLine(ctx context.Context, l *Lane) error {
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ready := true
		for _, c := range l.Snapshot().Contenders {
			if c.State == Starting && c.Acquisitions == 0 {
				ready = false
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("contenders did not all get in line within 30s")
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
