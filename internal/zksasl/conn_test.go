package zksasl

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/jute"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/internal/zkdial"
	"github.com/zkx-dev/zkx/internal/zkserver"
	"github.com/zkx-dev/zkx/internal/zkwire"
)

// dialWire opens a raw session (zkwire, as batched reads do) whose
// connection cfg authenticates.
func dialWire(t *testing.T, addr string, cfg *Config) (*zkwire.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := zkdial.Options{Wrap: cfg.Wrap()}
	return zkwire.Dial(ctx, addr, zkwire.Options{Dial: func(ctx context.Context, _, addr string) (net.Conn, error) {
		return o.Dial(ctx, addr, 5*time.Second)
	}})
}

// TestExchangeOverRawSessions: the wrapper works under zkwire's raw
// sessions too; a refusal is a FatalError naming the member and user,
// and a server without SASL is named as such.
func TestExchangeOverRawSessions(t *testing.T) {
	t.Parallel()
	srv := zktest.EmbeddedServer(t, zkserver.Config{SASLUsers: map[string]string{"bob": "pw"}, SASLRequired: true})
	c, err := dialWire(t, srv.ConnectString(), &Config{Mechanism: DigestMD5, User: "bob", Password: "pw"})
	if err != nil {
		t.Fatalf("bob: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stat jute.Stat
	if err := c.Call(ctx, jute.OpExists, &jute.PathWatchRequest{Path: "/"}, &stat); err != nil {
		t.Errorf("a request after authenticating (SASL required): %v", err)
	}
	c.Close()

	_, err = dialWire(t, srv.ConnectString(), &Config{Mechanism: DigestMD5, User: "bob", Password: "wrong"})
	var fatal *zkdial.FatalError
	var refused *RefusedError
	if !errors.As(err, &fatal) || !errors.As(err, &refused) || !strings.Contains(err.Error(), "as bob: wrong credentials or mechanism") || strings.Contains(err.Error(), "wrong\"") {
		t.Errorf("a wrong password: %v", err)
	}

	plain := zktest.EmbeddedServer(t, zkserver.Config{})
	_, err = dialWire(t, plain.ConnectString(), &Config{Mechanism: DigestMD5, User: "bob", Password: "pw"})
	if !errors.As(err, &fatal) || !strings.Contains(err.Error(), "sent no challenge") {
		t.Errorf("a server without SASL: %v", err)
	}
}
