package demo

import (
	"strings"
	"testing"
)

func TestCapacityFit(t *testing.T) {
	t.Parallel()
	one := Capacity{PerMember: 60, Members: 1, Total: 60}
	cases := []struct {
		name             string
		capacity         Capacity
		seeded, wanted   int
		want, wantMax    int
		wantErrSubstring string
	}{
		{"no limit", Capacity{}, 19, 40, 40, 0, ""},
		{"fits", one, 19, 12, 12, 12, ""},
		{"too many", one, 19, 30, 12, 12, ""},
		{"no room", Capacity{PerMember: 20, Members: 1, Total: 20}, 19, 12, 0, 0, "too few for the demo's seeded state"},
	}
	for _, c := range cases {
		got, limit, err := c.capacity.Fit(c.seeded, c.wanted, 3)
		if c.wantErrSubstring != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSubstring) || !strings.Contains(err.Error(), "maxClientCnxns") {
				t.Errorf("%s: error %v, want one saying %q and naming maxClientCnxns", c.name, err, c.wantErrSubstring)
			}
			continue
		}
		if err != nil || got != c.want || limit.Max != c.wantMax {
			t.Errorf("%s: Fit = %d, cap %d, %v; want %d, cap %d", c.name, got, limit.Max, err, c.want, c.wantMax)
		}
		if limit.Max > 0 && !strings.Contains(limit.Reason, "maxClientCnxns") {
			t.Errorf("%s: the cap's reason %q does not name maxClientCnxns", c.name, limit.Reason)
		}
	}
}
