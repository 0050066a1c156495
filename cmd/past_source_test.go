package cmd

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/pmfixture"
	"github.com/zkx-dev/zkx/internal/testkit/zktest"
	"github.com/zkx-dev/zkx/zkview"
	"github.com/zkx-dev/zkx/zkview/transfer"
)

// diffLines are the differences zkx diff printed, without colour, sorted.
func diffLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" {
			lines = append(lines, strings.Fields(l)[0]+" "+strings.Fields(l)[1])
		}
	}
	sort.Strings(lines)
	return lines
}

// TestPastAsSource puts an application's configuration back as it was in
// the past: exported from the fixtures' past (every node and ACL, the
// ephemeral marked), mirrored into a live server, changed there by hand as
// zkCli.sh changed it in the scenario, compared with the past, refused
// under --readonly, mirrored back — the plan naming the ephemeral nodes
// left alone — and compared again: the same data, ACLs and children.
func TestPastAsSource(t *testing.T) {
	t.Parallel()
	good := pmFacts(t)
	past := pmFixtures + "@" + good + ":" + zktest.PostmortemApp
	auth := "digest:ops:" + zktest.PostmortemOpsPassword
	out, errs, err := run(t, "export", past)
	if err != nil {
		t.Fatalf("export %s: %v: %s", past, err, errs)
	}
	var header transfer.Header
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[0]), &header); err != nil || header.Root != zktest.PostmortemApp || !strings.Contains(header.Server, "the past of") {
		t.Fatalf("header %q: %+v %v", lines[0], header, err)
	}
	records := map[string]*transfer.Record{}
	for _, l := range lines[1:] {
		var r transfer.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		records[strings.TrimPrefix(r.Path, zktest.PostmortemApp)] = &r
	}
	for _, p := range []string{"", "/config", "/flags", "/flags/a", "/flags/b", "/instance", "/secret"} {
		if records[p] == nil {
			t.Fatalf("the past's %s has no %s: %v", zktest.PostmortemApp, p, lines)
		}
	}
	if len(records) != 7 || string(records["/config"].Data) != "v1" || !records["/instance"].Ephemeral() ||
		records["/secret"].MaskedACL() || records["/secret"].ACL[0].Scheme != "digest" || records["/flags"].ACL[0].Perms != "cdrwa" {
		t.Fatalf("the past's /pm/app: %+v", records)
	}

	zktest.Each(t, func(t *testing.T, connect string) {
		dst := zktest.Path(t) + "/app"
		c := zktest.Conn(t, connect)
		if err := c.AddAuth("digest", []byte("ops:"+zktest.PostmortemOpsPassword)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(filepath.Dir(dst), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		live := []string{"--server", connect, "--auth", auth}
		if _, errs, err := run(t, append(live, "mirror", past, dst, "--yes")...); err != nil {
			t.Fatalf("mirror into an empty %s: %v: %s", dst, err, errs)
		}
		// The incident, as zkCli.sh made it in the scenario; and a live
		// session's ephemeral node.
		if _, err := c.Set(dst+"/config", []byte("v2"), -1); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(dst+"/flags/a", -1); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetACL(dst+"/flags", zk.WorldACL(zk.PermRead|zk.PermAdmin), -1); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(dst+"/junk", []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(dst+"/live", []byte("mine"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}

		out, errs, err := run(t, append(live, "diff", past, dst)...)
		want := "+ /junk|+ /live|- /flags/a|- /instance|~ /config|~ /flags"
		if got := strings.Join(diffLines(out), "|"); exitCode(err) != diffDifferent || got != want {
			t.Errorf("diff before: %v\n%s\ngot  %s\nwant %s\n%s", err, out, got, want, errs)
		}

		if _, _, err := run(t, append(live, "--readonly", "mirror", past, dst, "--yes")...); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("mirror under --readonly: %v", err)
		}
		if _, _, err := run(t, append(live, "mirror", dst, past, "--yes")...); err == nil || !strings.Contains(err.Error(), "the past is read-only") {
			t.Errorf("mirror into the past: %v", err)
		}

		out, errs, err = run(t, append(live, "mirror", past, dst, "--dry-run", "-o", "json")...)
		if err != nil {
			t.Fatalf("mirror --dry-run: %v: %s", err, errs)
		}
		var rep mirrorJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var plan []string
		for _, op := range rep.Plan {
			s := op.Op + " " + strings.TrimPrefix(op.Path, dst)
			if op.Op == "skip" && !strings.Contains(op.Reason, "ephemeral") {
				t.Errorf("%s without saying why: %q", s, op.Reason)
			}
			plan = append(plan, s)
		}
		sort.Strings(plan)
		wantPlan := "create /flags/a|delete /junk|set /config|setacl /flags|skip /instance|skip /live"
		if got := strings.Join(plan, "|"); got != wantPlan || rep.Created != 1 || rep.Deleted != 1 || rep.Updated != 1 || rep.ACLs != 1 || rep.Ephemeral != 2 {
			t.Errorf("the plan:\n got %s\nwant %s\n%+v", got, wantPlan, rep.MirrorReport)
		}
		if data, _, err := c.Get(dst + "/config"); err != nil || string(data) != "v2" {
			t.Fatalf("the dry run wrote: %q %v", data, err)
		}

		if out, errs, err := run(t, append(live, "mirror", past, dst, "--yes")...); err != nil {
			t.Fatalf("mirror: %v\n%s%s", err, out, errs)
		}
		out, errs, err = run(t, append(live, "diff", past, dst)...)
		if got := strings.Join(diffLines(out), "|"); exitCode(err) != diffDifferent || got != "+ /live|- /instance" {
			t.Errorf("diff after: only the ephemeral nodes should differ: %v\n%s%s", err, out, errs)
		}
		if out, errs, err := run(t, append(live, "diff", past, dst, "--ignore", "instance", "--ignore", "live")...); err != nil {
			t.Errorf("diff after, the ephemeral nodes left out: %v\n%s%s", err, out, errs)
		}
		for path, want := range map[string]string{"/flags": "world:anyone:cdrwa", "/secret": "digest:ops:"} {
			acl, _, err := c.GetACL(dst + path)
			if err != nil || len(acl) != 1 || !strings.HasPrefix(acl[0].Scheme+":"+acl[0].ID+":"+zkview.PermString(acl[0].Perms), want) {
				t.Errorf("%s: ACL %+v %v, want %s", path, acl, err, want)
			}
		}
	})
}

func pmFacts(t *testing.T) string { return pmfixture.Fact(t, pmFixtures, "app_good_zxid") }

// TestPastSideErrors: a moment that is none, a data directory with no
// such node.
func TestPastSideErrors(t *testing.T) {
	t.Parallel()
	if _, _, err := run(t, "export", pmFixtures+"@yesterday:/pm"); err == nil || !strings.Contains(err.Error(), "yesterday") {
		t.Errorf("a bad moment: %v", err)
	}
	_, errs, err := run(t, "diff", pmFixtures+"@0x3:/pm/nothing", pmFixtures+"@0x4:/pm")
	if !errors.Is(err, exitStatus(diffTrouble)) || !strings.Contains(errs, "/pm/nothing does not exist") {
		t.Errorf("a node the past lacks: %v %s", err, errs)
	}
}
