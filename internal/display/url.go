package display

import (
	"net/url"
	"strings"
)

// URL is a URL as zkx shows it: with the password of its user
// information replaced by "xxxxx" (url.URL.Redacted), so that an
// AdminServer URL carrying credentials can be named in a message. A string
// that does not parse as a URL is redacted the same way by hand, so a
// typo in a URL does not show the password in the error about it.
func URL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	scheme := strings.Index(raw, "://")
	if scheme < 0 {
		return raw
	}
	rest := raw[scheme+3:]
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(authority[:at], ":")
	if !hasPassword {
		return raw
	}
	return raw[:scheme+3] + user + ":xxxxx" + rest[at:]
}
