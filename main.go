// Command zkx is a terminal explorer for ZooKeeper coordination state. The
// commands live in cmd; main only runs them.
package main

import (
	"os"

	"github.com/zkx-dev/zkx/cmd"
)

// A release build stamps these with -ldflags "-X main.version=…
// -X main.commit=… -X main.date=…" (.goreleaser.yaml); other builds leave
// them empty and zkx version reports what the go command recorded.
var version, commit, date string

func main() {
	cmd.SetBuildStamp(commit, date)
	os.Exit(cmd.Run(version))
}
