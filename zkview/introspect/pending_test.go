package introspect

import (
	"errors"
	"testing"
	"time"
)

// TestPendingBlocksUntilSet checks that a question asked before the
// answer is in waits for it, and that only the first answer counts.
func TestPendingBlocksUntilSet(t *testing.T) {
	t.Parallel()
	p := NewPending()
	answered := make(chan string)
	go func() {
		addr, _ := p.ClientAddress(7)
		answered <- addr
	}()
	select {
	case addr := <-answered:
		t.Fatalf("answered %q before the tables were set", addr)
	default:
	}
	snap := &Snapshot{Sessions: []Session{{ID: 7, Client: "10.0.0.7:4000", Connected: true}}}
	p.Set(snap, nil)
	p.Set(nil, errors.New("a second answer is ignored"))
	select {
	case addr := <-answered:
		if addr != "10.0.0.7:4000" {
			t.Errorf("ClientAddress(7) = %q", addr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ClientAddress still blocked after Set")
	}
	if got, err := p.Wait(); got != snap || err != nil {
		t.Errorf("Wait() = %v, %v", got, err)
	}
}

// TestPendingFailed checks that a failed Ask leaves everything unknown.
func TestPendingFailed(t *testing.T) {
	t.Parallel()
	p := NewPending()
	p.Set(nil, errors.New("no member answered"))
	if _, known := p.Connected(7); known {
		t.Error("Connected known after a failed Ask")
	}
	if _, known := p.Watches(7, "/a"); known {
		t.Error("Watches known after a failed Ask")
	}
}
