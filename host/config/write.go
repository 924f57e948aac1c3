package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ServerEntry is a server entry as written in a file: durations stay strings
// and unset fields are left out, so that what is written is what the user
// typed. ID is the key of the entry, not a field.
type ServerEntry struct {
	ID              string            `json:"-" yaml:"-" toml:"-"`
	Transport       string            `json:"transport,omitempty" yaml:"transport,omitempty" toml:"transport,omitempty"`
	Command         string            `json:"command,omitempty" yaml:"command,omitempty" toml:"command,omitempty"`
	Args            []string          `json:"args,omitempty" yaml:"args,omitempty" toml:"args,omitempty"`
	Env             map[string]string `json:"env,omitempty" yaml:"env,omitempty" toml:"env,omitempty"`
	EnvFile         string            `json:"env_file,omitempty" yaml:"env_file,omitempty" toml:"env_file,omitempty"` // KEY=VALUE lines; relative to the file's directory
	Cwd             string            `json:"cwd,omitempty" yaml:"cwd,omitempty" toml:"cwd,omitempty"`
	URL             string            `json:"url,omitempty" yaml:"url,omitempty" toml:"url,omitempty"`
	Headers         map[string]string `json:"headers,omitempty" yaml:"headers,omitempty" toml:"headers,omitempty"`
	Enabled         *bool             `json:"enabled,omitempty" yaml:"enabled,omitempty" toml:"enabled,omitempty"` // nil: default (true)
	StartupTimeout  string            `json:"startup_timeout,omitempty" yaml:"startup_timeout,omitempty" toml:"startup_timeout,omitempty"`
	RequestTimeout  string            `json:"request_timeout,omitempty" yaml:"request_timeout,omitempty" toml:"request_timeout,omitempty"`
	ProtocolVersion string            `json:"protocol_version,omitempty" yaml:"protocol_version,omitempty" toml:"protocol_version,omitempty"`
	Tools           *ToolsEntry       `json:"tools,omitempty" yaml:"tools,omitempty" toml:"tools,omitempty"`
	MaxMessageBytes int64             `json:"max_message_bytes,omitempty" yaml:"max_message_bytes,omitempty" toml:"max_message_bytes,omitempty"`
	HealthInterval  string            `json:"health_interval,omitempty" yaml:"health_interval,omitempty" toml:"health_interval,omitempty"` // a duration, or "off"
	Reconnect       *ReconnectEntry   `json:"reconnect,omitempty" yaml:"reconnect,omitempty" toml:"reconnect,omitempty"`
	// Auth and OAuth are the auth and oauth blocks as written (see Auth);
	// secrets in them are ${VAR} references.
	Auth  map[string]any `json:"auth,omitempty" yaml:"auth,omitempty" toml:"auth,omitempty"`
	OAuth map[string]any `json:"oauth,omitempty" yaml:"oauth,omitempty" toml:"oauth,omitempty"`
}

// blockList is a block's fields in a stable order: type first, then by name.
func blockList(m map[string]any) fieldList {
	var l fieldList
	if t, ok := m["type"]; ok {
		l = append(l, pair{"type", t})
	}
	for _, k := range sortedKeys(m) {
		if k != "type" {
			l = append(l, pair{k, m[k]})
		}
	}
	return l
}

// ToolsEntry is the file shape of ToolFilter.
type ToolsEntry struct {
	Allow []string `json:"allow,omitempty" yaml:"allow,omitempty" toml:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty" yaml:"deny,omitempty" toml:"deny,omitempty"`
}

// ReconnectEntry is the file shape of Reconnect: durations stay strings,
// unset fields are left out.
type ReconnectEntry struct {
	InitialDelay string `json:"initial_delay,omitempty" yaml:"initial_delay,omitempty" toml:"initial_delay,omitempty"`
	MaxDelay     string `json:"max_delay,omitempty" yaml:"max_delay,omitempty" toml:"max_delay,omitempty"`
	MaxAttempts  int    `json:"max_attempts,omitempty" yaml:"max_attempts,omitempty" toml:"max_attempts,omitempty"` // 0: no limit
}

type pair struct {
	key string
	val any
}

