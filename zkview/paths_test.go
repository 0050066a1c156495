package zkview

import (
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{"/", ""}, {"/a", ""}, {"/a/b c/ü", ""},
		{"", "empty path"}, {"a/b", "relative"}, {"/a/", `write "/a"`}, {"/a//b", "empty component"},
		{"/a/./b", `"." component`}, {"/a/..", `".." component`}, {"/a\x00b", "NUL"},
	} {
		_, err := CheckPath(tt.in)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckPath(%q) = %v, want error containing %q", tt.in, err, tt.err)
		}
	}
}
