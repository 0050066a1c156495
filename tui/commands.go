package tui

import (
	"fmt"
	"path"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zkx-dev/zkx/zkview"
)

// argKind is what a `:` command takes after its name.
type argKind int

const (
	argNone         argKind = iota
	argPath                 // an optional znode path (default: the root)
	argRequiredPath         // a znode path that must be given
	argText                 // optional free text (a name, a list of URLs), passed as typed
)

// command is one `:` command: its name and help, the argument it takes and
// how it opens. The commands table below is the explorer's one registry of
// pages: a new page is its own file and one row here.
type command struct {
	name, usage, help string
	arg               argKind
	// open runs the command; arg is the cleaned path for path commands
	// ("/" when an optional path is left out), the trimmed text otherwise.
	open func(a *app, arg string) tea.Cmd
	// complete offers values for an argText argument (nil: none).
	complete func(a *app, prefix string) []string
}

// commands is the registry, in the order `?` and the errors list them.
var commands = []command{
	{name: "tree", usage: "tree", help: "browse the tree",
		open: func(a *app, _ string) tea.Cmd { a.popTo(0); return nil }},
	{name: "locks", usage: "locks [PATH]", help: "locks under PATH (default: the root)", arg: argPath,
		open: openRecipeList(kindLocks)},
	{name: "queues", usage: "queues [PATH]", help: "queues under PATH", arg: argPath,
		open: openRecipeList(kindQueues)},
	{name: "elections", usage: "elections [PATH]", help: "elections under PATH", arg: argPath,
		open: openRecipeList(kindElections)},
	{name: "systems", usage: "systems [PATH]", help: "Kafka, HBase, Hadoop HA, Solr, Helix… under PATH", arg: argPath,
		open: openRecipeList(kindSystems)},
	{name: "recipes", usage: "recipes [PATH]", help: "groups, partitioners, leases, counters, TTL nodes, barriers under PATH", arg: argPath,
		open: openRecipeList(kindRecipes)},
	{name: "alarms", usage: "alarms [PATH]", help: "every alarm holding now under PATH, and the members down (as zkx check)", arg: argPath,
		open: openRecipeList(kindAlarms)},
	{name: "sessions", usage: "sessions", help: "sessions: clients, ephemerals, watches",
		open: func(a *app, _ string) tea.Cmd { return push(newSessionsPage(a.shared)) }},
	{name: "admin", usage: "admin [URL[,URL…] | port N | off]", help: "AdminServers to read the servers' tables from, or the port to find them on",
		arg: argText, open: (*app).admin},
	{name: "server", usage: "server", help: "the ensemble: every member's srvr and mntr",
		open: func(a *app, _ string) tea.Cmd { return push(newServerPage(a.shared)) }},
	{name: "demo", usage: "demo", help: "chain vs herd vs spin vs redis (zkx demo)",
		open: (*app).openDemo},
	{name: "cd", usage: "cd PATH", help: "go to PATH in the tree", arg: argRequiredPath,
		open: (*app).cd},
	{name: "ctx", usage: "ctx [NAME]", help: "list the contexts, or switch to NAME: its ensemble, credentials and read-only", arg: argText,
		open: (*app).openContext, complete: completeContexts},
	{name: "q", usage: "q", help: "quit",
		open: func(*app, string) tea.Cmd { return tea.Quit }},
}

// openRecipeList opens the list of one kind of recognised object.
func openRecipeList(kind recipeKind) func(a *app, root string) tea.Cmd {
	return func(a *app, root string) tea.Cmd { return push(newRecipeListPage(a.shared, kind, root)) }
}

// parsedCommand is a command line taken apart.
type parsedCommand struct {
	cmd command
	arg string
}

// parseCommand reads a command line (without the colon). Unique
// prefixes of names work (":loc" is ":locks").
func parseCommand(line string) (parsedCommand, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return parsedCommand{}, fmt.Errorf("no command: try :locks, :cd /path or ? for help")
	}
	name := fields[0]
	c, err := findCommand(name)
	if err != nil {
		return parsedCommand{}, err
	}
	p := parsedCommand{cmd: c}
	args := fields[1:]
	switch c.arg {
	case argNone:
		if len(args) > 0 {
			return p, fmt.Errorf(":%s takes no argument", c.name)
		}
	case argText:
		p.arg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), name))
	case argPath, argRequiredPath:
		switch {
		case len(args) > 1:
			return p, fmt.Errorf(":%s takes at most one path", c.name)
		case len(args) == 0 && c.arg == argRequiredPath:
			return p, fmt.Errorf(":%s needs a path, e.g. :%s /app/locks", c.name, c.name)
		case len(args) == 0:
			p.arg = "/"
		default:
			clean, err := zkview.CheckPath(args[0])
			if err != nil {
				return p, err
			}
			p.arg = clean
		}
	}
	return p, nil
}

// findCommand finds a command by its name or a unique prefix of it.
func findCommand(name string) (command, error) {
	var found []command
	for _, c := range commands {
		if c.name == name {
			return c, nil
		}
		if strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return command{}, fmt.Errorf("unknown command %q: try %s", name, commandNames())
	case 1:
		return found[0], nil
	}
	var names []string
	for _, c := range found {
		names = append(names, ":"+c.name)
	}
	return command{}, fmt.Errorf("%q could be %s", name, strings.Join(names, " or "))
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, ":"+c.name)
	}
	return strings.Join(names, " ")
}

// completeCommand offers completions of a whole command line: command
// names first, then paths from what the tree knows (children lists), or
// the command's own values for a text argument.
func completeCommand(a *app, line string, children func(dir string) []string) []string {
	name, arg, hasArg := strings.Cut(line, " ")
	if !hasArg {
		var out []string
		for _, c := range commands {
			if strings.HasPrefix(c.name, name) {
				suffix := ""
				if c.arg != argNone {
					suffix = " "
				}
				out = append(out, c.name+suffix)
			}
		}
		return out
	}
	c, err := findCommand(name)
	if err != nil {
		return nil
	}
	arg = strings.TrimLeft(arg, " ")
	switch c.arg {
	case argText:
		if c.complete == nil {
			return nil
		}
		var out []string
		for _, v := range c.complete(a, arg) {
			out = append(out, c.name+" "+v)
		}
		return out
	case argPath, argRequiredPath:
		return completePath(c.name, arg, children)
	}
	return nil
}

// completePath completes a path argument from the children the tree knows.
func completePath(name, arg string, children func(dir string) []string) []string {
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
			out = append(out, name+" "+path.Join(dir, c)+"/")
		}
	}
	sort.Strings(out)
	return out
}