// fieldList is a nested map (tools, reconnect) whose keys are written to
// YAML in the documented order; toGeneric turns it into a plain map.
type fieldList []pair

// add appends the field k when it is set.
func (l *fieldList) add(k string, v any, set bool) {
	if set {
		*l = append(*l, pair{k, v})
	}
}

// node is l as a YAML mapping, keys in order.
func (l fieldList) node() (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, p := range l {
		var v yaml.Node
		if err := v.Encode(p.val); err != nil {
			return nil, fmt.Errorf("%s: %w", p.key, err)
		}
		n.Content = append(n.Content, yamlString(p.key), &v)
	}
	return n, nil
}

func (l fieldList) MarshalYAML() (any, error) { return l.node() }

// generic is l as a plain map, as a parser would give it.
func (l fieldList) generic() map[string]any {
	m := make(map[string]any, len(l))
	for _, p := range l {
		m[p.key] = toGeneric(p.val)
	}
	return m
}

// pairs lists the set fields in the documented order.
func (e ServerEntry) pairs() fieldList {
	var p fieldList
	p.add("transport", e.Transport, e.Transport != "")
	p.add("command", e.Command, e.Command != "")
	p.add("args", e.Args, len(e.Args) > 0)
	p.add("env", e.Env, len(e.Env) > 0)
	p.add("env_file", e.EnvFile, e.EnvFile != "")
	p.add("cwd", e.Cwd, e.Cwd != "")
	p.add("url", e.URL, e.URL != "")
	p.add("headers", e.Headers, len(e.Headers) > 0)
	if e.Enabled != nil {
		p.add("enabled", *e.Enabled, true)
	}
	p.add("startup_timeout", e.StartupTimeout, e.StartupTimeout != "")
	p.add("request_timeout", e.RequestTimeout, e.RequestTimeout != "")
	p.add("protocol_version", e.ProtocolVersion, e.ProtocolVersion != "")
	var t fieldList
	if e.Tools != nil {
		t.add("allow", e.Tools.Allow, len(e.Tools.Allow) > 0)
		t.add("deny", e.Tools.Deny, len(e.Tools.Deny) > 0)
	}
	p.add("tools", t, len(t) > 0)
	p.add("max_message_bytes", e.MaxMessageBytes, e.MaxMessageBytes != 0)
	p.add("health_interval", e.HealthInterval, e.HealthInterval != "")
	var rl fieldList
	if r := e.Reconnect; r != nil {
		rl.add("initial_delay", r.InitialDelay, r.InitialDelay != "")
		rl.add("max_delay", r.MaxDelay, r.MaxDelay != "")
		rl.add("max_attempts", r.MaxAttempts, r.MaxAttempts != 0)
	}
	p.add("reconnect", rl, len(rl) > 0)
	p.add("auth", blockList(e.Auth), len(e.Auth) > 0)
	p.add("oauth", blockList(e.OAuth), len(e.OAuth) > 0)
	return p
}

// fields returns the entry as a generic map, as a parser would give it.
func (e ServerEntry) fields() map[string]any { return e.pairs().generic() }

// Validate checks the entry by the rules Load applies. ${VAR} references
// are checked for syntax only (the variables need not be set now), and a
// url holding a reference is checked when it is loaded.
func (e ServerEntry) Validate() error {
	return e.validate("new entry", kindExplicit, "")
}

// ErrServerExists is wrapped by AddServer's error when the id is already in
// the file and replace was not asked for.
var ErrServerExists = errors.New("server already exists")

// validate checks the entry as an entry of a file of kind at source, whose
// relative paths are taken from dir: an entry for a project file may not
// name a keychain secret or an env_file outside the project.
func (e ServerEntry) validate(source string, kind layerKind, dir string) error {
	l := &layer{kind: kind, source: source, dir: dir, servers: map[string]*layerEntry{}}
	ms := &mergedServer{id: e.ID, fields: e.fields(), origins: map[string]int{}}
	anyVar := func(string) (string, bool) { return "value", true }
	return decodeServer(ms, []*layer{l}, lookups{env: anyVar}, "", true).Err
}

