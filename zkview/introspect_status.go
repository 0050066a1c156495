package zkview

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ServerStatus asks one member for srvr only (mntr when srvr is refused):
// the cheap question a header asks after connecting or reconnecting,
// where Introspect would ask every word of every member.
func ServerStatus(ctx context.Context, addr string, timeout time.Duration) (ServerStats, error) {
	if timeout <= 0 {
		timeout = DefaultIntrospectTimeout
	}
	text, err := askFourLetter(ctx, addr, "srvr", timeout)
	if err == nil {
		st, err := parseSrvr(text)
		if err != nil {
			return ServerStats{}, fmt.Errorf("srvr on %s: %w", addr, err)
		}
		return st, nil
	}
	if !errors.Is(err, errWordRefused) {
		return ServerStats{}, fmt.Errorf("srvr on %s: %w", addr, err)
	}
	text, err = askFourLetter(ctx, addr, "mntr", timeout)
	if err != nil {
		return ServerStats{}, fmt.Errorf("srvr and mntr on %s: %w", addr, err)
	}
	mon, err := parseMntr(text)
	if err != nil {
		return ServerStats{}, fmt.Errorf("mntr on %s: %w", addr, err)
	}
	return statsFromMonitor(mon), nil
}
