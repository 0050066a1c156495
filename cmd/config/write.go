package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// SetCurrent makes name the current context in the file at path, as
// kubectl config use-context does, keeping the rest of the file (comments
// included) as it was. The file is replaced atomically.
func SetCurrent(path, name string) error {
	f, err := Load(path, true)
	if err != nil {
		return err
	}
	if _, _, err := f.Select(name); err != nil {
		return err
	}
	b, err := fileread.ReadFile(path)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("contexts file %s: %w", path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("contexts file %s: not a mapping of current-context and contexts", path)
	}
	root := doc.Content[0]
	set := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "current-context" {
			root.Content[i+1].Value, root.Content[i+1].Tag, root.Content[i+1].Style = name, "!!str", 0
			set = true
		}
	}
	if !set {
		root.Content = append([]*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "current-context"},
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: name},
		}, root.Content...)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return writeFileAtomic(path, out.Bytes())
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory, keeping path's mode (0600 for a new file: it may name
// credentials). A symbolic link stays one: the file it points to is
// replaced, as kubectl writes a kubeconfig.
func writeFileAtomic(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
