package cmd

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/demo"
)

// TestDemoOptions: the lanes and -o are read before anything starts;
// what the view cannot take, the failure scenarios cannot use, or
// --readonly forbids is refused then.
func TestDemoOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	build := func(run runFunc[*demoOptions]) *cobra.Command { return newDemoCommand(g, run) }
	view := parsed(t, build)
	if view.headless || view.serverGiven || len(view.headlessGiven) != 0 || len(view.kinds) != 4 || view.heldTooLong != demoHeldTooLong {
		t.Errorf("demo: %+v", view)
	}
	headless := parsed(t, build, "--headless", "--lanes", "chain,herd", "--duration", "2s", "-o", "json", "--crash-every", "10")
	if !headless.headless || len(headless.kinds) != 2 || headless.kinds[1] != demo.Herd || headless.format != cliout.JSON ||
		headless.duration != 2*time.Second || len(headless.headlessGiven) != 2 {
		t.Errorf("demo --headless --lanes chain,herd --duration 2s -o json: %+v", headless)
	}
	if lane := laneSettings(headless, []string{"zk1:2181"}); lane.CrashEvery != 10 || lane.Servers[0] != "zk1:2181" || lane.SessionTimeout != demo.DefaultSessionTimeout {
		t.Errorf("the lanes' settings: %+v", lane)
	}

	demoCmd := func() *cobra.Command { return newDemoCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{demoCmd, []string{"--headless", "--contenders", "0"}, "--contenders must be from 1 to 1000"},
		{demoCmd, []string{"--headless", "-o", "yaml"}, `-o "yaml": want table or json`},
		{demoCmd, []string{"--headless", "--lanes", "chain,bogus"}, "--lanes: "},
		{demoCmd, []string{"--duration", "5s"}, "--duration is for --headless; the demo view runs until you quit"},
		{demoCmd, []string{"-o", "json"}, "--output is for --headless"},
		{demoCmd, []string{"--contenders", "101"}, "--contenders: the demo view takes at most 100 per lane"},
		{demoCmd, []string{"--held-too-long", "0s"}, "--held-too-long must be positive"},
		{demoCmd, []string{"--headless", "--stall-every", "3"}, "--stall-every needs --stall D"},
		{demoCmd, []string{"--sweep", "10,50"}, "--sweep runs with --headless"},
		{demoCmd, []string{"--headless", "--sweep", "10", "--chart", "sweep.png"}, "only .svg charts are drawn"},
		{demoCmd, []string{"--headless", "extra"}, `unknown command "extra" for "demo"`},
		{func() *cobra.Command { return newDemoCommand(&globalOptions{readonly: true}, stopBeforeRun) }, []string{"--headless"}, "--readonly: the demo creates lock nodes"},
	})
}
