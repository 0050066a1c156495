package sasl

import (
	"fmt"
	"strings"
)

// directive is one name=value of a DIGEST-MD5 challenge or response.
type directive struct{ name, value string }

// parseDirectives reads RFC 2831's comma-separated list of
// name=token or name="quoted\"string" (§7.1: empty elements and white
// space between them allowed). Names are lower-cased: they are case-
// insensitive.
func parseDirectives(s string) ([]directive, error) {
	var out []directive
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++
		}
	}
	for {
		skipSpace()
		for i < len(s) && s[i] == ',' { // empty list elements
			i++
			skipSpace()
		}
		if i >= len(s) {
			return out, nil
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		name := strings.ToLower(s[start:i])
		skipSpace()
		if name == "" || i >= len(s) || s[i] != '=' {
			return nil, fmt.Errorf("malformed directive at byte %d of %q", start, s)
		}
		i++ // '='
		skipSpace()
		var value strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				i++
				if c == '\\' && i < len(s) {
					value.WriteByte(s[i])
					i++
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				value.WriteByte(c)
			}
			if !closed {
				return nil, fmt.Errorf("unterminated quoted value of %s in %q", name, s)
			}
		} else {
			start := i
			for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
				i++
			}
			value.WriteString(s[start:i])
		}
		out = append(out, directive{name, value.String()})
		skipSpace()
		if i < len(s) && s[i] != ',' {
			return nil, fmt.Errorf("expected a comma after %s at byte %d of %q", name, i, s)
		}
	}
}

// lookup returns the value of the first directive called name.
func lookup(ds []directive, name string) (string, bool) {
	for _, d := range ds {
		if d.name == name {
			return d.value, true
		}
	}
	return "", false
}

// quote writes a quoted-string, escaping '"' and '\'.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}
