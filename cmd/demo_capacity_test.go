package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestDemoRespectsConnectionLimit: against a real ZooKeeper that accepts 30
// connections from one address, the demo reads the limit from conf, and a
// headless run that would need more refuses before opening any session.
func TestDemoRespectsConnectionLimit(t *testing.T) {
	t.Parallel()
	e := zktest.RealWith(t, zktest.RealOptions{MaxClientCnxns: 30})
	connect := e.ConnectString()
	c := demo.ServerCapacity(context.Background(), []string{connect})
	if c.Total != 30 || c.PerMember != 30 {
		t.Fatalf("ServerCapacity = %+v, want 30 connections", c)
	}
	_, _, err := run(t, "--server", connect, "demo", "--headless", "--contenders", "40", "--duration", "1s")
	if err == nil || !strings.Contains(err.Error(), "needs 44 connections") || !strings.Contains(err.Error(), "maxClientCnxns") {
		t.Fatalf("zkx demo --headless --contenders 40: error %v, want one naming the 44 connections and maxClientCnxns", err)
	}
	if c := demo.ServerCapacity(context.Background(), []string{zktest.Embedded(t)}); c.Limited() {
		t.Errorf("the embedded server has no connection limit, got %+v", c)
	}
}