// ParseServerEntry reads one server entry from JSON, in mcphost's shape or
// Claude Code's ({"type":"http","url":...}), for `mcp add-json`. Unknown
// fields are errors; the transport is written in mcphost's spelling.
func ParseServerEntry(id string, data []byte) (ServerEntry, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return ServerEntry{}, fmt.Errorf("config: server %q: not a JSON object: %s", id, cleanJSONError(err))
	}
	l := &layer{kind: kindExplicit, source: "entry"}
	f, errs := normalizeEntry(l, id, toGeneric(raw))
	if len(errs) > 0 {
		return ServerEntry{}, joinErrors(errs)
	}
	e := ServerEntry{ID: id}
	var bad []string
	str := func(k string) string {
		v, ok := f[k]
		if !ok {
			return ""
		}
		s, ok := scalarString(v)
		if !ok {
			bad = append(bad, k)
		}
		return s
	}
	strMap := func(k string) map[string]string {
		v, ok := f[k]
		if !ok {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			bad = append(bad, k)
			return nil
		}
		out := map[string]string{}
		for mk, mv := range m {
			s, ok := scalarString(mv)
			if !ok {
				bad = append(bad, k+"."+mk)
			}
			out[mk] = s
		}
		return out
	}
	list := func(k string, v any) []string {
		if v == nil {
			return nil
		}
		l, ok := scalarList(v)
		if !ok {
			bad = append(bad, k)
		}
		return l
	}
	durOf := func(k string, v any) string {
		if s, ok := v.(string); ok {
			return s
		}
		d, msg := parseDuration(v)
		if msg != "" {
			bad = append(bad, k)
			return ""
		}
		return d.String()
	}
	dur := func(k string) string {
		v, ok := f[k]
		if !ok {
			return ""
		}
		return durOf(k, v)
	}
	e.Transport = str("transport")
	if t, ok := normalizeTransport(e.Transport); ok {
		e.Transport = t
	}
	e.Command = str("command")
	e.Args = list("args", f["args"])
	e.Env = strMap("env")
	e.EnvFile = str("env_file")
	e.Cwd = str("cwd")
	e.URL = str("url")
	e.Headers = strMap("headers")
	if v, ok := f["enabled"]; ok {
		b, ok := asBool(v)
		if !ok {
			bad = append(bad, "enabled")
		}
		e.Enabled = &b
	}
	e.StartupTimeout = dur("startup_timeout")
	e.RequestTimeout = dur("request_timeout")
	e.ProtocolVersion = str("protocol_version")
	if v, ok := f["tools"]; ok {
		tm, ok := v.(map[string]any)
		if !ok {
			bad = append(bad, "tools")
		}
		e.Tools = &ToolsEntry{Allow: list("tools.allow", tm["allow"]), Deny: list("tools.deny", tm["deny"])}
	}
	if v, ok := f["max_message_bytes"]; ok {
		n, ok := asInt(v)
		if !ok {
			bad = append(bad, "max_message_bytes")
		}
		e.MaxMessageBytes = n
	}
	if v, ok := f["health_interval"]; ok {
		if _, isStr := v.(string); !isStr && healthOff(v) {
			e.HealthInterval = "off" // 0 or false, written as the word
		} else {
			e.HealthInterval = durOf("health_interval", v)
		}
	}
	if v, ok := f["reconnect"]; ok {
		rm, ok := v.(map[string]any)
		if !ok {
			bad = append(bad, "reconnect")
		}
		r := &ReconnectEntry{}
		if dv, ok := rm["initial_delay"]; ok {
			r.InitialDelay = durOf("reconnect.initial_delay", dv)
		}
		if dv, ok := rm["max_delay"]; ok {
			r.MaxDelay = durOf("reconnect.max_delay", dv)
		}
		if av, ok := rm["max_attempts"]; ok {
			n, ok := asInt(av)
			if !ok || n < math.MinInt32 || n > math.MaxInt32 {
				bad = append(bad, "reconnect.max_attempts")
			}
			r.MaxAttempts = int(n)
		}
		e.Reconnect = r
	}
	for _, k := range []string{"auth", "oauth", "authorization"} {
		v, ok := f[k]
		if !ok {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			bad = append(bad, k)
			continue
		}
		if k == "authorization" {
			// Written as the oauth block it means.
			m = maps.Clone(m)
			delete(m, "type")
			e.OAuth = m
		} else if k == "auth" {
			e.Auth = m
		} else {
			e.OAuth = m
		}
	}
	if len(bad) > 0 {
		return ServerEntry{}, fmt.Errorf("config: server %q: fields of the wrong type: %s", id, strings.Join(bad, ", "))
	}
	if err := e.Validate(); err != nil {
		return ServerEntry{}, err
	}
	return e, nil
}

