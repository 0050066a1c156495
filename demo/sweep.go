package demo

import (
	"context"
	"fmt"
	"io"
	"time"
)

// SweepOptions configure Sweep.
type SweepOptions struct {
	Lanes    []Kind
	Counts   []int // contender counts, in the order run
	Base     string
	Duration time.Duration // measured time per lane and count
	Lane     LaneConfig
	// Limit is the most contenders the ZooKeeper server takes from us (its
	// maxClientCnxns, less what the demo keeps free); 0 for none. Counts
	// above it are not run, and LimitReason says why.
	Limit       int
	LimitReason string
	// ServerCPU reads the CPU time lane k's server has used so far, or -1
	// where it cannot be read (nil: never).
	ServerCPU func(k Kind) time.Duration
	Progress  io.Writer
}

// SweepPoint is one lane at one contender count.
type SweepPoint struct {
	Lane                        string  `json:"lane"`
	Contenders                  int     `json:"contenders"`
	AcquisitionsPerSecond       float64 `json:"acquisitions_per_second"`
	NotificationsPerAcquisition float64 `json:"notifications_per_acquisition"`
	ReadsPerAcquisition         float64 `json:"reads_per_acquisition"`
	CreatesPerAcquisition       float64 `json:"creates_per_acquisition"`
	HandoffP99Ms                float64 `json:"handoff_p99_ms"`
	// ServerCPUMs is the CPU the server spent in the measured window;
	// absent where it cannot be read.
	ServerCPUMs *float64 `json:"server_cpu_ms,omitempty"`
	Violations  uint64   `json:"violations"`
}

// SweepResult is every point, and why the sweep stopped early, if it did.
type SweepResult struct {
	Points  []SweepPoint `json:"points"`
	Stopped string       `json:"stopped,omitempty"`
}

// Sweep runs every lane at every contender count, each in fresh sessions,
// and returns how each lane scales.
func Sweep(ctx context.Context, o SweepOptions) (SweepResult, error) {
	if len(o.Lanes) == 0 {
		o.Lanes = Kinds
	}
	if o.Base == "" {
		o.Base = Base
	}
	var res SweepResult
	for _, n := range o.Counts {
		if n < 1 {
			return res, errNoContenders
		}
		if o.Limit > 0 && n > o.Limit && ZooKeeperLanes(o.Lanes) > 0 {
			res.Stopped = fmt.Sprintf("stopped before %d contenders: %s", n, o.LimitReason)
			if o.Progress != nil {
				fmt.Fprintln(o.Progress, res.Stopped)
			}
			break
		}
		for _, k := range o.Lanes {
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "%s: %d contenders for %v…\n", k, n, o.Duration)
			}
			h := HeadlessOptions{Base: o.Base, Contenders: n, Duration: o.Duration, Lane: o.Lane, serverCPU: o.ServerCPU}
			r, err := runLane(ctx, &h, k)
			if err != nil {
				return res, fmt.Errorf("%s lane, %d contenders: %w", k, n, err)
			}
			p := SweepPoint{
				Lane: string(k), Contenders: n, AcquisitionsPerSecond: r.AcquisitionsPerSecond,
				NotificationsPerAcquisition: r.NotificationsPerRelease, ReadsPerAcquisition: r.ReadsPerAcquisition,
				CreatesPerAcquisition: r.CreatesPerAcquisition, HandoffP99Ms: r.HandoffP99Ms, Violations: r.Violations,
			}
			if o.ServerCPU != nil && h.cpu >= 0 {
				v := ms(h.cpu)
				p.ServerCPUMs = &v
			}
			res.Points = append(res.Points, p)
		}
	}
	return res, nil
}
