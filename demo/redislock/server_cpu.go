package redislock

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// ServerCPU reads a real Redis's own CPU time (INFO cpu: used_cpu_user +
// used_cpu_sys); -1 when it does not say.
func ServerCPU(ctx context.Context, addr string) time.Duration {
	c := NewClient(addr, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		return -1
	}
	return infoCPU(info)
}

// infoCPU adds used_cpu_user and used_cpu_sys from INFO's text; -1 unless
// both are there.
func infoCPU(info string) time.Duration {
	var total float64
	found := 0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				total += x
				found++
			}
		}
	}
	if found != 2 {
		return -1
	}
	return time.Duration(total * float64(time.Second))
}
