package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkx-dev/zkx/internal/testkit/zktest"
)

// TestJSONEscapesInvisibleRunes: names and data may hold runes a terminal
// obeys or hides (a bidi override, a zero-width space, a byte order
// mark); every -o json output and the export file write them as \u
// escapes, and the values still decode to what the server holds.
func TestJSONEscapesInvisibleRunes(t *testing.T) {
	t.Parallel()
	zktest.Each(t, func(t *testing.T, connect string) {
		base := zktest.Path(t)
		c := zktest.Conn(t, connect)
		create(t, c, base, nil, 0, zk.WorldACL(zk.PermAll))
		name := "rtl\u202eevil zero\u200bwidth"
		create(t, c, base+"/"+name, []byte("data\u2066hidden\u2069\ufeff"), 0, zk.WorldACL(zk.PermAll))
		for _, args := range [][]string{
			{"ls", "-o", "json", "-l", base},
			{"tree", "-o", "json", base},
			{"find", "-o", "json", base},
			{"get", "-o", "json", base + "/" + name},
			{"export", base},
		} {
			out, _, err := run(t, append([]string{"--server", connect}, args...)...)
			if err != nil {
				t.Fatalf("zkx %v: %v", args, err)
			}
			for _, raw := range []string{"\u202e", "\u200b", "\u2066", "\ufeff"} {
				if strings.Contains(out, raw) {
					t.Errorf("zkx %v: %q raw in the output:\n%s", args, raw, out)
				}
			}
			if !strings.Contains(out, `rtl\u202eevil zero\u200bwidth`) {
				t.Errorf("zkx %v: the name is not escaped as \\u…:\n%s", args, out)
			}
			first, _, _ := strings.Cut(out, "\n")
			if args[0] == "export" {
				var h map[string]any
				if json.Unmarshal([]byte(first), &h) != nil {
					t.Errorf("export header %q is not JSON", first)
				}
			} else if !json.Valid([]byte(out)) {
				t.Errorf("zkx %v: not valid JSON:\n%s", args, out)
			}
		}
		// What was escaped decodes to the name itself.
		out, _, _ := run(t, "--server", connect, "ls", "-o", "json", "-l", base)
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["name"] != name {
			t.Fatalf("decoded: %v %v", rows, err)
		}
	})
}
