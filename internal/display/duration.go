package display

import (
	"fmt"
	"time"
)

// Duration writes how long something has lasted in at most six cells:
// 42s, 4m05s, 37m, 5h07m, 3d04h, 140d. Negative durations (a clock behind
// the server's) show as 0s.
func Duration(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < 10*time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	case d < 100*24*time.Hour:
		return fmt.Sprintf("%dd%02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// DurationStep is when Duration(d) next changes: a view showing live
// durations needs a frame no sooner.
func DurationStep(d time.Duration) time.Duration {
	d = max(d, 0)
	unit := time.Second
	switch {
	case d < 10*time.Minute:
	case d < 24*time.Hour:
		unit = time.Minute
	default:
		unit = time.Hour
	}
	return unit - d%unit
}
