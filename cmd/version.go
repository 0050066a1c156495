package cmd

import (
	"context"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/cmd/cliout"
)

// version, commit and date are what a release build stamped into main with
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…" (see
// .goreleaser.yaml), handed over by main; empty in other builds, which
// report what the Go toolchain recorded instead (see resolveBuild).
var version, commit, date string

// testedZooKeeper are the ZooKeeper release lines zkx's tests run against:
// CI starts Debian 12's zookeeper 3.8 through internal/testkit/zktest, and
// the embedded server follows 3.8. TestVersionNamesTheZooKeeperTheTestsRun
// fails when the servers the tests start report another line.
var testedZooKeeper = []string{"3.8"}

// SetBuildStamp hands over the commit and build date a release build
// stamped into main; the version comes with Run.
func SetBuildStamp(stampedCommit, stampedDate string) {
	commit, date = stampedCommit, stampedDate
}

// buildInfo is what zkx version prints; the JSON names are documented in
// docs/json.md (section version) and in the command's help.
type buildInfo struct {
	Version   string   `json:"version"`
	Commit    string   `json:"commit"`
	Date      string   `json:"date"`
	GoVersion string   `json:"go_version"`
	Platform  string   `json:"platform"`
	ZooKeeper []string `json:"zookeeper_tested"`
}

// currentBuild is this binary's build information.
func currentBuild() buildInfo {
	info, _ := debug.ReadBuildInfo()
	b := resolveBuild(version, commit, date, info)
	b.GoVersion = runtime.Version()
	b.Platform = runtime.GOOS + "/" + runtime.GOARCH
	b.ZooKeeper = testedZooKeeper
	return b
}

// resolveBuild picks each value from the best source there is: the release
// stamp; else the version control settings the go command records when it
// builds in a checkout (vcs.revision, vcs.time); else the main module's
// version, which `go install github.com/zkx-dev/zkx@vX` records (a
// pseudo-version carries the commit and its time too). What no source
// knows is "" ("dev" for the version).
func resolveBuild(stampVersion, stampCommit, stampDate string, info *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: stampVersion, Commit: stampCommit, Date: stampDate}
	if info == nil {
		if b.Version == "" {
			b.Version = "dev"
		}
		return b
	}
	module := info.Main.Version
	if module == "(devel)" {
		module = ""
	}
	var vcsRevision, vcsTime string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			vcsRevision = s.Value
		case "vcs.time":
			vcsTime = s.Value
		}
	}
	pseudoRev, pseudoTime := pseudoVersionParts(module)
	b.Version = firstNonEmpty(b.Version, module, "dev")
	b.Commit = firstNonEmpty(b.Commit, vcsRevision, pseudoRev)
	b.Date = firstNonEmpty(b.Date, vcsTime, pseudoTime)
	return b
}

// pseudoVersion matches the three pseudo-version forms of the Go modules
// reference ("Pseudo-versions": vX.0.0-TIME-REV, vX.Y.Z-pre.0.TIME-REV,
// vX.Y.(Z+1)-0.TIME-REV), with the +dirty or +incompatible a build may
// add; TIME is yyyymmddhhmmss in UTC, REV a 12-digit commit prefix.
var pseudoVersion = regexp.MustCompile(`^v[0-9]+\.(?:0\.0-|[0-9]+\.[0-9]+-(?:[^+]*\.)?0\.)([0-9]{14})-([0-9a-f]{12})(?:\+.*)?$`)

// pseudoVersionParts returns the commit prefix and the commit time
// (RFC 3339) a pseudo-version carries, or "" and "" for any other version.
func pseudoVersionParts(v string) (rev, when string) {
	m := pseudoVersion.FindStringSubmatch(v)
	if m == nil {
		return "", ""
	}
	t, err := time.Parse("20060102150405", m[1])
	if err != nil {
		return m[2], ""
	}
	return m[2], t.UTC().Format(time.RFC3339)
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// versionOptions are zkx version's flags.
type versionOptions struct {
	output string        // -o as given
	format cliout.Format // -o, once checked
}

func newVersionCommand(run runFunc[*versionOptions]) *cobra.Command {
	opts := &versionOptions{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print zkx's version, commit, build date and what it is tested against",
		Long: `version prints the version of this zkx, the commit it was built from, the
build date, the Go release and platform it was built with, and the ZooKeeper
release lines its tests run against.

A release build (the archives, the .deb and .rpm packages) has all three
stamped in. A build with go install github.com/zkx-dev/zkx@VERSION reports
the module version (a pseudo-version names its commit and the commit's time);
a build from a git checkout reports the commit and its time when the go
command recorded them (-buildvcs). What is not known is shown as "unknown"
("" in JSON); the version is then "dev".

JSON (-o json) is one object: version ("v1.2.3", a pseudo-version, or
"dev"), commit (the full or 12-digit commit hash, or ""), date (RFC 3339, the
commit's time, or ""), go_version ("go1.26.8"), platform ("linux/amd64") and
zookeeper_tested (the ZooKeeper release lines the tests run against, ["3.8"]).`,
		Example: `  zkx version
  zkx version -o json | jq -r .commit`,
		Args: cobra.NoArgs,
		RunE: runE(opts, run),
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "table", "output format: table or json")
	return cmd
}

func (o *versionOptions) complete([]string) (err error) {
	o.format, err = cliout.ParseFormat(o.output)
	return err
}

// runVersion prints this build's version.
func runVersion(_ context.Context, opts *versionOptions, std streams) error {
	b := currentBuild()
	if opts.format == cliout.JSON {
		return cliout.WriteJSON(std.out, b)
	}
	return writeVersionTable(std.out, b)
}

func writeVersionTable(out io.Writer, b buildInfo) error {
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return cliout.Clean(s)
	}
	t := cliout.NewTable(out)
	t.Row("zkx", cliout.Clean(b.Version))
	t.Row("commit", unknown(b.Commit))
	t.Row("built", unknown(b.Date))
	t.Row("go", b.GoVersion+" "+b.Platform)
	t.Row("zookeeper", "tested against "+strings.Join(b.ZooKeeper, ", "))
	return t.Flush()
}
