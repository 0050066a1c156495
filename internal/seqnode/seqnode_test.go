package seqnode

import "testing"

func TestAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, marker string
		want         int32
		ok           bool
	}{
		{"_c_5d0f6c1e-8f4b-4a57-9d0e-1b2c3d4e5f60-lock-0000000042", "-lock-", 42, true},
		{"x-lock-0000000001-lock-0000000007", "-lock-", 7, true}, // the last marker counts
		{"lock--2147483648", "lock-", -2147483648, true},         // after the counter wrapped
		{"lock-2147483647", "lock-", 2147483647, true},
		{"lock-000000001", "lock-", 0, false},  // nine digits
		{"lock-00000000x1", "lock-", 0, false}, // not digits
		{"lock-0000-00001", "lock-", 0, false}, // a minus inside
		{"lock-9999999999", "lock-", 0, false}, // beyond int32
		{"node-0000000001", "lock-", 0, false}, // no marker
	} {
		got, ok := After(tc.name, tc.marker)
		if got != tc.want || ok != tc.ok {
			t.Errorf("After(%q, %q) = %d, %v; want %d, %v", tc.name, tc.marker, got, ok, tc.want, tc.ok)
		}
	}
}
