package config

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Editing a parsed file in place: the generic tree of JSON and TOML files,
// and the YAML node tree, which keeps comments and order.

// treeFindEntry returns the servers map (under "servers" or "mcpServers")
// that holds id, or nil.
func treeFindEntry(m map[string]any, id string) (map[string]any, error) {
	for _, key := range []string{"servers", "mcpServers"} {
		v, ok := m[key]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("config: %s: must be a map of server id to server entry", key)
		}
		if _, ok := s[id]; ok {
			return s, nil
		}
	}
	return nil, nil
}

// treeServersForAdd returns the map new entries go into: "servers", or
// "mcpServers" if the file only uses that.
func treeServersForAdd(m map[string]any) (map[string]any, error) {
	key := "servers"
	if _, ok := m["servers"]; !ok {
		if _, ok := m["mcpServers"]; ok {
			key = "mcpServers"
		}
	}
	if m[key] == nil {
		s := map[string]any{}
		m[key] = s
		return s, nil
	}
	s, ok := m[key].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("config: %s: must be a map of server id to server entry", key)
	}
	return s, nil
}

// editYAML edits the first document of a YAML file as nodes, so comments,
// key order and the style of untouched parts survive.
func editYAML(path string, data []byte, edit func(root *yaml.Node) error) ([]byte, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, parseError(path, "yaml", data, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode}
	}
	if len(doc.Content) == 0 {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	root := doc.Content[0]
	if yamlIsNull(root) {
		root.Kind, root.Tag, root.Value = yaml.MappingNode, "!!map", ""
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config: %s: the top level must be a map", path)
	}
	if err := edit(root); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return buf.Bytes(), nil
}

func yamlString(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func yamlBool(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

// yamlGet returns the index of key's key node in mapping m, or -1.
func yamlGet(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// yamlSet sets key in mapping m, keeping the key node (and its comments) if
// the key exists.
func yamlSet(m *yaml.Node, key string, v *yaml.Node) error {
	if i := yamlGet(m, key); i >= 0 {
		old := m.Content[i+1]
		v.LineComment, v.HeadComment, v.FootComment = old.LineComment, old.HeadComment, old.FootComment
		m.Content[i+1] = v
		return nil
	}
	m.Content = append(m.Content, yamlString(key), v)
	return nil
}

// yamlFindEntry returns the mapping (servers or mcpServers) holding id and
// the index of id's key node, or nil.
func yamlFindEntry(root *yaml.Node, id string) (*yaml.Node, int, error) {
	for _, key := range []string{"servers", "mcpServers"} {
		i := yamlGet(root, key)
		if i < 0 {
			continue
		}
		s := root.Content[i+1]
		if yamlIsNull(s) {
			continue
		}
		if s.Kind != yaml.MappingNode {
			return nil, 0, fmt.Errorf("config: %s: must be a plain map of server id to entry (an alias? edit it by hand)", key)
		}
		if j := yamlGet(s, id); j >= 0 {
			return s, j, nil
		}
	}
	return nil, 0, nil
}

// yamlServersForAdd returns the mapping new entries go into: "servers", or
// "mcpServers" if the file only uses that.
func yamlServersForAdd(root *yaml.Node) (*yaml.Node, error) {
	key := "servers"
	if yamlGet(root, "servers") < 0 && yamlGet(root, "mcpServers") >= 0 {
		key = "mcpServers"
	}
	s := yamlCollection(root, key, yaml.MappingNode)
	if s == nil {
		return nil, fmt.Errorf("config: %s: must be a plain map of server id to entry (an alias? edit it by hand)", key)
	}
	return s, nil
}

// yamlCollection returns the value of key in root, a mapping or a sequence
// as kind says, made when it is absent or null (keeping a null's line
// comment); nil when it is of another kind. An empty one is set to block
// style ("servers: {}" and "plugins: []" become blocks as entries go in).
func yamlCollection(root *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	tag := "!!map"
	if kind == yaml.SequenceNode {
		tag = "!!seq"
	}
	i := yamlGet(root, key)
	if i < 0 {
		n := &yaml.Node{Kind: kind, Tag: tag}
		root.Content = append(root.Content, yamlString(key), n)
		return n
	}
	n := root.Content[i+1]
	if yamlIsNull(n) {
		n = &yaml.Node{Kind: kind, Tag: tag, LineComment: n.LineComment}
		root.Content[i+1] = n
	}
	if n.Kind != kind {
		return nil
	}
	if len(n.Content) == 0 {
		n.Style = 0
	}
	return n
}

func yamlIsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// yamlNode builds the entry's mapping node, fields in the documented order.
func (e ServerEntry) yamlNode() (*yaml.Node, error) {
	n, err := e.pairs().node()
	if err != nil {
		return nil, fmt.Errorf("config: server %q: %w", e.ID, err)
	}
	return n, nil
}

func yamlSetTrust(root *yaml.Node, rec trustRecord) error {
	entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		yamlString("path"), yamlString(rec.Path),
		yamlString("sha256"), yamlString(rec.SHA256),
	}}
	i := yamlGet(root, "trusted_projects")
	if i < 0 {
		root.Content = append(root.Content, yamlString("trusted_projects"),
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{entry}})
		return nil
	}
	seq := root.Content[i+1]
	if yamlIsNull(seq) {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		root.Content[i+1] = seq
	}
	if seq.Kind != yaml.SequenceNode {
		return errors.New("config: trusted_projects: must be a list")
	}
	for j, item := range seq.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		if k := yamlGet(item, "path"); k >= 0 && filepath.Clean(item.Content[k+1].Value) == rec.Path {
			seq.Content[j] = entry
			return nil
		}
	}
	if len(seq.Content) == 0 {
		seq.Style = 0
	}
	seq.Content = append(seq.Content, entry)
	return nil
}
