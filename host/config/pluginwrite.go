package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Writing the plugins section (`mcphost plugin add` and `plugin remove`).
// The edits go through editFile, as the server edits do: locked, checked,
// written atomically, with a trusted project kept trusted.

// PluginEntry is a plugins entry as written in a file: unset fields are
// left out, so what is written is what the user asked for.
type PluginEntry struct {
	Name string
	// Path is the .wasm file. An absolute path inside the project directory
	// is written relative to the project file (so the project can be moved
	// or cloned); anything else is written as given.
	Path   string
	SHA256 string
	Hooks  []string
	// Servers are server-id globs; empty means every server.
	Servers []string
	Config  map[string]string
	// Secrets maps a secret's name to the reference that gives its value,
	// as written in the file: "${VAR}" (an environment variable) or
	// another form the secrets field accepts. Never a value.
	Secrets      map[string]string
	AllowedHosts []string
	AllowPrivate bool
	OnError      string
	Mode         string
	// Limits: 0 leaves a limit to its default.
	TimeoutMS      int64
	MemoryMB       int64
	MaxOutputBytes int64
}

// ErrPluginExists is wrapped by AddPlugin's error when the name is taken.
var ErrPluginExists = errors.New("plugin already exists")

// ErrNoSuchPlugin is wrapped by RemovePlugin's error when the scope's file
// has no entry of that name.
var ErrNoSuchPlugin = errors.New("no such plugin")

// pairs lists the set fields in the documented order (pluginFields).
func (e PluginEntry) pairs() fieldList {
	var p fieldList
	p.add("name", e.Name, true)
	p.add("path", e.Path, true)
	p.add("sha256", e.SHA256, e.SHA256 != "")
	p.add("hooks", e.Hooks, len(e.Hooks) > 0)
	p.add("servers", e.Servers, len(e.Servers) > 0)
	p.add("config", e.Config, len(e.Config) > 0)
	var lim fieldList
	lim.add("timeout_ms", e.TimeoutMS, e.TimeoutMS != 0)
	lim.add("memory_mb", e.MemoryMB, e.MemoryMB != 0)
	lim.add("max_output_bytes", e.MaxOutputBytes, e.MaxOutputBytes != 0)
	p.add("limits", lim, len(lim) > 0)
	p.add("secrets", e.Secrets, len(e.Secrets) > 0)
	p.add("allowed_hosts", e.AllowedHosts, len(e.AllowedHosts) > 0)
	p.add("allow_private", e.AllowPrivate, e.AllowPrivate)
	p.add("on_error", e.OnError, e.OnError != "")
	p.add("mode", e.Mode, e.Mode != "")
	return p
}

// fields returns the entry as a generic map, as a parser would give it.
func (e PluginEntry) fields() map[string]any { return e.pairs().generic() }

func (e PluginEntry) yamlNode() (*yaml.Node, error) {
	n, err := e.pairs().node()
	if err != nil {
		return nil, fmt.Errorf("config: plugin %q: %w", e.Name, err)
	}
	return n, nil
}

// validate checks the entry by the rules Load applies to an entry of the
// file path of scope (a project file may not name a keychain secret, say),
// with relative paths taken from dir as Load takes them. Secret variables
// need not be set now: they are read when the plugin loads.
func (e PluginEntry) validate(path string, scope Scope, dir string) error {
	l := &layer{kind: scopeKind(scope), source: path, dir: dir}
	anyVar := func(string) (string, bool) { return "value", true }
	return decodePlugin(&pluginEntry{layer: l, fields: e.fields()}, anyVar).Err
}

// pathFor is how the entry's path is written in file: relative to the
// file's directory when scope is the project and the plugin lies under it,
// with $ doubled so that ${...} in a file name is not read as a variable.
func pathFor(p, file string, scope Scope) string {
	if scope == ScopeProject && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(filepath.Dir(file), p); err == nil && filepath.IsLocal(rel) {
			p = filepath.ToSlash(rel)
		}
	}
	return strings.ReplaceAll(p, "$", "$$")
}

