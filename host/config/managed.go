package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcphost/mcphost/pdk/glob"
)

// The managed layer: an administrator's configuration in a system
// directory, which the user's files, a project and --config cannot weaken.
//
// It is read before every other layer, so that its plugins come first in
// the chain, and everything above it is then held to it: its policy and
// limits are floors (as a project's are for the user's, the other way
// round), its servers can only be switched off or given more deny globs,
// its lock_settings keys are dropped from the other layers, and its server
// rules block the other layers' servers. Its own rules live under the
// managed: key, which no other file may hold.

// managedBase is the name of the managed file: <dir>/managed.{yaml,yml,json,toml}.
const managedBase = "managed"

// managedDropIn is the directory of managed fragments, merged in name order
// after the managed file: a fleet tool can drop one file per concern.
const managedDropIn = "managed.d"

// defaultManagedDir, when set at build time, replaces the system directory
// of SystemManagedDir. It is for packagers whose system prefix differs
// (-ldflags "-X github.com/mcphost/mcphost/host/config.defaultManagedDir=/opt/corp/mcphost")
// and for tests of the built command. Nothing a user sets at run time
// moves it.
var defaultManagedDir string

// SystemManagedDir is the directory mcphost reads the managed layer from
// when LoadOptions.ManagedDir is empty: /etc/mcphost on Linux and other
// Unix systems, /Library/Application Support/mcphost on macOS and
// %ProgramData%\mcphost on Windows (the known folder, not the variable).
func SystemManagedDir() string {
	if defaultManagedDir != "" {
		return defaultManagedDir
	}
	return systemManagedDir()
}

// Values of Managed.Plugins: what the other layers may add to the chain.
const (
	PluginsAny         = "any"          // any plugin (the default)
	PluginsPinned      = "pinned"       // only plugins pinned with sha256
	PluginsManagedOnly = "managed_only" // none: only the managed layer's plugins run
)

// Managed is what the managed layer says beyond an ordinary configuration:
// its rules, and where it was read from. Config.Managed is nil when there
// is no managed file.
type Managed struct {
	// Dir is the directory searched; Files the files read, in merge order.
	Dir   string
	Files []string
	// AllowedServers, when not nil, is the list a server of another layer
	// must match to run (an empty list allows none). DeniedServers block
	// what they match, and win over AllowedServers.
	AllowedServers []ServerRule
	DeniedServers  []ServerRule
	// AllowUserServers and AllowProjectServers, when false, block every
	// server of the user's own layers (user and local files, --config,
	// MCPHOST_* variables, flags) or of the project's files that the
	// managed layer does not define itself.
	AllowUserServers    bool
	AllowProjectServers bool
	// AllowUserFrom and AllowProjectFrom name the file that set the two
	// flags, for messages.
	AllowUserFrom, AllowProjectFrom string
	// Plugins is PluginsAny, PluginsPinned or PluginsManagedOnly.
	Plugins     string
	PluginsFrom string // the file that set Plugins, for messages
	// RequireSignedPlugins asks that every plugin be verified by its
	// signature. mcphost records it; verification of signed plugins
	// arrives with plugins from OCI registries, and until then it is
	// reported by doctor, not enforced.
	RequireSignedPlugins bool
	// LockSettings are the keys (dotted: "names.scheme", "policy",
	// "servers.github") that no other layer may set: a value another layer
	// gives one of them, or anything under it, is ignored with a warning.
	LockSettings []string
	// Servers are the ids the managed layer defines.
	Servers []string
}

// ServerRule is one entry of allowed_servers or denied_servers. Every
// field that is set must match (an entry with several fields is an "and").
type ServerRule struct {
	// ID is a glob of the server id.
	ID string `json:"id,omitempty"`
	// Command is a glob of the command that would run. In an allow rule,
	// a bare name ("npx") matches only a server that runs that name from
	// the PATH (not a file of that name elsewhere, not with a PATH of its
	// own), a path glob the file once links are followed; in a deny rule,
	// any spelling of it (base name, relative, cleaned, linked).
	Command string `json:"command,omitempty"`
	// Args, when set, are globs matched against the arguments one by one;
	// the lists must be of the same length, except that a last glob "**"
	// matches any remaining arguments (none included).
	Args []string `json:"args,omitempty"`
	// URL is scheme://host/path with a glob in each part, matched part by
	// part (a host glob never reaches into the path) against the server's
	// URL: scheme and host in lower case, no trailing dot, no user name,
	// password, query or fragment, the port only when not the default
	// (and matched only when the rule's host names one), the path decoded
	// and cleaned. No path matches any path.
	URL string `json:"url,omitempty"`
	// Registry is the name of the server in an MCP registry. No server
	// carries a registry name yet, so a rule with it matches none.
	Registry string `json:"registry,omitempty"`

	// List ("allowed_servers" or "denied_servers"), Index and Source say
	// where the rule was written.
	List   string `json:"list"`
	Index  int    `json:"index"`
	Source string `json:"source"`
}

