package tui

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/zkx-dev/zkx/zkview"
)

// command is one `:` command.
type command struct {
	name, usage, help string
	takesPath         bool
}

var commands = []command{
	{name: "tree", usage: "tree", help: "browse the tree"},
	{name: "locks", usage: "locks [PATH]", help: "locks under PATH (default: the root)", takesPath: true},
	{name: "queues", usage: "queues [PATH]", help: "queues under PATH", takesPath: true},
	{name: "elections", usage: "elections [PATH]", help: "elections under PATH", takesPath: true},
	{name: "systems", usage: "systems [PATH]", help: "Kafka, HBase, Hadoop HA, Solr, Helix… under PATH", takesPath: true},
	{name: "sessions", usage: "sessions", help: "sessions: clients, ephemerals, watches"},
	{name: "server", usage: "server", help: "the ensemble: every member's srvr and mntr"},
	{name: "demo", usage: "demo", help: "chain vs herd vs spin vs redis (zkx demo)"},
	{name: "cd", usage: "cd PATH", help: "go to PATH in the tree", takesPath: true},
	{name: "q", usage: "q", help: "quit"},
}

// parsedCommand is a command line taken apart.
type parsedCommand struct {
	cmd  command
	path string
}

// parseCommand reads a command line (without the colon). Unique
// prefixes of names work (":loc" is ":locks").
func parseCommand(line string) (parsedCommand, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return parsedCommand{}, fmt.Errorf("no command: try :locks, :cd /path or ? for help")
	}
	name, args := fields[0], fields[1:]
	var found []command
	for _, c := range commands {
		if c.name == name {
			found = []command{c}
			break
		}
		if strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	switch {
	case len(found) == 0:
		return parsedCommand{}, fmt.Errorf("unknown command %q: try %s", name, commandNames())
	case len(found) > 1:
		var names []string
		for _, c := range found {
			names = append(names, ":"+c.name)
		}
		return parsedCommand{}, fmt.Errorf("%q could be %s", name, strings.Join(names, " or "))
	}
	p := parsedCommand{cmd: found[0]}
	switch {
	case len(args) > 1:
		return p, fmt.Errorf(":%s takes at most one path", p.cmd.name)
	case len(args) == 1 && !p.cmd.takesPath:
		return p, fmt.Errorf(":%s takes no argument", p.cmd.name)
	case len(args) == 1:
		clean, err := zkview.CheckPath(args[0])
		if err != nil {
			return p, err
		}
		p.path = clean
	case p.cmd.name == "cd":
		return p, fmt.Errorf(":cd needs a path, e.g. :cd /app/locks")
	}
	return p, nil
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, ":"+c.name)
	}
	return strings.Join(names, " ")
}

// completeCommand offers completions of a whole command line: command
// names first, then paths from what the tree knows (children lists).
func completeCommand(line string, children func(dir string) []string) []string {
	name, arg, hasArg := strings.Cut(line, " ")
	if !hasArg {
		var out []string
		for _, c := range commands {
			if strings.HasPrefix(c.name, name) {
				suffix := ""
				if c.takesPath {
					suffix = " "
				}
				out = append(out, c.name+suffix)
			}
		}
		return out
	}
	pc, err := parseCommand(name)
	if err != nil || !pc.cmd.takesPath {
		return nil
	}
	arg = strings.TrimLeft(arg, " ")
	if arg == "" {
		arg = "/"
	}
	if !strings.HasPrefix(arg, "/") {
		return nil
	}
	dir, partial := path.Split(arg)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "/"
	}
	var out []string
	for _, c := range children(dir) {
		if strings.HasPrefix(c, partial) {
			out = append(out, pc.cmd.name+" "+path.Join(dir, c)+"/")
		}
	}
	sort.Strings(out)
	return out
}
