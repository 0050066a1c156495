package tui

import (
	"fmt"
	"regexp"
	"strings"
)

// filter narrows a list: a case-insensitive substring, or a regular
// expression when written between slashes (/^lock-/).
type filter struct {
	text string
	re   *regexp.Regexp
}

func parseFilter(text string) (filter, error) {
	if len(text) >= 2 && strings.HasPrefix(text, "/") && strings.HasSuffix(text, "/") {
		re, err := regexp.Compile(text[1 : len(text)-1])
		if err != nil {
			return filter{}, fmt.Errorf("filter: %w", err)
		}
		return filter{text: text, re: re}, nil
	}
	return filter{text: text}, nil
}

func (f filter) active() bool { return f.text != "" }

func (f filter) match(s string) bool {
	switch {
	case f.re != nil:
		return f.re.MatchString(s)
	case f.text == "":
		return true
	default:
		return strings.Contains(strings.ToLower(s), strings.ToLower(f.text))
	}
}