// Where names the rule for messages: `denied_servers[1] in FILE`.
func (r ServerRule) Where() string {
	return fmt.Sprintf("%s[%d] in %s", r.List, r.Index, r.Source)
}

// managedLayers reads the managed file and the managed.d fragments of dir,
// in merge order. A file that cannot be read or parsed makes Load fail: an
// administrator's policy that silently did not apply would fail open.
func managedLayers(dir string) ([]*layer, []error) {
	if dir == "" {
		return nil, nil
	}
	var paths []string
	main, err := findLayerFile(dir, managedBase)
	if err != nil {
		return nil, []error{managedErr(err)}
	}
	if main != "" {
		paths = append(paths, main)
	}
	dropIns, err := managedFragments(filepath.Join(dir, managedDropIn))
	if err != nil {
		return nil, []error{managedErr(err)}
	}
	paths = append(paths, dropIns...)
	var (
		layers []*layer
		errs   []error
	)
	for _, p := range paths {
		data, err := readConfigFile(p)
		if err != nil {
			errs = append(errs, managedErr(fmt.Errorf("config: %w", unwrapPathError(err, p))))
			continue
		}
		l, lerrs := parseLayer(kindManaged, p, data, false)
		for _, e := range lerrs {
			errs = append(errs, managedErr(e))
		}
		if l != nil {
			layers = append(layers, l)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return layers, nil
}

// managedErr says, after the problem, who can fix it.
func managedErr(err error) error {
	return fmt.Errorf("%w (this is the administrator's managed configuration: mcphost does not run without it; ask whoever manages this machine to fix it)", err)
}

// managedFragments lists dir's configuration files in name order: hidden
// files and other extensions (a README, an editor's backup) are skipped.
func managedFragments(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", unwrapPathError(err, dir))
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() || !contains(fileExts, strings.ToLower(filepath.Ext(name))) {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	sort.Strings(out)
	if len(out) > maxManagedFragments {
		return nil, fmt.Errorf("config: %s: %d files; at most %d are read (merge some of them)", dir, len(out), maxManagedFragments)
	}
	return out, nil
}

// maxManagedFragments bounds managed.d: each file is read on every
// command.
const maxManagedFragments = 256

// managedFields are the keys of the managed: section.
var managedFields = []string{
	"allowed_servers", "denied_servers", "allow_user_servers", "allow_project_servers",
	"plugins", "require_signed_plugins", "lock_settings",
}

var ruleFields = []string{"id", "command", "args", "url", "registry"}

// buildManaged merges the managed: sections of the managed layers (in
// order: lists add up, a later file's setting replaces an earlier one's).
func buildManaged(dir string, layers []*layer) (*Managed, error) {
	var ml []*layer
	for _, l := range layers {
		if l.kind == kindManaged {
			ml = append(ml, l)
		}
	}
	if len(ml) == 0 {
		return nil, nil
	}
	m := &Managed{Dir: dir, AllowUserServers: true, AllowProjectServers: true, Plugins: PluginsAny}
	var errs []error
	for _, l := range ml {
		m.Files = append(m.Files, l.source)
		for id := range l.servers {
			if !contains(m.Servers, id) {
				m.Servers = append(m.Servers, id)
			}
		}
		errs = append(errs, m.apply(l)...)
	}
	sort.Strings(m.Servers)
	if len(errs) > 0 {
		return nil, managedErr(joinErrors(errs))
	}
	return m, nil
}

func (m *Managed) apply(l *layer) []error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("config: %s: managed.%s: %s", l.source, field, fmt.Sprintf(format, args...)))
	}
	flag := func(k string, v any) (bool, bool) {
		b, ok := asBool(v)
		if !ok {
			fail(k, "must be true or false")
		}
		return b, ok
	}
	for _, k := range sortedKeys(l.managed) {
		v := l.managed[k]
		switch k {
		case "allowed_servers", "denied_servers":
			rules := m.rules(l.source, k, v, fail)
			if k == "denied_servers" {
				m.DeniedServers = append(m.DeniedServers, rules...)
			} else if m.AllowedServers == nil {
				m.AllowedServers = append([]ServerRule{}, rules...)
			} else {
				m.AllowedServers = append(m.AllowedServers, rules...)
			}
		case "allow_user_servers":
			if b, ok := flag(k, v); ok {
				m.AllowUserServers, m.AllowUserFrom = b, l.source
			}
		case "allow_project_servers":
			if b, ok := flag(k, v); ok {
				m.AllowProjectServers, m.AllowProjectFrom = b, l.source
			}
		case "plugins":
			s, _ := v.(string)
			switch s {
			case PluginsAny, PluginsPinned, PluginsManagedOnly:
				m.Plugins, m.PluginsFrom = s, l.source
			default:
				fail(k, "%s is not one of managed_only, pinned or any", quoteValue(v))
			}
		case "require_signed_plugins":
			if b, ok := flag(k, v); ok {
				m.RequireSignedPlugins = b
			}
		case "lock_settings":
			list, ok := asStringList(v)
			if !ok {
				fail(k, "must be a list of setting keys (names.scheme, policy, servers.ID...)")
				continue
			}
			for _, key := range list {
				if err := checkLockKey(key); err != nil {
					fail(k, "%q: %v", key, err)
					continue
				}
				if !contains(m.LockSettings, key) {
					m.LockSettings = append(m.LockSettings, key)
				}
			}
		default:
			fail(k, "unknown field%s (known fields: %s)", suggest(k, managedFields), strings.Join(managedFields, ", "))
		}
	}
	return errs
}

