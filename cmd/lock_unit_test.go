package cmd

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/recipes"
)

// TestLockOptions: PATH under the chroot, the command after --, the lock
// node's data only when --data is given (even empty).
func TestLockOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{server: "zk1:2181,zk2:2181/app"}
	build := func(run runFunc[*lockOptions]) *cobra.Command { return newLockCommand(g, run) }
	opts := parsed(t, build, "--format", "kazoo", "--timeout", "30s", "/locks/job", "--", "./job.sh", "-v")
	run := opts.run
	if run.Dir != "/app/locks/job" || run.DisplayDir != "/locks/job" || run.Format != recipes.Kazoo || run.Timeout != 30*time.Second ||
		len(run.Servers) != 2 || len(run.Command) != 2 || run.Command[1] != "-v" || run.Data != nil {
		t.Errorf("lock --format kazoo --timeout 30s /locks/job -- ./job.sh -v: %+v", run)
	}
	if opts := parsed(t, build, "--data", "", "/l", "--", "true"); opts.run.Data == nil || len(opts.run.Data) != 0 {
		t.Errorf("lock --data '': data %v, want empty and set", opts.run.Data)
	}

	lock := func() *cobra.Command { return newLockCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{lock, []string{"/l"}, "want PATH -- CMD [ARGS...]"},
		{lock, []string{"/l", "x", "--", "true"}, "want PATH -- CMD [ARGS...]"},
		{lock, []string{"--format", "etcd", "/l", "--", "true"}, `unknown format "etcd" (want curator or kazoo)`},
		{lock, []string{"l", "--", "true"}, "is relative"},
		{func() *cobra.Command { return newLockCommand(&globalOptions{server: "zk1:99999"}, stopBeforeRun) }, []string{"/l", "--", "true"}, "--server: "},
		{func() *cobra.Command { return newLockCommand(&globalOptions{readonly: true}, stopBeforeRun) }, []string{"/l", "--", "true"}, "--readonly: zkx lock would create a lock node"},
	})
}

// TestSetACLAndEditOptions: setacl's ACL is parsed before the dial; both
// are refused with --readonly.
func TestSetACLAndEditOptions(t *testing.T) {
	t.Parallel()
	g := &globalOptions{}
	acl := parsed(t, func(run runFunc[*setACLOptions]) *cobra.Command { return newSetACLCommand(g, run) }, "/app", "world:anyone:r,ip:10.0.0.0/8:cdrwa", "--version", "3")
	if acl.path != "/app" || len(acl.acl) != 2 || acl.acl[1].Scheme != "ip" || acl.version != 3 || acl.force || acl.timeout != 30*time.Second {
		t.Errorf("setacl /app world:anyone:r,ip:10.0.0.0/8:cdrwa --version 3: %+v", acl)
	}
	edit := parsed(t, func(run runFunc[*editOptions]) *cobra.Command { return newEditCommand(g, run) }, "--timeout", "5s", "/app/config")
	if edit.path != "/app/config" || edit.timeout != 5*time.Second {
		t.Errorf("edit --timeout 5s /app/config: %+v", edit)
	}
	readonly := &globalOptions{readonly: true}
	setacl := func() *cobra.Command { return newSetACLCommand(g, stopBeforeRun) }
	checkRefusals(t, []refusal{
		{setacl, []string{"/app", "world:anyone:q"}, `ACL entry "world:anyone:q": permission "q": want letters of cdrwa`},
		{setacl, []string{"/app", "digest:alice:password:cdrwa"}, "a password in its place would lock everyone out"},
		{setacl, []string{"app", "world:anyone:r"}, "is relative"},
		{setacl, []string{"/app"}, "accepts 2 arg(s), received 1"},
		{func() *cobra.Command { return newSetACLCommand(readonly, stopBeforeRun) }, []string{"/app", "world:anyone:r"}, "--readonly: zkx setacl writes"},
		{func() *cobra.Command { return newEditCommand(readonly, stopBeforeRun) }, []string{"/app"}, "--readonly: zkx edit writes"},
		{func() *cobra.Command { return newEditCommand(g, stopBeforeRun) }, []string{"/a/"}, "ends with /"},
	})
}
