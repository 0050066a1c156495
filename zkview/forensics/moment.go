package forensics

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Moment is a point in a data directory's history, as a user names it: a
// zxid (0x1f, or a decimal number), or a time.
type Moment struct {
	// Zxid, when not zero, is the moment right after that transaction.
	Zxid int64
	// Time, when Zxid is zero, is the moment after the last transaction
	// at or before it.
	Time time.Time
}

// IsZero reports whether no moment was given.
func (m Moment) IsZero() bool { return m.Zxid == 0 && m.Time.IsZero() }

func (m Moment) String() string {
	switch {
	case m.Zxid != 0:
		return fmt.Sprintf("zxid 0x%x", m.Zxid)
	case !m.Time.IsZero():
		return m.Time.Format(time.RFC3339Nano)
	}
	return "the end of the logs"
}

// timeLayouts are the times ParseMoment reads; those without a zone are
// in loc.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02",
}

// clockLayouts are times of day, on the day of the data (see
// ParseMoment's base).
var clockLayouts = []string{"15:04:05.999999999", "15:04"}

// ParseMoment reads a moment: "0x1f" or "31" (a zxid), an RFC 3339 time,
// "2006-01-02 15:04:05[.000]" or "2006-01-02" in loc, or a time of day
// "15:04[:05[.000]]" on base's day in loc (base: the day of the logs, so
// that "02:47" means 02:47 on the night in question).
func ParseMoment(s string, loc *time.Location, base time.Time) (Moment, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Moment{}, nil
	}
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		z, err := strconv.ParseUint(h, 16, 63)
		if err != nil {
			return Moment{}, fmt.Errorf("%q: not a zxid", s)
		}
		return Moment{Zxid: int64(z)}, nil
	}
	if z, err := strconv.ParseInt(s, 10, 64); err == nil && z > 0 {
		return Moment{Zxid: z}, nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return Moment{Time: t}, nil
		}
	}
	for _, layout := range clockLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			if base.IsZero() {
				return Moment{}, fmt.Errorf("%q: a time of day, but the logs have no day to put it on", s)
			}
			b := base.In(loc)
			return Moment{Time: time.Date(b.Year(), b.Month(), b.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)}, nil
		}
	}
	return Moment{}, fmt.Errorf("%q: not a zxid (0x1f) or a time (2006-01-02T15:04:05Z, \"2006-01-02 15:04:05\", 15:04:05)", s)
}

// after reports whether a transaction (zxid, time in ms) comes after m.
func (m Moment) after(zxid, timeMs int64) bool {
	if m.Zxid != 0 {
		return zxid > m.Zxid
	}
	return timeMs > m.Time.UnixMilli()
}
