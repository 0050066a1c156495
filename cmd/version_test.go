package cmd

import (
	"encoding/json"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

func TestResolveBuild(t *testing.T) {
	t.Parallel()
	vcs := func(rev, when string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: "false"}}
	}
	const rev = "4be5b90116587bad96f590611e6da0db34a08887"
	cases := []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  buildInfo
	}{
		{"release stamp wins over everything", "v1.2.3", "abc", "2026-01-02T03:04:05Z",
			&debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs(rev, "2020-01-01T00:00:00Z")},
			buildInfo{Version: "v1.2.3", Commit: "abc", Date: "2026-01-02T03:04:05Z"}},
		{"go install of a tag: the module version, nothing else known", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}},
			buildInfo{Version: "v0.4.0"}},
		{"go install of a commit: a pseudo-version names commit and time", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125232015-4be5b9011658"}},
			buildInfo{Version: "v0.0.0-20261125232015-4be5b9011658", Commit: "4be5b9011658", Date: "2026-11-25T23:20:15Z"}},
		{"pseudo-version after a pre-release tag", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.3.0-rc.1.0.20240102030405-0123456789ab"}},
			buildInfo{Version: "v1.3.0-rc.1.0.20240102030405-0123456789ab", Commit: "0123456789ab", Date: "2024-01-02T03:04:05Z"}},
		{"pseudo-version after a release tag", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20240102030405-0123456789ab"}},
			buildInfo{Version: "v1.2.4-0.20240102030405-0123456789ab", Commit: "0123456789ab", Date: "2024-01-02T03:04:05Z"}},
		{"go build in a checkout: the vcs settings beat the pseudo-version", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125232015-4be5b9011658+dirty"}, Settings: vcs(rev, "2026-11-25T23:20:15Z")},
			buildInfo{Version: "v0.0.0-20261125232015-4be5b9011658+dirty", Commit: rev, Date: "2026-11-25T23:20:15Z"}},
		{"go build without vcs stamping: dev", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			buildInfo{Version: "dev"}},
		{"no build information at all", "", "", "", nil, buildInfo{Version: "dev"}},
		{"a tag that only looks like a pseudo-version's prefix", "", "", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v1.0.0-beta.20240102"}},
			buildInfo{Version: "v1.0.0-beta.20240102"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := resolveBuild(c.version, c.commit, c.date, c.info); got.Version != c.want.Version || got.Commit != c.want.Commit || got.Date != c.want.Date {
				t.Errorf("resolveBuild = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestVersionJSONNamesEveryField(t *testing.T) {
	version, commit, date = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-01-02T03:04:05Z"
	t.Cleanup(func() { version, commit, date = "", "", "" })
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := mustRun(t, "version", "-o", "json")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("version -o json is not one JSON object: %v\n%s", err, out)
	}
	want := map[string]any{
		"version": "v1.2.3", "commit": "0123456789abcdef0123456789abcdef01234567", "date": "2026-01-02T03:04:05Z",
		"go_version": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH,
		"zookeeper_tested": []any{"3.8"},
	}
	if len(got) != len(want) {
		t.Errorf("fields %v, want exactly %v", keys(got), keys(want))
	}
	for k, v := range want {
		if gv, _ := json.Marshal(got[k]); string(gv) != mustJSON(t, v) {
			t.Errorf("%s = %s, want %s", k, gv, mustJSON(t, v))
		}
	}
	table := mustRun(t, "version")
	for _, line := range []string{"zkx        v1.2.3", "commit     0123456789abcdef0123456789abcdef01234567", "built      2026-01-02T03:04:05Z", "zookeeper  tested against 3.8"} {
		if !strings.Contains(table, line+"\n") {
			t.Errorf("version table lacks %q:\n%s", line, table)
		}
	}
}

// TestVersionNamesTheZooKeeperTheTestsRun keeps zkx version honest: the
// servers the tests start (the embedded one, and Debian's ZooKeeper) must be
// of a release line zkx version names.
func TestVersionNamesTheZooKeeperTheTestsRun(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		out, err := zktest.FourLetter(connect, "srvr", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`Zookeeper version: ([0-9]+\.[0-9]+)\.`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("srvr names no version:\n%s", out)
		}
		if !slices.Contains(testedZooKeeper, m[1]) {
			t.Errorf("the tests run ZooKeeper %s; zkx version says it is tested against %v", m[1], testedZooKeeper)
		}
	})
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, err := run(t, args...)
	if err != nil {
		t.Fatalf("zkx %s: %v\n%s", strings.Join(args, " "), err, errs)
	}
	return out
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