// AddPlugin writes entry at the end of the plugins list of the scope's file
// (local, project or user) and returns the file's path. The entry is validated
// first and nothing is written if it is invalid. A name that the file
// already has is an error wrapping ErrPluginExists unless replace is set
// (the entry is then replaced where it stands, keeping its place in the
// chain); a name that another file defines is an error too, even with
// replace, because the loader would turn the later entry into a stage that
// fails every call (the other files are checked when the configuration
// loads; one that does not is reported by Load anyway).
func AddPlugin(opts LoadOptions, scope Scope, entry PluginEntry, replace bool) (string, error) {
	r, path, err := scopeTarget(opts, scope)
	if err != nil {
		return "", err
	}
	entry.Path = pathFor(entry.Path, path, scope)
	dir := filepath.Dir(path)
	if scope != ScopeUser {
		dir = r.workDir // the local file's paths are the project's
	}
	if err := entry.validate(path, scope, dir); err != nil {
		return path, fmt.Errorf("%w\nconfig: %s: not written", err, path)
	}
	if reason, err := managedPluginRefusal(r, entry); err != nil || reason != "" {
		if err != nil {
			return path, err
		}
		return path, fmt.Errorf("config: plugin %q: %s\nconfig: %s: not written", entry.Name, reason, path)
	}
	if other := pluginDefinedElsewhere(r, path, entry.Name); other != "" {
		return path, fmt.Errorf("config: plugin %q is already defined in %s: %w (plugin names are unique across files; choose another name, or remove it there)", entry.Name, other, ErrPluginExists)
	}
	exists := func() error {
		return fmt.Errorf("config: %s: plugin %q: %w (remove it first, or replace it)", path, entry.Name, ErrPluginExists)
	}
	err = editFile(r, path, scopeEdit(r, scope, fileEdit{
		yaml: func(root *yaml.Node) error {
			node, err := entry.yamlNode()
			if err != nil {
				return err
			}
			seq, err := yamlPlugins(root, path, true)
			if err != nil {
				return err
			}
			if i := yamlFindPlugin(seq, entry.Name); i >= 0 {
				if !replace {
					return exists()
				}
				seq.Content[i] = node
				return nil
			}
			seq.Content = append(seq.Content, node)
			return nil
		},
		tree: func(m map[string]any) error {
			list, err := treePlugins(m, path)
			if err != nil {
				return err
			}
			if i := treeFindPlugin(list, entry.Name); i >= 0 {
				if !replace {
					return exists()
				}
				list[i] = entry.fields()
			} else {
				list = append(list, entry.fields())
			}
			m["plugins"] = list
			return nil
		},
	}))
	return path, err
}

// RemovePlugin deletes the entry name from the plugins list of the scope's
// file. A name the file does not hold is an error wrapping ErrNoSuchPlugin
// that says where the plugin is defined, if anywhere.
func RemovePlugin(opts LoadOptions, scope Scope, name string) (string, error) {
	r, path, err := scopeTarget(opts, scope)
	if err != nil {
		return "", err
	}
	notHere := func() error {
		msg := fmt.Sprintf("config: %s: no plugin %q in this file", path, name)
		if other := pluginDefinedElsewhere(r, path, name); other != "" {
			msg += fmt.Sprintf(" (it is defined in %s)", other)
		}
		return fmt.Errorf("%s: %w", msg, ErrNoSuchPlugin)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return path, notHere()
	}
	err = editFile(r, path, scopeEdit(r, scope, fileEdit{
		yaml: func(root *yaml.Node) error {
			seq, err := yamlPlugins(root, path, false)
			if err != nil {
				return err
			}
			i := -1
			if seq != nil {
				i = yamlFindPlugin(seq, name)
			}
			if i < 0 {
				return notHere()
			}
			seq.Content = append(seq.Content[:i], seq.Content[i+1:]...)
			return nil
		},
		tree: func(m map[string]any) error {
			list, err := treePlugins(m, path)
			if err != nil {
				return err
			}
			i := treeFindPlugin(list, name)
			if i < 0 {
				return notHere()
			}
			m["plugins"] = append(list[:i], list[i+1:]...)
			return nil
		},
	}))
	return path, err
}

// pluginDefinedElsewhere returns the file, other than path, whose plugins
// list has an entry called name ("" if none). Every file layer counts,
// untrusted project files included: once trusted, a clash would break the
// later entry. A configuration that does not load is not checked: every
// command reports it, and once it loads, Load flags a clash on the later
// entry (which then fails closed).
func pluginDefinedElsewhere(r *resolved, path, name string) string {
	layers, _, err := readLayers(r, false)
	if err != nil {
		return ""
	}
	for _, l := range layers {
		if sameFile(l.source, path) {
			continue
		}
		for _, e := range l.plugins {
			if n, ok := e.fields["name"].(string); ok && n == name {
				return l.source
			}
		}
	}
	return ""
}

// yamlPlugins returns the plugins sequence of root; with create, an absent
// or null one is made. Without create, an absent list is nil.
func yamlPlugins(root *yaml.Node, path string, create bool) (*yaml.Node, error) {
	if i := yamlGet(root, "plugins"); !create && (i < 0 || yamlIsNull(root.Content[i+1])) {
		return nil, nil
	}
	seq := yamlCollection(root, "plugins", yaml.SequenceNode)
	if seq == nil {
		return nil, fmt.Errorf("config: %s: plugins: must be a plain list of plugin entries (an alias? edit it by hand)", path)
	}
	return seq, nil
}

// yamlFindPlugin returns the index in seq of the entry called name, or -1.
func yamlFindPlugin(seq *yaml.Node, name string) int {
	for i, item := range seq.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		if k := yamlGet(item, "name"); k >= 0 {
			if v := item.Content[k+1]; v.Kind == yaml.ScalarNode && v.Value == name {
				return i
			}
		}
	}
	return -1
}

// treePlugins returns the plugins list of a decoded JSON or TOML file.
func treePlugins(m map[string]any, path string) ([]any, error) {
	v, ok := m["plugins"]
	if !ok || v == nil {
		return nil, nil
	}
	switch list := v.(type) {
	case []any:
		return list, nil
	case []map[string]any: // TOML's array of tables
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("config: %s: plugins: must be a list of plugin entries (name, path, hooks...)", path)
}

// treeFindPlugin returns the index in list of the entry called name, or -1.
func treeFindPlugin(list []any, name string) int {
	for i, e := range list {
		if em, ok := e.(map[string]any); ok {
			if n, ok := em["name"].(string); ok && n == name {
				return i
			}
		}
	}
	return -1
}
