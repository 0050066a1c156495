package config

import (
	"bytes"

	"go.yaml.in/yaml/v3"

	"github.com/zkx-dev/zkx/internal/display"
)

// secretShown stands for a credential written in the file itself.
const secretShown = "(set in the file, not shown)"

// Show writes a context as YAML with no secret in it: an auth written in
// the file shows as set; variables are named, never read.
func Show(c *Context) ([]byte, error) {
	shown := *c
	if shown.Auth != "" {
		shown.Auth = secretShown
	}
	shown.AdminURLs = make([]string, len(c.AdminURLs))
	for i, u := range c.AdminURLs {
		shown.AdminURLs[i] = display.URL(u) // an AdminServer URL may carry a password
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&shown); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
