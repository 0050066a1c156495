package zktest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fakeJavacScript stands in for javac where a test is about the cache,
// not the compiler: each real javac costs most of a second of CPU, on a
// machine the suite keeps busy. It takes runJavac's command line and
// writes an empty class per source; a source without a closing brace
// fails, as it would in javac. TestJavacCache runs the real one.
const fakeJavacScript = `#!/bin/sh
[ "$1" = -d ] && [ "$3" = -cp ] || { echo "usage: javac -d CLASSES -cp CLASSPATH SOURCE..." >&2; exit 2; }
out=$2
shift 4
for src in "$@"; do
	grep -q '}' "$src" || { echo "$src: reached end of file while parsing" >&2; exit 1; }
	: > "$out/$(basename "$src" .java).class" || exit 1
done
`

// fakeJavac writes fakeJavacScript into a directory of the test's and
// returns its path.
func fakeJavac(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "javac")
	if err := os.WriteFile(path, []byte(fakeJavacScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJavacCache: an identical compilation comes from the cache without
// javac; a changed source is compiled again, into another directory.
func TestJavacCache(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	javac := LookPath(t, "javac", CuratorInstall)
	src := filepath.Join(t.TempDir(), "Hello.java")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(src, []byte("class Hello { "+body+" }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compile := func() (string, Program) {
		t.Helper()
		classes, program, err := cachedJavac(t, root, javac, nil, []string{src})
		if err != nil {
			program.Log(t)
			t.Fatalf("cachedJavac: %v", err)
		}
		if _, err := os.Stat(filepath.Join(classes, "Hello.class")); err != nil {
			t.Fatalf("no Hello.class in %s: %v", classes, err)
		}
		return classes, program
	}
	write("int a;")
	first, p := compile()
	if p.Cmdline == "" {
		t.Fatalf("the first compilation did not run javac")
	}
	again, p := compile()
	if p.Cmdline != "" || again != first {
		t.Fatalf("the same sources ran javac again (%q) or moved (%s, then %s)", p.Cmdline, first, again)
	}
	write("int b;")
	changed, p := compile()
	if p.Cmdline == "" || changed == first {
		t.Fatalf("a changed source came from the cache: %s", changed)
	}
}

// TestJavacCacheAgainstCompiled: a compilation against another one's
// classes (as StartCuratorRecipes chains them) comes from the cache too,
// though using the first touches its directory.
func TestJavacCacheAgainstCompiled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	javac := fakeJavac(t)
	dir := t.TempDir()
	base, user := filepath.Join(dir, "Base.java"), filepath.Join(dir, "User.java")
	for file, body := range map[string]string{base: "class Base {}\n", user: "class User extends Base {}\n"} {
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compile := func(classpath []string, src string) (string, Program) {
		t.Helper()
		classes, program, err := cachedJavac(t, root, javac, classpath, []string{src})
		if err != nil {
			program.Log(t)
			t.Fatalf("cachedJavac %s: %v", src, err)
		}
		return classes, program
	}
	baseClasses, _ := compile(nil, base)
	first, p := compile([]string{baseClasses}, user)
	if p.Cmdline == "" {
		t.Fatalf("the first compilation of User did not run javac")
	}
	if again, _ := compile(nil, base); again != baseClasses {
		t.Fatalf("Base moved: %s, then %s", baseClasses, again)
	}
	again, p := compile([]string{baseClasses}, user)
	if p.Cmdline != "" || again != first {
		t.Fatalf("User, against Base's classes used since, ran javac again (%q) or moved (%s, then %s)", p.Cmdline, first, again)
	}
}

// TestJavacCacheBrokenSource: a failed compilation leaves nothing that a
// later one would take for classes.
func TestJavacCacheBrokenSource(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	javac := fakeJavac(t)
	src := filepath.Join(t.TempDir(), "Broken.java")
	if err := os.WriteFile(src, []byte("class Broken {"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, program, err := cachedJavac(t, root, javac, nil, []string{src}); err == nil || program.Cmdline == "" {
			t.Fatalf("a broken source: err %v, javac run %q; want javac run and failing each time", err, program.Cmdline)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("left in the cache after a failed compilation: %s", e.Name())
		}
	}
}

// TestJavacCacheOff: without a cache (ZKX_JAVAC_CACHE=off, see
// TestJavacCacheDir) each compilation runs, into directories Main removes.
func TestJavacCacheOff(t *testing.T) {
	t.Parallel()
	const root = "" // what javacCacheDir says for "off"
	javac := fakeJavac(t)
	src := filepath.Join(t.TempDir(), "Off.java")
	if err := os.WriteFile(src, []byte("class Off {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for range 2 {
		classes, program, err := cachedJavac(t, root, javac, nil, []string{src})
		if err != nil || program.Cmdline == "" {
			t.Fatalf("cachedJavac with the cache off: err %v, javac run %q", err, program.Cmdline)
		}
		dirs = append(dirs, classes)
	}
	if dirs[0] == dirs[1] {
		t.Fatalf("two compilations with the cache off went to one directory %s", dirs[0])
	}
	compiledJava.mu.Lock()
	kept := slices.Clone(compiledJava.tempDirs)
	compiledJava.mu.Unlock()
	for _, d := range dirs {
		if !slices.Contains(kept, d) {
			t.Errorf("%s is not among the directories Main removes", d)
		}
	}
}

// TestJavacCacheDir: ZKX_JAVAC_CACHE names the cache's directory, "off"
// none, and unset the user's cache directory.
func TestJavacCacheDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ZKX_JAVAC_CACHE", dir)
	if got := javacCacheDir(); got != dir {
		t.Errorf("ZKX_JAVAC_CACHE=%s: cache in %q", dir, got)
	}
	t.Setenv("ZKX_JAVAC_CACHE", "off")
	if got := javacCacheDir(); got != "" {
		t.Errorf("ZKX_JAVAC_CACHE=off: cache in %q, want none", got)
	}
	t.Setenv("ZKX_JAVAC_CACHE", "")
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory here: %v", err)
	}
	if got, want := javacCacheDir(), filepath.Join(base, "zkx", "test-javac"); got != want {
		t.Errorf("ZKX_JAVAC_CACHE unset: cache in %q, want %q", got, want)
	}
}
