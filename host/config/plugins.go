package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcphost/mcphost/pdk/glob"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The plugins section: WebAssembly plugins that run as stages of the call
// pipeline (package plugins loads them). It is a list, not a map, because
// order matters: hooks of several plugins run in list order.
//
// Layers are additive. The chain is the global file's plugins, then the
// project file's (.mcphost.*), then the --config file's, each in its own
// order. A name that a lower layer already uses is an error on the later
// entry: a higher layer can add stages but can neither remove nor relax one
// that a lower layer installed (first deny wins, so an added policy can only
// tighten). Claude Code's .mcp.json, MCPHOST_* variables and Overrides set
// no plugins.

// Plugin defaults and bounds.
const (
	DefaultPluginTimeout  = 100 * time.Millisecond
	DefaultPluginMemoryMB = 64
	// DefaultPluginMaxOutputBytes bounds what one hook call may return. 1 MiB
	// is far above any policy, filter, name or auth answer; a transform of a
	// larger result must raise it, and timeout_ms with it (moving a MiB across
	// the Extism boundary costs about 20 ms).
	DefaultPluginMaxOutputBytes = 1 << 20

	MaxPluginTimeout  = 60 * time.Second
	MaxPluginMemoryMB = 4096 // a wasm32 memory cannot be larger
	// MaxPluginOutputBytes is a sanity bound: an output must fit in memory_mb.
	MaxPluginOutputBytes = 1 << 30
)

// OnError values of a plugin entry; package host's OnError* values are
// these (it imports this package, not the other way round).
const (
	OnErrorDeny     = "deny"
	OnErrorAllow    = "allow"
	OnErrorFallback = "fallback"
)

// Modes of a plugin entry (the host's Mode* values).
const (
	ModeEnforce = "enforce"
	ModeShadow  = "shadow"
)

// Plugin is one entry of the plugins list after validation.
type Plugin struct {
	// Name is unique in the merged list and matches ^[a-zA-Z0-9_-]{1,64}$.
	// It names the stage in logs, audit events and errors.
	Name string
	// Path is the absolute path of the .wasm file (a relative path in a file
	// is taken from that file's directory; ${VAR} references are expanded).
	Path string
	// SHA256 is the pinned hash in lower-case hex; "" means not pinned.
	SHA256 string
	// Hooks limits the plugin to these hooks; empty means every hook its
	// mcphost_describe lists.
	Hooks []abi.Hook
	// Servers are globs of the server ids the plugin
	// applies to; empty means all.
	Servers []string
	// Config is handed to the guest as Extism config (config_get). Values
	// are literal: nothing from the environment reaches a plugin except
	// through Secrets.
	Config map[string]string
	Limits PluginLimits
	// Secrets are the secrets the plugin may read with mcphost_secret, by
	// name, with their values taken from the environment at load time.
	// Printing them shows the names only.
	Secrets Secrets
	// AllowedHosts are host-name globs that mcphost_http may reach (auth
	// plugins only). Empty: no HTTP at all.
	AllowedHosts []string
	// AllowPrivate lets mcphost_http reach loopback, private and link-local
	// addresses, and plain http:// URLs.
	AllowPrivate bool
	// OnError is OnErrorDeny, OnErrorAllow or OnErrorFallback; "" means the
	// hook's default (deny; map_names: fallback).
	OnError string
	// Mode is ModeEnforce (default) or ModeShadow.
	Mode string

	// Source is the file the entry came from.
	Source string
	// Untrusted is set for entries from project files of a directory that
	// has not been trusted (see Server.Untrusted). Such plugins are not
	// loaded and take no part in the chain; their secrets are not read.
	Untrusted bool
	// Blocked, when not empty, says which rule of the managed layer keeps
	// the plugin out of the chain (its plugins setting): it is not loaded.
	Blocked string
	// Err is a problem with this entry; it names the file, the plugin and
	// the field. A plugin with Err is not loaded, but it still takes its
	// place in the chain as a stage that fails every call, so that with
	// on_error deny (the default) a broken policy denies rather than lets
	// calls through. Hooks, OnError and Mode hold what could be read.
	Err error
}