// AddServer writes entry into the scope's file. An entry with the same id is
// an error unless replace is set, in which case it is replaced as a whole.
// The entry is validated first; an invalid one is not written. The entry is
// one the user typed (mcp add): a trusted project stays trusted.
func AddServer(opts LoadOptions, scope Scope, entry ServerEntry, replace bool) (string, error) {
	return AddServerWith(opts, scope, entry, AddOptions{Replace: replace})
}

// AddOptions says how AddServerWith writes an entry.
type AddOptions struct {
	// Replace replaces an entry with the same id as a whole; without it,
	// the id already in the file is an error wrapping ErrServerExists.
	Replace bool
	// Untyped marks an entry the user did not type: imported from another
	// client's file, or pasted as JSON. Written into a trusted project's
	// file, it does not keep the project trusted (as the user's own edits
	// through mcphost do): the project's servers start again only once the
	// user has read the file and run "mcphost trust".
	Untyped bool
}

// AddServerWith is AddServer with options.
func AddServerWith(opts LoadOptions, scope Scope, entry ServerEntry, o AddOptions) (string, error) {
	replace := o.Replace
	r, path, err := scopeTarget(opts, scope)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if scope != ScopeUser {
		dir = r.workDir
	}
	if err := entry.validate(path, scopeKind(scope), dir); err != nil {
		return path, fmt.Errorf("%w\nconfig: %s: not written", err, path)
	}
	if reason, err := managedRefusal(r, scope, entry); err != nil || reason != "" {
		if err != nil {
			return path, err
		}
		return path, fmt.Errorf("config: server %q: %s\nconfig: %s: not written", entry.ID, reason, path)
	}
	exists := func() error {
		return fmt.Errorf("config: %s: server %q: %w (remove it first, or replace it)", path, entry.ID, ErrServerExists)
	}
	edit := scopeEdit(r, scope, fileEdit{
		yaml: func(root *yaml.Node) error {
			node, err := entry.yamlNode()
			if err != nil {
				return err
			}
			m, i, err := yamlFindEntry(root, entry.ID)
			if err != nil {
				return err
			}
			if m != nil {
				if !replace {
					return exists()
				}
				m.Content[i+1] = node
				return nil
			}
			servers, err := yamlServersForAdd(root)
			if err != nil {
				return err
			}
			servers.Content = append(servers.Content, yamlString(entry.ID), node)
			return nil
		},
		tree: func(m map[string]any) error {
			servers, err := treeFindEntry(m, entry.ID)
			if err != nil {
				return err
			}
			if servers != nil && !replace {
				return exists()
			}
			if servers == nil {
				if servers, err = treeServersForAdd(m); err != nil {
					return err
				}
			}
			servers[entry.ID] = entry.fields()
			return nil
		},
	})
	if o.Untyped {
		edit = edit.untyped()
	}
	return path, editFile(r, path, edit)
}

// RemoveServer deletes the entry id from the scope's file; an id that is not
// in that file (or a file that does not exist) is an error naming the file
// and saying where the server comes from instead, if anywhere.
func RemoveServer(opts LoadOptions, scope Scope, id string) (string, error) {
	r, path, err := scopeTarget(opts, scope)
	if err != nil {
		return "", err
	}
	notHere := func() error { return notInScope(opts, r, scope, path, true, id) }
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return path, notInScope(opts, r, scope, path, false, id)
	}
	err = editFile(r, path, scopeEdit(r, scope, fileEdit{
		yaml: func(root *yaml.Node) error {
			m, i, err := yamlFindEntry(root, id)
			if err != nil {
				return err
			}
			if m == nil {
				return notHere()
			}
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return nil
		},
		tree: func(m map[string]any) error {
			servers, err := treeFindEntry(m, id)
			if err != nil {
				return err
			}
			if servers == nil {
				return notHere()
			}
			delete(servers, id)
			return nil
		},
	}))
	return path, err
}

