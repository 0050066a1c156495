package zkserver_test

import (
	"testing"

	"github.com/zkx-dev/zkx/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }
