package zkdial

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestMain lets four tests run at once: these wait on fake servers'
// silences and the answer timeout, not on the cores.
func TestMain(m *testing.M) { zktest.Main(m) }
