package widget

import (
	"fmt"
	"regexp"
	"strings"
)

// Filter narrows a list: a case-insensitive substring, or a regular
// expression when written between slashes (/^lock-/).
type Filter struct {
	Text string
	re   *regexp.Regexp
}

func ParseFilter(text string) (Filter, error) {
	if len(text) >= 2 && strings.HasPrefix(text, "/") && strings.HasSuffix(text, "/") {
		re, err := regexp.Compile(text[1 : len(text)-1])
		if err != nil {
			return Filter{}, fmt.Errorf("filter: %w", err)
		}
		return Filter{Text: text, re: re}, nil
	}
	return Filter{Text: text}, nil
}

func (f Filter) Active() bool { return f.Text != "" }

func (f Filter) Match(s string) bool {
	switch {
	case f.re != nil:
		return f.re.MatchString(s)
	case f.Text == "":
		return true
	default:
		return strings.Contains(strings.ToLower(s), strings.ToLower(f.Text))
	}
}
