package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	// fence opens or closes a fenced code block.
	fence = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	// codeSpan is inline code, whose brackets are no links.
	codeSpan = regexp.MustCompile("(`+)[^`]*?(`+)")
	// inlineLink is [text](target "title") and ![alt](target).
	inlineLink = regexp.MustCompile(`\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)`)
	// refDefinition is [label]: target.
	refDefinition = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	// htmlLink is an href or src attribute.
	htmlLink = regexp.MustCompile(`(?:href|src)\s*=\s*"([^"]*)"`)
	// scheme starts an absolute URL.
	scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	// htmlAnchor is an explicit anchor in a document.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)\s*=\s*"([^"]+)"`)
	// headingLink is a link inside a heading, which anchors by its text.
	headingLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	// lineAnchor is GitHub's anchor of lines in a file that is not Markdown.
	lineAnchor = regexp.MustCompile(`^L\d+(-L\d+)?$`)
)

// up climbs out of a folder. It is spelt in two pieces so that this file,
// which TestNoPathOutsideRepository reads too, names no path outside.
const up = ".." + "/"

// outside reports whether a cleaned path from the repository root leaves it.
func outside(clean string) bool { return clean == ".." || strings.HasPrefix(clean, up) }

// link is one link target in a Markdown file.
type link struct {
	line   int
	target string
}

// markdownLinks returns the link targets of a Markdown document, leaving
// out what is inside code (fenced blocks and code spans).
func markdownLinks(doc string) []link {
	var links []link
	inFence := false
	for i, line := range strings.Split(doc, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "code")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refDefinition.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, m := range htmlLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, t := range targets {
			links = append(links, link{i + 1, strings.Trim(t, "<>")})
		}
	}
	return links
}

// anchors returns the anchors GitHub makes of a document's headings (and
// its explicit <a name> anchors).
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(doc, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slugify(headingLink.ReplaceAllString(m[1], "$1"))
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// slugify makes a heading's anchor as GitHub does: lower case, letters,
// digits, hyphens and underscores kept, spaces to hyphens, the rest dropped.
func slugify(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// checkLink says what is wrong with a link of the Markdown file file (a
// path from the repository root), or "" when it resolves in the repository.
func checkLink(file, target string) string {
	if scheme.MatchString(target) {
		switch strings.ToLower(target[:strings.Index(target, ":")]) {
		case "http", "https", "mailto":
			return "" // outside the repository by intent; not fetched
		}
		return "a link with a scheme other than http, https or mailto"
	}
	path, fragment, _ := strings.Cut(target, "#")
	if strings.HasPrefix(path, "/") {
		return "an absolute path: write it relative to " + file
	}
	resolved := file // a bare #anchor points into the file itself
	if path != "" {
		resolved = filepath.Clean(filepath.Join(filepath.Dir(file), path))
	}
	if outside(resolved) {
		return "leaves the repository"
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return "no such file in the repository: " + resolved
	}
	if fragment == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(resolved, ".md") {
		if !info.IsDir() && lineAnchor.MatchString(fragment) {
			return ""
		}
		return "#" + fragment + ": anchors point into Markdown files only"
	}
	doc, err := os.ReadFile(resolved)
	if err != nil {
		return err.Error()
	}
	if !anchors(string(doc))[fragment] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", resolved, fragment)
	}
	return ""
}

// TestMarkdownLinksResolve checks every link of every Markdown file of the
// repository: a relative link must name a file or folder inside it, and an
// anchor a heading of the Markdown file it points to. Links to the web are
// not fetched.
func TestMarkdownLinksResolve(t *testing.T) {
	t.Parallel()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		doc, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, l := range markdownLinks(string(doc)) {
			checked++
			if problem := checkLink(path, l.target); problem != "" {
				t.Errorf("%s:%d: link %s: %s", path, l.line, l.target, problem)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no link found in any Markdown file: the checker reads nothing")
	}
	t.Logf("%d links checked", checked)
}

// TestLinkChecker pins what the checker reads as a link and how it resolves.
func TestLinkChecker(t *testing.T) {
	t.Parallel()
	doc := strings.Join([]string{
		"# zkx: the `demo`",
		"See [the demo](docs/demo.md#herd), ![picture](docs/demo.png) and [web](https://example.com).",
		"`[not a link](nowhere.md)` and <img src=\"docs/x.png\">",
		"```",
		"[in code](nowhere.md)",
		"```",
		"[ref]: " + up + "outside.md",
		"## The demo",
		"## The demo",
	}, "\n")
	var got []string
	for _, l := range markdownLinks(doc) {
		got = append(got, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	want := "2:docs/demo.md#herd 2:docs/demo.png 2:https://example.com 3:docs/x.png 7:" + up + "outside.md"
	if strings.Join(got, " ") != want {
		t.Errorf("links = %v, want %s", got, want)
	}
	a := anchors(doc)
	for _, w := range []string{"zkx-the-demo", "the-demo", "the-demo-1"} {
		if !a[w] {
			t.Errorf("anchors %v lack %s", a, w)
		}
	}
	for target, wantProblem := range map[string]bool{
		"README.md":              false,
		"docs/../README.md":      false,
		up + "outside.md":        true,
		"/etc/passwd":            true,
		"no-such-file.md":        true,
		"README.md#no-such-head": true,
		"#no-such-head":          true,
		"https://example.com/x":  false,
		"file:///etc/passwd":     true,
	} {
		if got := checkLink("README.md", target) != ""; got != wantProblem {
			t.Errorf("checkLink(README.md, %s): problem %v, want %v (%q)", target, got, wantProblem, checkLink("README.md", target))
		}
	}
}

// upPath is a path that starts by climbing out of its folder (up, then a
// name) as a word of its own; a ".." inside a path ("/a/" + up + "b") is not one.
var upPath = regexp.MustCompile("(?:^|[\\s\"'(=:,{\\[`-])(\\.\\./[^\\s\"'`)\\]},;]*)")

// TestNoPathOutsideRepository checks that no file of the repository names
// a path outside it: a clone has only what is in it. A Go file's paths are
// read from its own folder (tests run there); a script's from the
// repository root (every script cds there first). Markdown links are
// TestMarkdownLinksResolve's; other mentions in Markdown are read from the
// document's folder.
func TestNoPathOutsideRepository(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.IndexByte(string(data[:min(len(data), 8000)]), 0) >= 0 {
			return nil // binary (a picture)
		}
		base := "."
		if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md") {
			base = filepath.Dir(path)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range upPath.FindAllStringSubmatch(line, -1) {
				if p := filepath.Clean(filepath.Join(base, m[1])); outside(p) {
					t.Errorf("%s:%d: %s is outside the repository", path, i+1, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
