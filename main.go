// Command zkx is a terminal explorer for ZooKeeper coordination state. The
// commands live in internal/cli; main only runs them.
package main

import (
	"os"

	"github.com/zkx-dev/zkx/internal/cli"
)

// version is set at release time with -ldflags "-X main.version=…"; builds
// from a module download report the module version instead.
var version = ""

func main() { os.Exit(cli.Run(version)) }
