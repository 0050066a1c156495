package cmd

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
	"github.com/zkx-dev/zkx/cmd/config"
	"github.com/zkx-dev/zkx/zkview/recognize"
)

// TestRecipeOptions: the recipe commands' flags and PATH, the defaults,
// and --held-too-long taken from the context only when not given.
func TestRecipeOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	locks := func(run runFunc[*recipeOptions]) *cobra.Command { return newLocksCommand(g, run) }
	opts := parsed(t, locks)
	if opts.path != "/" || opts.kind != kindLocks || opts.heldTooLong != 10*time.Minute || opts.read.format != cliout.Table ||
		opts.connections != 4 || !opts.batch || opts.walk || opts.check || len(opts.maxima) != 0 {
		t.Errorf("locks: %+v", opts)
	}
	opts = parsed(t, locks, "-l", "--check", "--walk", "--connections", "2", "--max", "3", "--held-too-long", "1m", "-o", "json", "/app/sem")
	if opts.path != "/app/sem" || !opts.long || !opts.check || !opts.walk || opts.connections != 2 || opts.heldTooLong != time.Minute ||
		opts.read.format != cliout.JSON || opts.maxima["/app/sem"] != (recognize.SemaphoreMax{Count: 3}) {
		t.Errorf("locks -l --check --walk --connections 2 --max 3 --held-too-long 1m -o json /app/sem: %+v", opts)
	}

	fromContext := &globalOptions{context: &config.Context{HeldTooLong: config.Duration(5 * time.Minute)}}
	inContext := func(run runFunc[*recipeOptions]) *cobra.Command { return newLocksCommand(fromContext, run) }
	if opts := parsed(t, inContext); opts.heldTooLong != 5*time.Minute {
		t.Errorf("locks in a context with held-too-long 5m: %v", opts.heldTooLong)
	}
	if opts := parsed(t, inContext, "--held-too-long", "2m"); opts.heldTooLong != 2*time.Minute {
		t.Errorf("locks --held-too-long 2m in a context with 5m: %v, want the flag", opts.heldTooLong)
	}

	queues := parsed(t, func(run runFunc[*recipeOptions]) *cobra.Command { return newQueuesCommand(g, run) }, "--older", "15m", "/jobs")
	if queues.kind != kindQueues || queues.older != 15*time.Minute || queues.path != "/jobs" {
		t.Errorf("queues --older 15m /jobs: %+v", queues)
	}
	all := parsed(t, func(run runFunc[*recipeOptions]) *cobra.Command { return newRecipesCommand(g, run) }, "--class", "lease,counter", "--settle", "5m")
	if all.kind != kindRecipes || len(all.classes) != 2 || all.classes[1] != recognize.ClassCounter || all.settle != 5*time.Minute || all.older != 10*time.Minute {
		t.Errorf("recipes --class lease,counter --settle 5m: %+v", all)
	}
	systems := parsed(t, func(run runFunc[*recipeOptions]) *cobra.Command { return newSystemsCommand(g, run) }, "/kafka")
	if systems.kind != kindSystems || systems.path != "/kafka" || systems.heldTooLong != 10*time.Minute {
		t.Errorf("systems /kafka: %+v", systems)
	}
}

// TestRecipeRefusals: what the recipe commands refuse before they dial.
func TestRecipeRefusals(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	locks := func() *cobra.Command { return newLocksCommand(g, stopBeforeRun) }
	queues := func() *cobra.Command { return newQueuesCommand(g, stopBeforeRun) }
	elections := func() *cobra.Command { return newElectionsCommand(g, stopBeforeRun) }
	recipes := func() *cobra.Command { return newRecipesCommand(g, stopBeforeRun) }
	systems := func() *cobra.Command { return newSystemsCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{queues, []string{"relative"}, "is relative"},
		{elections, []string{"-o", "yaml"}, `-o "yaml": want table or json`},
		{locks, []string{"--held-too-long", "0s"}, "--held-too-long must be positive"},
		{locks, []string{"/a", "/b"}, "accepts at most 1 arg(s)"},
		{queues, []string{"--connections", "0"}, "--connections must be at least 1"},
		{locks, []string{"--timeout", "0s"}, "--timeout must be positive"},
		{locks, []string{"--max", "2"}, "name the semaphore"},
		{recipes, []string{"--max-from", "/a=b"}, "--max-from /a=b"},
		{queues, []string{"--older", "-1m"}, "--older and --settle must be positive"},
		{recipes, []string{"--settle", "-1m"}, "--older and --settle must be positive"},
		{recipes, []string{"--class", "mutexes"}, "--class mutexes: not a class; one of lock, election, queue"},
		{systems, []string{"/kafka/"}, "ends with /"},
	})
}
