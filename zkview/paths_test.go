package zkview

import (
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, err string }{
		{"/", ""}, {"/a", ""}, {"/a/b c/ü", ""},
		{"", "empty path"}, {"a/b", "relative"}, {"/a/", `write "/a"`}, {"/a//b", "empty component"},
		{"/a/./b", `"." component`}, {"/a/..", `".." component`}, {"/a\x00b", "U+0000"}, {"/a\x1b[2J", "U+001B"}, {"/a\u0085", "U+0085"}, {"/\ue000", "U+E000"},
	} {
		_, err := CheckPath(tt.in)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckPath(%q) = %v, want error containing %q", tt.in, err, tt.err)
		}
	}
}
