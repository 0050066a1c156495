package forensics

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestMain removes the Curator peers zktest compiled once for all the
// package's tests when they end.
func TestMain(m *testing.M) { zktest.Main(m) }
