package promtest

import (
	"fmt"
	"os"
	"time"

	"go.yaml.in/yaml/v3"
)

// copyRules copies a rule file to dst; with shortenFor positive, every
// rule's for: becomes that duration (a rule without one keeps none). The
// file is read as YAML and written back, so what else it says is kept.
func copyRules(src, dst string, shortenFor time.Duration) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("rule file: %w", err)
	}
	if shortenFor > 0 {
		if b, err = shortenRuleFor(b, shortenFor); err != nil {
			return fmt.Errorf("rule file %s: %w", src, err)
		}
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return fmt.Errorf("copy rule file %s: %w", src, err)
	}
	return nil
}

// shortenRuleFor rewrites the for: of every rule in a rule file
// (groups[].rules[].for) to d. It fails when no rule has one: a test that
// asks to shorten such a file is looking at the wrong file.
func shortenRuleFor(file []byte, d time.Duration) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(file, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("not a YAML document")
	}
	rewritten := 0
	for _, group := range seqOf(valueOf(doc.Content[0], "groups")) {
		for _, rule := range seqOf(valueOf(group, "rules")) {
			if v := valueOf(rule, "for"); v != nil {
				v.SetString(promDuration(d))
				rewritten++
			}
		}
	}
	if rewritten == 0 {
		return nil, fmt.Errorf("no rule has a for: to shorten")
	}
	return yaml.Marshal(&doc)
}

// valueOf returns the value of key in a YAML mapping, nil when n is not a
// mapping or has no such key.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// seqOf returns the items of a YAML sequence, none when n is not one.
func seqOf(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