// RemoveServerAnyScope removes the entry id from the one scope whose file
// has it (see ServerScopes) and returns that file and scope. When no
// scope's file has it, the error says where the server comes from; when
// several do, it wraps ErrSeveralScopes and names them, and nothing is
// removed.
func RemoveServerAnyScope(opts LoadOptions, id string) (string, Scope, error) {
	scopes, files, err := ServerScopes(opts, id)
	if err != nil {
		return "", "", err
	}
	switch len(scopes) {
	case 0:
		return "", "", fmt.Errorf("config: no local, project or user file defines server %q; %s", id, whereFrom(opts, id, ""))
	case 1:
		path, err := RemoveServer(opts, scopes[0], id)
		return path, scopes[0], err
	}
	where := make([]string, len(scopes))
	for i, s := range scopes {
		where[i] = fmt.Sprintf("%s (%s)", s, files[i])
	}
	return "", "", fmt.Errorf("config: server %q is %w: %s; choose the scope to remove it from", id, ErrSeveralScopes, strings.Join(where, ", "))
}

// SetEnabled sets enabled on the entry id in the scope's file. If the file
// has no such entry but another layer defines the server, the local or
// project scope gets an override entry holding only "enabled": that is how
// a user switches off, in one directory, a server defined elsewhere,
// without copying it. The user scope takes no such override: it would show
// up, incomplete, in every other project.
func SetEnabled(opts LoadOptions, scope Scope, id string, enabled bool) (string, error) {
	r, path, err := scopeTarget(opts, scope)
	if err != nil {
		return "", err
	}
	// Whether the id exists anywhere, for the override case.
	definedElsewhere := func() (string, error) {
		layers, _, err := readLayers(r, true)
		if err != nil {
			return "", err
		}
		src := ""
		for _, l := range layers {
			if _, ok := l.servers[id]; ok && l.source != path {
				src = l.source
			}
		}
		if src == "" {
			return "", fmt.Errorf("config: no server %q is configured (not in %s nor any other layer)", id, path)
		}
		if scope == ScopeUser {
			// An override in the user file would show up, incomplete, in
			// every other project.
			return "", fmt.Errorf("config: %s: server %q is defined in %s, not in the user file; use the local scope (only you, here) or the project scope to override it", path, id, src)
		}
		return src, nil
	}
	err = editFile(r, path, scopeEdit(r, scope, fileEdit{
		yaml: func(root *yaml.Node) error {
			m, i, err := yamlFindEntry(root, id)
			if err != nil {
				return err
			}
			if m == nil {
				if _, err := definedElsewhere(); err != nil {
					return err
				}
				servers, err := yamlServersForAdd(root)
				if err != nil {
					return err
				}
				entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				servers.Content = append(servers.Content, yamlString(id), entry)
				return yamlSet(entry, "enabled", yamlBool(enabled))
			}
			entry := m.Content[i+1]
			if yamlIsNull(entry) {
				entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				m.Content[i+1] = entry
			}
			if entry.Kind != yaml.MappingNode {
				return fmt.Errorf("config: %s: server %q: the entry is not a plain map (an alias?); edit it by hand", path, id)
			}
			return yamlSet(entry, "enabled", yamlBool(enabled))
		},
		tree: func(m map[string]any) error {
			servers, err := treeFindEntry(m, id)
			if err != nil {
				return err
			}
			if servers == nil {
				if _, err := definedElsewhere(); err != nil {
					return err
				}
				if servers, err = treeServersForAdd(m); err != nil {
					return err
				}
				servers[id] = map[string]any{"enabled": enabled}
				return nil
			}
			entry, ok := servers[id].(map[string]any)
			if servers[id] != nil && !ok {
				return fmt.Errorf("config: %s: server %q: the entry is not a map", path, id)
			}
			if entry == nil {
				entry = map[string]any{}
				servers[id] = entry
			}
			entry["enabled"] = enabled
			return nil
		},
	}))
	return path, err
}

// yamlNode is spelled out for trust.go, which needs no yaml import otherwise.
type yamlNode = yaml.Node