// PluginLimits bound every call of a plugin's hooks.
type PluginLimits struct {
	Timeout        time.Duration // timeout_ms
	MemoryMB       int           // memory_mb: cap of each linear memory
	MaxOutputBytes int64         // max_output_bytes
}

// DefaultPluginLimits returns the limits of an entry that sets none.
func DefaultPluginLimits() PluginLimits {
	return PluginLimits{Timeout: DefaultPluginTimeout, MemoryMB: DefaultPluginMemoryMB, MaxOutputBytes: DefaultPluginMaxOutputBytes}
}

// Secrets maps secret names to values. It prints (fmt, JSON) with the values
// redacted, so that a Plugin can be logged.
type Secrets map[string]string

func (s Secrets) String() string {
	names := sortedKeys(s)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ":<redacted>"
	}
	return "map[" + strings.Join(parts, " ") + "]"
}

// Format prints String for every verb (%v, %+v, %#v, %s, %q...).
func (s Secrets) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// MarshalJSON writes the names with redacted values.
func (s Secrets) MarshalJSON() ([]byte, error) {
	m := make(map[string]string, len(s))
	for k := range s {
		m[k] = "<redacted>"
	}
	return json.Marshal(m)
}

// Names returns the secret names, sorted.
func (s Secrets) Names() []string { return sortedKeys(s) }

// pluginFields are the fields of a plugin entry, in documented order.
var pluginFields = []string{
	"name", "path", "sha256", "hooks", "servers", "config", "limits", "secrets",
	"allowed_hosts", "allow_private", "on_error", "mode",
}

var limitsFields = []string{"timeout_ms", "memory_mb", "max_output_bytes"}

var (
	sha256Pattern     = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	secretNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)
	secretRefPattern  = regexp.MustCompile(`^\$\{(?:([A-Za-z_][A-Za-z0-9_]*)|secret:([A-Za-z0-9_.-]{1,64}))\}$`)
	hostGlobPattern   = regexp.MustCompile(`^[a-z0-9*?.\[\]-]+$`)
)

// pluginEntry is one raw entry of one layer's plugins list.
type pluginEntry struct {
	layer  *layer
	index  int // position in the file's list, for errors about unnamed entries
	fields map[string]any
	errs   []error
}

// errorf formats a per-plugin error: `config: FILE: plugin "NAME": FIELD: MSG`.
func (e *pluginEntry) errorf(field, format string, args ...any) error {
	who := fmt.Sprintf("plugins[%d]", e.index)
	if n, ok := e.fields["name"].(string); ok && n != "" {
		who = fmt.Sprintf("plugin %q", n)
	}
	msg := fmt.Sprintf(format, args...)
	if field == "" {
		return fmt.Errorf("config: %s: %s: %s", e.layer.source, who, msg)
	}
	return fmt.Errorf("config: %s: %s: %s: %s", e.layer.source, who, field, msg)
}

// addPlugins reads a layer's plugins list. A value that is not a list makes
// the file unusable (as a servers value that is not a map does); problems in
// one entry stay with that entry.
func (l *layer) addPlugins(raw any) []error {
	if raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return []error{fmt.Errorf("config: %s: plugins: must be a list of plugin entries (name, path, hooks...)", l.source)}
	}
	for i, item := range list {
		e := &pluginEntry{layer: l, index: i, fields: map[string]any{}}
		l.plugins = append(l.plugins, e)
		m, ok := item.(map[string]any)
		if !ok {
			e.errs = append(e.errs, e.errorf("", "the entry must be a map of fields (name, path, hooks...)"))
			continue
		}
		if n, ok := m["name"].(string); ok {
			e.fields["name"] = n // so that errors about other fields name the plugin
		}
		for _, k := range sortedKeys(m) {
			if !contains(pluginFields, k) {
				e.errs = append(e.errs, e.errorf("", "unknown field %q%s", k, suggest(k, pluginFields)))
				continue
			}
			e.fields[k] = m[k]
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, k := range list {
		if k == s {
			return true
		}
	}
	return false
}

// buildPlugins merges the layers' plugin lists (lowest layer first, each in
// its order) and validates every entry.
func buildPlugins(layers []*layer, lk lookups) []*Plugin {
	var out []*Plugin
	seen := map[string]*Plugin{}
	for _, l := range layers {
		for _, e := range l.plugins {
			p := decodePluginWith(e, lk)
			if p.Name != "" && ValidID(p.Name) {
				if prev, dup := seen[p.Name]; dup {
					where := "earlier in this file"
					if prev.Source != p.Source {
						where = "in " + prev.Source
					}
					p.Err = appendErr(p.Err, e.errorf("name", "plugin %q is already defined %s; plugin names are unique, and a later file can add plugins but not change or replace one (use another name)", p.Name, where))
				} else {
					seen[p.Name] = p
				}
			}
			out = append(out, p)
		}
	}
	return out
}

func appendErr(err, more error) error {
	if err == nil {
		return more
	}
	var errs []error
	if m, ok := err.(*multiError); ok {
		errs = append(errs, m.errs...)
	} else {
		errs = append(errs, err)
	}
	return joinErrors(append(errs, more))
}

// decodePlugin validates one entry, resolving no ${secret:NAME} (they are
// checked for syntax). No message ever quotes a secret value.
func decodePlugin(e *pluginEntry, lookup func(string) (string, bool)) *Plugin {
	return decodePluginWith(e, lookups{env: lookup, secret: func(string) (string, error) { return "value", nil }})
}

// decodePluginWith validates one entry, with lk for its references.
func decodePluginWith(e *pluginEntry, lk lookups) *Plugin {
	lookup := lk.env
	l := e.layer
	p := &Plugin{
		Limits:    DefaultPluginLimits(),
		Mode:      ModeEnforce,
		Source:    l.source,
		Untrusted: l.untrusted,
	}
	errs := append([]error(nil), e.errs...)
	fail := func(field, format string, args ...any) {
		errs = append(errs, e.errorf(field, format, args...))
	}
	f := e.fields
	str := func(field string) (string, bool) {
		v, ok := f[field]
		if !ok || v == nil {
			return "", false
		}
		s, ok := v.(string)
		if !ok {
			fail(field, "must be a string")
			return "", false
		}
		return s, true
	}

	if name, ok := str("name"); ok {
		p.Name = name
		if !ValidID(name) {
			fail("name", "bad name %q: it must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, _ and -)", name)
		}
	} else if _, isSet := f["name"]; !isSet {
		fail("name", "missing: every plugin needs a unique name")
	}
	if raw, ok := str("path"); ok {
		pth, err := Expand(raw, lookup)
		switch {
		case err != nil:
			fail("path", "%v", err)
		case pth == "":
			fail("path", "is empty")
		default:
			if !filepath.IsAbs(pth) {
				pth = filepath.Join(l.dir, pth)
			}
			p.Path = filepath.Clean(pth)
		}
	} else if _, isSet := f["path"]; !isSet {
		fail("path", "missing: the .wasm file to load")
	}
	if h, ok := str("sha256"); ok {
		h = strings.TrimSpace(h)
		if !sha256Pattern.MatchString(h) {
			fail("sha256", "%q is not a SHA-256 hash (64 hex digits, as sha256sum prints)", h)
		} else {
			p.SHA256 = strings.ToLower(h)
		}
	}
	if v, ok := f["hooks"]; ok && v != nil {
		list, ok := listOf(v)
		if !ok {
			fail("hooks", "must be a list of hooks (policy, filter_tools, map_names, transform_result, auth)")
		}
		seenHook := map[abi.Hook]bool{}
		for _, s := range list {
			h, err := abi.ParseHook(s)
			if err != nil {
				fail("hooks", "unknown hook %q%s (known: policy, filter_tools, map_names, transform_result, auth)", s, suggest(s, hookNames()))
				continue
			}
			if seenHook[h] {
				fail("hooks", "%q is listed twice", s)
				continue
			}
			seenHook[h] = true
			p.Hooks = append(p.Hooks, h)
		}
	}
	if v, ok := f["servers"]; ok && v != nil {
		list, ok := listOf(v)
		if !ok {
			fail("servers", "must be a list of server-id globs")
		}
		for _, g := range list {
			if g == "" {
				fail("servers", "empty glob")
				continue
			}
			if err := glob.Valid(g); err != nil {
				fail("servers", "%v (syntax: * ? [abc])", err)
				continue
			}
			p.Servers = append(p.Servers, g)
		}
	}
	if v, ok := f["config"]; ok && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			fail("config", "must be a map of names to strings")
		} else {
			p.Config = make(map[string]string, len(m))
			for _, k := range sortedKeys(m) {
				s, ok := scalarString(m[k])
				if !ok {
					fail("config."+k, "value must be a string")
					continue
				}
				p.Config[k] = s
			}
		}
	}
	decodeLimits(f["limits"], &p.Limits, fail)
	if v, ok := f["secrets"]; ok && v != nil {
		p.Secrets = decodeSecrets(v, !l.untrusted, l.fromProject(), lk, fail)
	}
	if v, ok := f["allowed_hosts"]; ok && v != nil {
		list, ok := listOf(v)
		if !ok {
			fail("allowed_hosts", "must be a list of host-name globs")
		}
		for _, h := range list {
			g, ok := AllowedHost(h)
			if !ok {
				fail("allowed_hosts", "%q is not a host-name glob (like \"auth.example.com\" or \"*.example.com\"; no scheme, port or path)", h)
				continue
			}
			p.AllowedHosts = append(p.AllowedHosts, g)
		}
		if len(p.AllowedHosts) > 0 && len(p.Hooks) > 0 && !slices.Contains(p.Hooks, abi.HookAuth) {
			fail("allowed_hosts", "only auth plugins may make HTTP requests; add auth to hooks or remove allowed_hosts")
		}
	}
	if v, ok := f["allow_private"]; ok && v != nil {
		b, ok := asBool(v)
		if !ok {
			fail("allow_private", "must be true or false")
		}
		p.AllowPrivate = b
	}
	if s, ok := str("on_error"); ok {
		switch s {
		case OnErrorDeny, OnErrorAllow:
			p.OnError = s
		case OnErrorFallback:
			p.OnError = s
			if len(p.Hooks) > 0 && (len(p.Hooks) != 1 || p.Hooks[0] != abi.HookMapNames) {
				fail("on_error", "fallback is only for map_names (the built-in mapping takes over); use deny or allow")
			}
		default:
			fail("on_error", "%q is not deny, allow or fallback", s)
		}
	}
	if s, ok := str("mode"); ok {
		switch s {
		case ModeEnforce, ModeShadow:
			p.Mode = s
		default:
			fail("mode", "%q is not enforce or shadow", s)
		}
	}
	if len(errs) > 0 {
		p.Err = joinErrors(errs)
	}
	return p
}

func hookNames() []string {
	out := make([]string, len(abi.Hooks))
	for i, h := range abi.Hooks {
		out[i] = string(h)
	}
	return out
}

// listOf accepts a list of strings, or one string for a list of one.
func listOf(v any) ([]string, bool) {
	if s, ok := v.(string); ok {
		return []string{s}, true
	}
	return scalarList(v)
}

// AllowedHost checks an allowed_hosts entry: a host-name glob (pdk/glob
// syntax) with no scheme, port or path. It returns the entry as the
// configuration keeps it (trimmed, lower-cased).
func AllowedHost(h string) (string, bool) {
	g := strings.ToLower(strings.TrimSpace(h))
	return g, g != "" && glob.Valid(g) == nil && hostGlobPattern.MatchString(g)
}

func decodeLimits(v any, lim *PluginLimits, fail func(field, format string, args ...any)) {
	if v == nil {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		fail("limits", "must be a map with timeout_ms, memory_mb and max_output_bytes")
		return
	}
	for _, k := range sortedKeys(m) {
		if !contains(limitsFields, k) {
			fail("limits", "unknown field %q%s", k, suggest(k, limitsFields))
			continue
		}
		if m[k] == nil {
			continue
		}
		n, ok := asInt(m[k])
		field := "limits." + k
		switch k {
		case "timeout_ms":
			if !ok || n < 1 || n > MaxPluginTimeout.Milliseconds() {
				fail(field, "%s must be a whole number of milliseconds from 1 to %d", quoteValue(m[k]), MaxPluginTimeout.Milliseconds())
				continue
			}
			lim.Timeout = time.Duration(n) * time.Millisecond
		case "memory_mb":
			if !ok || n < 1 || n > MaxPluginMemoryMB {
				fail(field, "%s must be a whole number of MiB from 1 to %d", quoteValue(m[k]), MaxPluginMemoryMB)
				continue
			}
			lim.MemoryMB = int(n)
		case "max_output_bytes":
			if !ok || n < 1 || n > MaxPluginOutputBytes {
				fail(field, "%s must be a whole number of bytes from 1 to %d", quoteValue(m[k]), MaxPluginOutputBytes)
				continue
			}
			lim.MaxOutputBytes = n
		}
	}
}

