package zktest

import (
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/zkserver"
)

// Test defaults for the embedded server: short ticks so that session
// expiry and timeouts happen quickly in tests.
const (
	embeddedTickTime          = 100 * time.Millisecond
	embeddedMinSessionTimeout = 200 * time.Millisecond
	embeddedMaxSessionTimeout = 60 * time.Second
)

// Embedded starts an embedded server on a free loopback port, closed at test
// cleanup, and returns its connect string.
func Embedded(t testing.TB) string {
	t.Helper()
	return EmbeddedServer(t, zkserver.Config{}).ConnectString()
}

// EmbeddedServer is Embedded with a config, returning the server for fault
// injection. Fields left zero in cfg get the test defaults: TickTime 100ms,
// MinSessionTimeout 200ms, MaxSessionTimeout 60s.
func EmbeddedServer(t testing.TB, cfg zkserver.Config) *zkserver.Server {
	t.Helper()
	if cfg.TickTime <= 0 {
		cfg.TickTime = embeddedTickTime
	}
	if cfg.MinSessionTimeout <= 0 {
		cfg.MinSessionTimeout = embeddedMinSessionTimeout
	}
	if cfg.MaxSessionTimeout <= 0 {
		cfg.MaxSessionTimeout = embeddedMaxSessionTimeout
	}
	s, err := zkserver.Start("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatalf("zktest: start embedded server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("zktest: close embedded server %s: %v", s.ConnectString(), err)
		}
	})
	return s
}
