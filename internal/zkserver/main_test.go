package zkserver_test

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }
