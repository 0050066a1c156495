package zkserver

import "strings"

// validPath applies ZooKeeper's PathUtils.validatePath. ZooKeeper checks UTF-16
// code units, so any character outside the Basic Multilingual Plane (a
// surrogate pair in Java) is refused, as are the replacement character and
// the private-use area.
func validPath(path string) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	if path == "/" {
		return true
	}
	if path[len(path)-1] == '/' {
		return false
	}
	for _, name := range strings.Split(path[1:], "/") {
		if name == "" || name == "." || name == ".." {
			return false
		}
		for _, r := range name {
			if !validPathRune(r) {
				return false
			}
		}
	}
	return true
}

func validPathRune(r rune) bool {
	switch {
	case r == 0:
		return false
	case r <= 0x1f:
		return false
	case r >= 0x7f && r <= 0x9f:
		return false
	case r >= 0xd800 && r <= 0xf8ff: // surrogates (never valid UTF-8 here) and private use
		return false
	case r >= 0xfff0: // specials, including U+FFFD, and every supplementary character
		return false
	}
	return true
}
