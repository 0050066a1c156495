package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/tui/theme"
	"github.com/zkx-dev/zkx/zkview"
)

// TestDemoFramesOnlyOnTop: the demo page keeps frames coming while it is
// on top, and once Esc has taken the user back to the tree page no frame is
// scheduled any more, so the explorer idles.
func TestDemoFramesOnlyOnTop(t *testing.T) {
	t.Parallel()
	connect := zktest.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := zkview.Dial(ctx, connect)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	// A lane that was never started: no contenders, no I/O.
	lane := demo.NewLane(demo.Chain, demo.LaneConfig{Servers: []string{connect}, Dir: "/zkx-demo/lanes/chain", Hold: demo.DefaultHold})
	plain := theme.Plain()
	a := newApp(Config{Client: client, Connect: connect, Demo: []*demo.Lane{lane}, Styles: &plain,
		Now: func() time.Time { return demoNow }})
	defer a.Close()

	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if _, ok := a.top().(*demoPage); !ok || !a.frameQueued {
		t.Fatalf("the demo page is on top (%T) and must have a frame queued (%v)", a.top(), a.frameQueued)
	}
	a.Update(frameMsg(demoNow))
	if !a.frameQueued {
		t.Fatal("after a frame the demo page must ask for the next one")
	}
	a.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if _, ok := a.top().(*demoPage); ok {
		t.Fatal("esc did not leave the demo page")
	}
	a.Update(frameMsg(demoNow)) // the frame that was already on its way
	if a.frameQueued {
		t.Fatal("the tree page is on top, yet a frame was scheduled")
	}
}