// decodeSecrets reads `secrets: {NAME: "${VAR}"}`. Each value must be exactly
// one ${VAR} reference, or (outside project files) one ${secret:NAME}
// reference to the OS keychain: secret values come from the environment or
// the keychain, never from a file that may be shared or committed, and the
// file shows which variable each plugin can read. With resolve false
// (untrusted entries) nothing is read at all. A project file may not name a
// keychain secret: a cloned repository's plugin could send it anywhere it
// is allowed to.
func decodeSecrets(v any, resolve, fromProject bool, lk lookups, fail func(field, format string, args ...any)) Secrets {
	m, ok := v.(map[string]any)
	if !ok {
		fail("secrets", `must be a map of secret names to "${VAR}" references, like {token: "${GITHUB_TOKEN}"}`)
		return nil
	}
	out := Secrets{}
	for _, name := range sortedKeys(m) {
		field := "secrets." + name
		if !secretNamePattern.MatchString(name) {
			fail("secrets", "bad secret name %q (letters, digits, _ . and -, at most 64)", name)
			continue
		}
		ref, ok := m[name].(string)
		sub := secretRefPattern.FindStringSubmatch(strings.TrimSpace(ref))
		if !ok || sub == nil {
			// Never quote the value: it may be the secret itself.
			fail(field, `must be a reference to an environment variable, like "${MY_TOKEN}", or to the OS keychain, like "${secret:my-token}": secret values are never written in config files`)
			continue
		}
		if keychain := sub[2]; keychain != "" {
			if fromProject {
				fail(field, "${secret:%s} is not allowed in a project file (a cloned repository's plugin could send your keychain secret anywhere it may reach); use ${VAR}, or add the plugin in your user or local file", keychain)
				continue
			}
			if !resolve {
				continue
			}
			if lk.secret == nil {
				fail(field, "%v", &SecretError{Name: keychain, Err: errNoSecretStore})
				continue
			}
			val, err := lk.secret(keychain)
			switch {
			case err != nil:
				fail(field, "%v", &SecretError{Name: keychain, Err: err})
			case val == "":
				fail(field, "secret %q is empty", keychain)
			default:
				out[name] = val
			}
			continue
		}
		if !resolve {
			continue
		}
		val, set := lk.env(sub[1])
		switch {
		case !set:
			fail(field, "variable %q is not set", sub[1])
		case val == "":
			fail(field, "variable %q is empty", sub[1])
		default:
			out[name] = val
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pluginsFrom keeps the plugins whose Source is one of files (LoadScope).
func pluginsFrom(all []*Plugin, files []string) []*Plugin {
	keep := map[string]bool{}
	for _, f := range files {
		keep[f] = true
	}
	var out []*Plugin
	for _, p := range all {
		if keep[p.Source] {
			out = append(out, p)
		}
	}
	return out
}
