package zkview

import (
	"fmt"
	"strings"
)

// CheckPath validates a znode path a user typed, with an error that says
// how to write it: absolute, no empty, "." or ".." components, no
// trailing slash, no NUL.
func CheckPath(p string) (string, error) {
	switch {
	case p == "":
		return "", fmt.Errorf("empty path (znode paths start with /)")
	case !strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("path %q is relative (znode paths start with /)", p)
	case p == "/":
		return p, nil
	case strings.HasSuffix(p, "/"):
		return "", fmt.Errorf("path %q ends with / (write %q)", p, strings.TrimRight(p, "/"))
	case strings.Contains(p, "//"):
		return "", fmt.Errorf("path %q has an empty component", p)
	}
	for _, r := range p {
		if disallowedInPath(r) {
			return "", fmt.Errorf("path %q holds %U, which ZooKeeper does not allow in paths", p, r)
		}
	}
	for _, part := range strings.Split(p[1:], "/") {
		if part == "." || part == ".." {
			return "", fmt.Errorf("path %q has a %q component (ZooKeeper has no relative paths)", p, part)
		}
	}
	return p, nil
}

// disallowedInPath is ZooKeeper's rule (PathUtils.validatePath): no
// control characters, no surrogates or private use, no specials.
func disallowedInPath(r rune) bool {
	return r <= 0x1f || r >= 0x7f && r <= 0x9f || r >= 0xd800 && r <= 0xf8ff || r >= 0xfff0 && r <= 0xffff
}

// ChildPath is the path of name in dir ("/" has no trailing slash to add).
func ChildPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
