package forensics

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestMain runs the package's tests through zktest.Main: several at once,
// the shared real server stopped when they end, and the Curator peers'
// classes taken from zktest's compile cache.
func TestMain(m *testing.M) { zktest.Main(m) }
