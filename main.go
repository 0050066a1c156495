// Command zkx is a terminal explorer for ZooKeeper coordination state. The
// commands live in cmd; main only runs them.
package main

import (
	"os"

	"github.com/zkx-dev/zkx/cmd"
)

// version is set at release time with -ldflags "-X main.version=…"; builds
// from a module download report the module version instead.
var version = ""

func main() { os.Exit(cmd.Run(version)) }
