package tui

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestMain stops the shared real ZooKeeper of zktest.Each when the tests
// end.
func TestMain(m *testing.M) { zktest.Main(m) }