// rules reads a list of server rules.
func (m *Managed) rules(source, list string, v any, fail func(field, format string, args ...any)) []ServerRule {
	items, ok := v.([]any)
	if !ok && v != nil {
		fail(list, "must be a list of rules, each a map of id, command, args, url or registry")
		return nil
	}
	out := []ServerRule{}
	for i, item := range items {
		field := fmt.Sprintf("%s[%d]", list, i)
		rm, ok := item.(map[string]any)
		if !ok || len(rm) == 0 {
			fail(field, "must be a map of id, command, args, url or registry (an empty rule would match every server)")
			continue
		}
		r := ServerRule{List: list, Index: i, Source: source}
		good := true
		str := func(k string) string {
			s, ok := rm[k].(string)
			if !ok || s == "" {
				fail(field+"."+k, "must be a glob, not empty")
				good = false
				return ""
			}
			if err := glob.Valid(s); err != nil {
				fail(field+"."+k, "%v", err)
				good = false
			}
			return s
		}
		for _, k := range sortedKeys(rm) {
			switch k {
			case "id":
				r.ID = str(k)
			case "command":
				r.Command = str(k)
			case "url":
				r.URL = str(k)
				if _, ok := splitURLGlob(r.URL); r.URL != "" && !ok {
					fail(field+".url", "%q is not scheme://host/path (globs allowed in each part: \"https://*.corp.example/*\", \"*://mcp.corp.example/*\")", r.URL)
					good = false
				}
			case "registry":
				r.Registry = str(k)
			case "args":
				args, ok := asStringList(rm[k])
				if !ok {
					fail(field+".args", "must be a list of globs")
					good = false
					continue
				}
				for _, a := range args {
					if err := glob.Valid(a); err != nil {
						fail(field+".args", "%v", err)
						good = false
					}
				}
				r.Args = append([]string{}, args...)
				if r.Args == nil {
					r.Args = []string{}
				}
			default:
				fail(field, "unknown field %q%s (known fields: %s)", k, suggest(k, ruleFields), strings.Join(ruleFields, ", "))
				good = false
			}
		}
		if good {
			out = append(out, r)
		}
	}
	return out
}

// lockRoots are the keys lock_settings may name, and what may follow them.
var lockRoots = map[string][]string{
	"names":   {"scheme", "max_length"},
	"policy":  policyFields,
	"results": resultsFields,
	"plugins": nil,
	"pinning": nil, // any field of the pinning section
	"servers": nil, // servers.ID or servers.ID.FIELD
}

func checkLockKey(key string) error {
	parts := strings.Split(key, ".")
	sub, ok := lockRoots[parts[0]]
	if !ok {
		return fmt.Errorf("not a setting that can be locked (use names, policy, results, plugins, pinning or servers, with a field after a dot)")
	}
	switch parts[0] {
	case "plugins":
		if len(parts) > 1 {
			return errors.New("plugins is locked as a whole")
		}
	case "servers":
		if len(parts) > 3 || (len(parts) > 1 && !ValidID(parts[1])) {
			return errors.New("use servers, servers.ID or servers.ID.FIELD")
		}
		if len(parts) == 3 && !isServerField(parts[2]) {
			return fmt.Errorf("%q is not a field of a server entry", parts[2])
		}
	case "pinning":
		if len(parts) > 2 {
			return errors.New("use pinning or pinning.FIELD")
		}
	default:
		if len(parts) > 2 || (len(parts) == 2 && !contains(sub, parts[1])) {
			return fmt.Errorf("use %s or %s.FIELD with FIELD one of %s", parts[0], parts[0], strings.Join(sub, ", "))
		}
	}
	return nil
}

// Locked reports whether key (dotted) is locked: it or a key above it is
// in LockSettings. The section that locks it is returned for messages.
func (m *Managed) Locked(key string) (string, bool) {
	if m == nil {
		return "", false
	}
	for _, k := range m.LockSettings {
		if key == k || strings.HasPrefix(key, k+".") {
			return k, true
		}
	}
	return "", false
}

// fileExists: path names something (a file that cannot be read is still
// there: the host fails closed on it, rather than ignore it).
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
