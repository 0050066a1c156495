package zktest

import (
	"net"
	"strconv"
	"testing"
)

// TestFreePortsBelowTheEphemeralRange: where the kernel says its
// ephemeral range, the ports handed out lie below it (no outgoing
// connection can take them meanwhile), are distinct and can be bound.
func TestFreePortsBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	low, high, ok := pickableRange()
	if !ok {
		t.Skipf("%s cannot be read here: ports come from binding port 0", ephemeralRangeFile)
	}
	ports, err := freePorts(8)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < low || p > high {
			t.Errorf("port %d outside %d-%d", p, low, high)
		}
		if seen[p] {
			t.Errorf("port %d handed out twice", p)
		}
		seen[p] = true
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d handed out but cannot be bound: %v", p, err)
			continue
		}
		ln.Close()
	}
}
