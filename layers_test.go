package main

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the generated blocks of CONTRIBUTING.md (the import
// graph), as -update rewrites every golden of the project.
var update = flag.Bool("update", false, "rewrite CONTRIBUTING.md's import graph from the code")

const module = "github.com/zkx-dev/zkx"

// A floor of the house. Packages import their own floor and the floors
// below it, never a higher one.
type floor struct {
	rank  int      // 0 is the top
	name  string   // as CONTRIBUTING.md names it
	roots []string // package directories (from the repository root) on this floor, with everything under them
}

// floors, top to ground. Test kits and scripts are beside the floors, not
// on them: see kitFloor and scriptsFloor.
var floors = []floor{
	{0, "top: main and the commands", []string{".", "cmd"}},
	{1, "screens and demo", []string{"tui", "demo"}},
	{2, "model and recipes", []string{"zkview", "recipes"}},
	{3, "ground", []string{"internal"}},
}

// kitFloor holds the test harnesses (internal/testkit/*). They sit on the
// ground (they import only it and each other) but only test files may
// import them: a product package that did would ship a harness that
// starts JVMs.
var kitFloor = floor{3, "test kits (imported by tests only)", []string{"internal/testkit"}}

// scriptsFloor holds our measuring and maintenance programs under scripts/:
// above the top (they may use any package, as a user's program would, and
// the test kits, as a test would: scripts/fakezk serves a fake server by
// hand); nothing imports them.
var scriptsFloor = floor{-1, "scripts (our measuring programs; nothing imports them)", []string{"scripts"}}

// exceptions are imports allowed against the floors, each with its reason
// (keep CONTRIBUTING.md's list the same). Key: importer dir, imported dir.
// There are none: internal/syslayout (real systems' nodes as they write
// them) is ground, not a test kit, because demo's seeded state uses it as
// well as the tests — which is allowed without an exception.
var exceptions = map[[2]string]string{}

// pkgFloor places a package directory (relative to the repository root,
// "." for the root) on its floor.
func pkgFloor(dir string) (floor, bool) {
	under := func(root string) bool {
		return dir == root || (root != "." && strings.HasPrefix(dir, root+"/"))
	}
	for _, f := range []floor{kitFloor, scriptsFloor} {
		if under(f.roots[0]) {
			return f, true
		}
	}
	for _, f := range floors {
		for _, r := range f.roots {
			if under(r) {
				return f, true
			}
		}
	}
	return floor{}, false
}

// goFile is one Go file's imports of the module's packages.
type goFile struct {
	path    string // from the repository root
	dir     string // its package directory
	test    bool
	imports []string // package directories, from the repository root
}

// moduleFiles parses the imports of every Go file of the repository, as
// the go tool sees the tree (testdata and directories starting with . or _
// are not packages).
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		g := goFile{path: path, dir: filepath.ToSlash(filepath.Dir(path)), test: strings.HasSuffix(path, "_test.go")}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", path, imp.Path.Value, err)
			}
			switch {
			case p == module:
				g.imports = append(g.imports, ".")
			case strings.HasPrefix(p, module+"/"):
				g.imports = append(g.imports, strings.TrimPrefix(p, module+"/"))
			}
		}
		files = append(files, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestLayers checks that no package imports a higher floor, that only
// tests import the test kits, and that CONTRIBUTING.md shows the import
// graph and every package folder as they are.
func TestLayers(t *testing.T) {
	t.Parallel()
	files := moduleFiles(t)
	graph := map[string]map[string]bool{} // non-test imports, by package
	for _, f := range files {
		if _, ok := pkgFloor(f.dir); !ok {
			t.Errorf("%s: package %s is on no floor: add it to floors in layers_test.go and to CONTRIBUTING.md's Layout", f.path, f.dir)
			continue
		}
		if graph[f.dir] == nil {
			graph[f.dir] = map[string]bool{}
		}
		for _, imp := range f.imports {
			if !f.test {
				graph[f.dir][imp] = true
			}
			if why, ok := exceptions[[2]string{f.dir, imp}]; ok {
				t.Logf("%s imports %s by exception: %s", f.dir, imp, why)
				continue
			}
			if problem := layerProblem(f.dir, f.test, imp); problem != "" {
				t.Errorf("%s: %s", f.path, problem)
			}
		}
	}

	doc, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	want := importGraph(graph)
	got, start, end, err := generated(text, "import graph")
	switch {
	case err != nil:
		t.Fatal(err)
	case got != want && *update:
		text = text[:start] + want + "\n" + text[end:]
		if err := os.WriteFile("CONTRIBUTING.md", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	case got != want:
		t.Errorf("CONTRIBUTING.md's import graph is not the code's (go test -run TestLayers -update rewrites it):\n--- CONTRIBUTING.md\n%s\n--- the code\n%s", got, want)
	}

	tree, _, _, err := generated(text, "folders")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(tree, "\n") {
		// A line naming a folder or file starts at the margin; an indented
		// one goes on describing the line above.
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			listed[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	for dir := range graph {
		if dir != "." && !listed[dir] {
			t.Errorf("CONTRIBUTING.md's folder tree has no line for the package %s/", dir)
		}
	}
	for dir := range listed {
		if strings.ContainsAny(dir, "*") {
			continue // a pattern line (e2e_*_test.go)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("CONTRIBUTING.md's folder tree lists %s, which is not there", dir)
		}
	}
}

// layerProblem says what is wrong with package dir (a test file of it, if
// test) importing the package imp, or "" when the floors allow it.
func layerProblem(dir string, test bool, imp string) string {
	from, ok := pkgFloor(dir)
	if !ok {
		return fmt.Sprintf("package %s is on no floor", dir)
	}
	to, ok := pkgFloor(imp)
	isKit := func(f floor) bool { return f.roots[0] == kitFloor.roots[0] }
	isScripts := func(f floor) bool { return f.roots[0] == scriptsFloor.roots[0] }
	switch {
	case !ok:
		return fmt.Sprintf("imports %s, which is on no floor", imp)
	case isScripts(to) && !isScripts(from):
		return fmt.Sprintf("imports %s: nothing imports the scripts", imp)
	case isKit(to) && !test && !isKit(from) && !isScripts(from):
		return fmt.Sprintf("imports the test kit %s: only tests (and other test kits) may", imp)
	case to.rank < from.rank:
		return fmt.Sprintf("%s (floor %q) imports %s, a higher floor (%q)", dir, from.name, imp, to.name)
	}
	return ""
}

// TestLayerRules pins what the floors allow, so that TestLayers passing
// means something.
func TestLayerRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir  string
		test bool
		imp  string
		ok   bool
	}{
		{"cmd", false, "tui", true},
		{".", false, "cmd", true},
		{"tui", false, "demo", true}, // same floor
		{"zkview/recognize", false, "zkview", true},
		{"demo", false, "internal/syslayout", true},
		{"tui", false, "cmd", false}, // up a floor
		{"zkview", false, "tui/widget", false},
		{"internal/jute", false, "recipes", false},
		{"recipes", false, "demo", false},
		{"zkview", false, "internal/testkit/zktest", false}, // a kit outside tests
		{"zkview", true, "internal/testkit/zktest", true},
		{"internal/testkit/redistest", false, "internal/testkit/zktest", true},
		{"internal/testkit/zktest", false, "zkview", false}, // a kit above the ground
		{"scripts/lockbench", false, "recipes", true},
		{"scripts/fakezk", false, "internal/testkit/fakezk", true},
		{"recipes", false, "scripts/lockbench", false},
		{"newfolder", false, "recipes", false}, // on no floor
		{"cmd", false, "newfolder", false},
	} {
		problem := layerProblem(tc.dir, tc.test, tc.imp)
		if (problem == "") != tc.ok {
			t.Errorf("%s (test %v) importing %s: problem %q, want allowed=%v", tc.dir, tc.test, tc.imp, problem, tc.ok)
		}
	}
}

// importGraph writes the non-test imports of every package, floor by floor.
func importGraph(graph map[string]map[string]bool) string {
	var b strings.Builder
	for _, f := range append(append([]floor{}, floors...), kitFloor, scriptsFloor) {
		var pkgs []string
		for dir := range graph {
			if g, ok := pkgFloor(dir); ok && g.roots[0] == f.roots[0] && g.name == f.name {
				pkgs = append(pkgs, dir)
			}
		}
		if len(pkgs) == 0 {
			continue
		}
		sort.Strings(pkgs)
		fmt.Fprintf(&b, "%s\n", f.name)
		for _, dir := range pkgs {
			var imps []string
			for imp := range graph[dir] {
				imps = append(imps, imp)
			}
			sort.Strings(imps)
			name := dir
			if dir == "." {
				name = ". (main)"
			}
			if len(imps) == 0 {
				fmt.Fprintf(&b, "  %s\n", name)
			} else {
				fmt.Fprintf(&b, "  %-28s → %s\n", name, strings.Join(imps, " "))
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// generated finds the fenced block that follows the marker
// <!-- generated: NAME … --> in a document and returns its body and where
// the body starts and ends in doc.
func generated(doc, name string) (body string, start, end int, err error) {
	marker := "<!-- generated: " + name
	i := strings.Index(doc, marker)
	if i < 0 {
		return "", 0, 0, fmt.Errorf("CONTRIBUTING.md has no %s … -->", marker)
	}
	lines := strings.SplitAfter(doc[i:], "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "```") {
		return "", 0, 0, fmt.Errorf("CONTRIBUTING.md: no fenced block right after %s … -->", marker)
	}
	start = i + len(lines[0]) + len(lines[1])
	end = start
	for _, l := range lines[2:] {
		if strings.TrimRight(l, "\n") == "```" {
			return strings.TrimSuffix(doc[start:end], "\n"), start, end, nil
		}
		end += len(l)
	}
	return "", 0, 0, fmt.Errorf("CONTRIBUTING.md: the block after %s … --> does not end", marker)
}
