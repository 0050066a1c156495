package introspect

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestMain runs the package's tests through zktest.Main: several at once
// (most wait for their own real servers to start), and the shared real
// server stopped when they end.
func TestMain(m *testing.M) { zktest.Main(m) }
