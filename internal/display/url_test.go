package display

import "testing"

func TestURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ raw, want string }{
		{"http://zk1:8080/commands", "http://zk1:8080/commands"},
		{"http://admin:S3cret@zk1:8080/commands", "http://admin:xxxxx@zk1:8080/commands"},
		{"https://admin@zk1:8080", "https://admin@zk1:8080"},
		{"http://admin:S3cret@zk1:notaport/commands", "http://admin:xxxxx@zk1:notaport/commands"},
		{"http://admin:S3c@ret@zk1:bad/x@y", "http://admin:xxxxx@zk1:bad/x@y"},
		{"zk1:8080", "zk1:8080"},
	} {
		if got := URL(tc.raw); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}
