package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/zkx-dev/zkx/demo/redislock"
)

// SweepRun is a sweep with the servers it runs on.
type SweepRun struct {
	SweepOptions // Lane.Servers and Lane.Redis are filled in by RunSweep
	// Servers is the caller's ensemble, whose CPU cannot be read from
	// here; nil starts ServeArgv (zkx serve) as a child process and reads
	// its CPU time from /proc.
	Servers   []string
	ServeArgv []string
	// Redis is a real Redis for the redis lane (its CPU is read with INFO);
	// "" runs an embedded one.
	Redis string
}

// RunSweep starts what the sweep needs (the embedded server in its own
// process unless Servers are given, a Redis when the redis lane runs),
// fits the contender counts to the servers' connection limit, and runs
// Sweep.
func RunSweep(ctx context.Context, r SweepRun) (SweepResult, error) {
	RaiseFileLimit()
	o := r.SweepOptions
	zkCPU := func() time.Duration { return -1 }
	if len(r.Servers) > 0 {
		o.Lane.Servers = r.Servers
		if c := ServerCapacity(ctx, r.Servers); c.Limited() {
			o.Limit, o.LimitReason = c.Total-Reserve, c.String()
		}
	} else {
		p, err := StartServerProcess(ctx, r.ServeArgv)
		if err != nil {
			return SweepResult{}, err
		}
		defer p.Stop()
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "embedded ZooKeeper-compatible server (zkx serve, pid %d) on %s\n", p.Pid(), p.Addr)
		}
		o.Lane.Servers, zkCPU = []string{p.Addr}, p.CPU
	}
	redisCPU := func() time.Duration { return -1 }
	if HasRedis(o.Lanes) {
		addr, stop, err := StartRedis(ctx, r.Redis, o.Progress)
		if err != nil {
			return SweepResult{}, err
		}
		defer stop()
		o.Lane.Redis = addr
		if r.Redis != "" {
			redisCPU = func() time.Duration { return redislock.ServerCPU(ctx, addr) }
		}
	}
	o.ServerCPU = func(k Kind) time.Duration {
		if k == Redis {
			return redisCPU()
		}
		return zkCPU()
	}
	return Sweep(ctx, o)
}
