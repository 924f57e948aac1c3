package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcphost/mcphost/internal/safefile"
)

// File names. The global and project files may be written in any of the
// formats in fileExts, but only one per place: two would leave the reader
// guessing which one wins.
const (
	globalBase  = "config"   // <GlobalDir>/config.{yaml,yml,json,toml}
	projectBase = ".mcphost" // <WorkDir>/.mcphost.{yaml,yml,json,toml}
	// MCPJSONFile is Claude Code's project file, read as it is so that a
	// project set up for Claude Code works unchanged.
	MCPJSONFile = ".mcp.json"
)

var fileExts = []string{".yaml", ".yml", ".json", ".toml"}

// layerKind orders the layers, lowest first.
type layerKind int

const (
	kindManaged layerKind = iota // the administrator's: first, and held by the others
	kindGlobal
	kindProject
	kindMCPJSON
	kindLocal // the user's servers for this directory: above the project's
	kindExplicit
	kindEnv
	kindFlags
)

// layer is one source of configuration after parsing and normalising its
// shape (aliases resolved, unknown fields reported), before merging.
type layer struct {
	kind      layerKind
	source    string // file path, "env" or "flags": Server.Source and error prefixes
	dir       string // base for a relative cwd
	untrusted bool
	servers   map[string]*layerEntry
	plugins   []*pluginEntry // in file order
	names     map[string]any
	policy    map[string]any
	results   map[string]any
	pinning   map[string]any
	trusted   []trustRecord  // global file only
	managed   map[string]any // the managed: section, managed files only
}

// fromProject reports whether the layer comes from the project directory,
// which a cloned repository controls: such a layer can add servers and
// tighten the user's configuration, never widen it.
func (l *layer) fromProject() bool { return l.kind == kindProject || l.kind == kindMCPJSON }

// layerEntry is one server entry of one layer.
type layerEntry struct {
	fields map[string]any // canonical field names
	errs   []error
}

// Load reads every layer (global file, project .mcphost.*, project .mcp.json,
// the local file of the work directory, --config file, MCPHOST_* variables,
// Overrides; lowest first), merges the servers by id and validates them. A
// local entry that says what to run or where to connect (command, url or
// transport) replaces what the lower layers say about its id; other
// entries merge field by field, maps (env, headers) key by key. A problem
// that makes a whole file unusable (it does not parse, two files of one
// layer, an unknown top-level key, a bad names value) is returned as an
// error; a problem with one server is put in that Server's Err so that the
// others still start.
func Load(opts LoadOptions) (*Config, error) {
	r, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	layers, files, err := readLayers(r, true)
	if err != nil {
		return nil, err
	}
	return build(r, layers, files, nil)
}

// readLayers reads the file layers (and, with all, env and flags).
func readLayers(r *resolved, all bool) ([]*layer, []string, error) {
	var (
		layers []*layer
		files  []string
		errs   []error
	)
	add := func(l *layer, lerrs []error) {
		errs = append(errs, lerrs...)
		if l != nil {
			layers = append(layers, l)
			if l.kind < kindEnv {
				files = append(files, l.source)
			}
		}
	}

	ml, merrs := managedLayers(r.managedDir)
	if len(merrs) > 0 {
		// Nothing runs without the administrator's layer.
		return nil, nil, errors.Join(merrs...)
	}
	for _, l := range ml {
		add(l, nil)
	}
	g, gerrs := readGlobal(r)
	errs = append(errs, gerrs...)
	var trusted []trustRecord
	explicitIsGlobal := false
	if g != nil {
		trusted = g.trusted
		// --config naming the global file: read it once, at the explicit
		// layer, but still take the trust records from it.
		if explicitIsGlobal = sameFile(g.source, r.configFile); !explicitIsGlobal {
			add(g, nil)
		}
	}
	pl, perrs := readProject(r, trusted)
	for _, l := range pl {
		add(l, nil)
	}
	errs = append(errs, perrs...)
	add(readLocal(r))

	if r.configFile != "" && r.managedDir != "" && within(r.managedDir, r.configFile) {
		errs = append(errs, fmt.Errorf("config: --config %s: this is the administrator's managed configuration, which mcphost reads already; give --config a file of your own", r.configFile))
	} else if r.configFile != "" {
		data, err := readConfigFile(r.configFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: --config: %w", unwrapPathError(err, r.configFile)))
		} else {
			kind := kindExplicit
			if explicitIsGlobal {
				kind = kindGlobal // allows its trusted_projects
			}
			l, lerrs := parseLayer(kind, r.configFile, data, false)
			if l != nil {
				l.kind = kindExplicit
			}
			add(l, lerrs)
		}
	}
	if all {
		lowerIDs := map[string]bool{}
		for _, l := range layers {
			for id := range l.servers {
				lowerIDs[id] = true
			}
		}
		add(envLayer(r.env, lowerIDs))
		add(overridesLayer(r.overrides))
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return layers, files, nil
}

// MaxConfigBytes caps every configuration file mcphost reads: some come
// from cloned repositories.
const MaxConfigBytes = 4 << 20

// readConfigFile reads a configuration file: a regular file (a symlink is
// followed) of at most MaxConfigBytes. A FIFO, a device or a huge file is an
// error at once, never a hang.
func readConfigFile(path string) ([]byte, error) {
	return safefile.ReadFile(path, MaxConfigBytes)
}

func unwrapPathError(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return err
}

func readGlobal(r *resolved) (*layer, []error) {
	if r.globalDir == "" {
		return nil, nil
	}
	path, err := findLayerFile(r.globalDir, globalBase)
	if err != nil {
		return nil, []error{err}
	}
	if path == "" {
		return nil, nil
	}
	data, err := readConfigFile(path)
	if err != nil {
		return nil, []error{fmt.Errorf("config: %w", unwrapPathError(err, path))}
	}
	return parseLayer(kindGlobal, path, data, false)
}

// readLocal reads the local file of the work directory, if there is one.
// Relative paths in it (cwd, env_file) are taken from the project
// directory, where the user typed them, not from the file's directory.
func readLocal(r *resolved) (*layer, []error) {
	path, err := localFile(r)
	if err != nil {
		return nil, []error{err}
	}
	if path == "" || sameFile(path, r.configFile) {
		return nil, nil
	}
	data, err := readConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("config: %w", unwrapPathError(err, path))}
	}
	l, errs := parseLayer(kindLocal, path, data, false)
	if l != nil {
		l.dir = r.workDir
	}
	return l, errs
}

// projectFiles lists every file that makes up a project's configuration, in
// the fixed order used for the trust hash.
func projectFiles() []string {
	names := make([]string, 0, len(fileExts)+1)
	for _, ext := range fileExts {
		names = append(names, projectBase+ext)
	}
	return append(names, MCPJSONFile)
}

// readProjectFiles reads the project files of dir: name -> content, only
// those that exist.
func readProjectFiles(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range projectFiles() {
		p := filepath.Join(dir, name)
		data, err := readConfigFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("config: %w", unwrapPathError(err, p))
		}
		out[name] = data
	}
	return out, nil
}

// readProject reads the project layers. A project that is not trusted
// cannot stop mcphost: a file of it that cannot be read or parsed is a
// warning and the project is left out (a cloned repository may carry
// anything). A trusted project's broken file stays an error, as the
// global file's does: the user vouched for it and must see it.
func readProject(r *resolved, trusted []trustRecord) ([]*layer, []error) {
	contents, err := readProjectFiles(r.workDir)
	if err != nil {
		// Unreadable files cannot be hashed, so the project is not trusted.
		r.warn("%v; the project's servers are ignored (the project is not trusted)", err)
		return nil, nil
	}
	if len(contents) == 0 {
		return nil, nil
	}
	// Read once and hash what was read, so that the trust decision is about
	// exactly the bytes that are loaded.
	isTrusted := matchTrust(trusted, r.workDir, trustHash(r, r.workDir, contents))
	if !isTrusted {
		r.trustChanged = hasTrustRecord(trusted, r.workDir)
		layers, errs := readProjectLayers(r, contents, true)
		for _, err := range errs {
			r.warn("%v; the file is ignored (the project is not trusted)", err)
		}
		return layers, nil
	}
	return readProjectLayers(r, contents, false)
}

func readProjectLayers(r *resolved, contents map[string][]byte, untrusted bool) ([]*layer, []error) {
	var native []string
	for _, ext := range fileExts {
		if _, ok := contents[projectBase+ext]; ok {
			native = append(native, filepath.Join(r.workDir, projectBase+ext))
		}
	}
	if len(native) > 1 {
		return nil, []error{twoFilesError(native)}
	}
	var (
		layers []*layer
		errs   []error
	)
	if len(native) == 1 && !sameFile(native[0], r.configFile) {
		l, lerrs := parseLayer(kindProject, native[0], contents[filepath.Base(native[0])], untrusted)
		errs = append(errs, lerrs...)
		if l != nil {
			layers = append(layers, l)
		}
	}
	if data, ok := contents[MCPJSONFile]; ok {
		p := filepath.Join(r.workDir, MCPJSONFile)
		if !sameFile(p, r.configFile) {
			l, lerrs := parseLayer(kindMCPJSON, p, data, untrusted)
			errs = append(errs, lerrs...)
			if l != nil {
				layers = append(layers, l)
			}
		}
	}
	return layers, errs
}

func sameFile(a, b string) bool {
	return a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b)
}

func twoFilesError(paths []string) error {
	return fmt.Errorf("config: both %s and %s exist; keep only one of them", paths[0], strings.Join(paths[1:], " and "))
}

// findLayerFile returns dir/base.{yaml,yml,json,toml}: "" if none exists, an
// error naming both if more than one does.
func findLayerFile(dir, base string) (string, error) {
	var found []string
	for _, ext := range fileExts {
		p := filepath.Join(dir, base+ext)
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("config: %w", unwrapPathError(err, p))
		}
		if st.IsDir() {
			return "", fmt.Errorf("config: %s is a directory", p)
		}
		found = append(found, p)
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", twoFilesError(found)
}

// parseLayer parses a file and normalises it into a layer.
func parseLayer(kind layerKind, path string, data []byte, untrusted bool) (*layer, []error) {
	m, err := parseFile(path, data)
	if err != nil {
		return nil, []error{err}
	}
	return buildLayer(kind, path, filepath.Dir(path), m, untrusted)
}

// Top-level keys of native files.
var topKeys = []string{"servers", "mcpServers", "names", "policy", "results", "pinning", "plugins", "trusted_projects", "managed"}

// buildLayer checks the top level of a parsed map and normalises its server
// entries. Errors returned make Load fail; errors in one entry stay with it.
func buildLayer(kind layerKind, source, dir string, m map[string]any, untrusted bool) (*layer, []error) {
	l := &layer{kind: kind, source: source, dir: dir, untrusted: untrusted, servers: map[string]*layerEntry{}}
	var errs []error
	if kind == kindMCPJSON {
		// Claude Code's file: read mcpServers only, ignore the rest.
		errs = append(errs, l.addServers(m, "mcpServers")...)
		return l, errs
	}
	keys := sortedKeys(m)
	for _, k := range keys {
		switch k {
		case "servers", "mcpServers":
		case "names":
			nm, ok := m[k].(map[string]any)
			if m[k] != nil && !ok {
				errs = append(errs, fmt.Errorf("config: %s: names: must be a map with scheme and max_length", source))
				continue
			}
			l.names = nm
		case "policy", "results", "pinning":
			sm, ok := m[k].(map[string]any)
			if m[k] != nil && !ok {
				errs = append(errs, fmt.Errorf("config: %s: %s: must be a map", source, k))
				continue
			}
			switch k {
			case "policy":
				l.policy = sm
			case "results":
				l.results = sm
			default:
				l.pinning = sm
			}
		case "plugins":
			errs = append(errs, l.addPlugins(m[k])...)
		case "managed":
			mm, ok := m[k].(map[string]any)
			switch {
			case kind != kindManaged:
				errs = append(errs, fmt.Errorf("config: %s: managed: is only read from the administrator's managed file (%s)", source, filepath.Join(SystemManagedDir(), managedBase+".yaml")))
			case m[k] != nil && !ok:
				errs = append(errs, fmt.Errorf("config: %s: managed: must be a map (allowed_servers, denied_servers, lock_settings...)", source))
			default:
				l.managed = mm
			}
		case "trusted_projects":
			if kind != kindGlobal {
				errs = append(errs, fmt.Errorf("config: %s: trusted_projects is only read from the user (global) config file (use \"mcphost trust\")", source))
				continue
			}
			recs, err := parseTrusted(source, m[k])
			if err != nil {
				errs = append(errs, err)
				continue
			}
			l.trusted = recs
		default:
			if kind == kindManaged && contains(managedFields, k) {
				errs = append(errs, fmt.Errorf("config: %s: %s belongs under managed: (managed: {%s: ...})", source, k, k))
				continue
			}
			errs = append(errs, fmt.Errorf("config: %s: unknown top-level key %q%s (known keys: servers, mcpServers, names, policy, results, pinning, plugins, trusted_projects; managed in the managed file)", source, k, suggest(k, topKeys)))
		}
	}
	errs = append(errs, l.addServers(m, "servers", "mcpServers")...)
	if len(errs) > 0 {
		return nil, errs
	}
	return l, nil
}

// addServers reads the server maps under the given keys (the first is the
// primary name, the others aliases).
func (l *layer) addServers(m map[string]any, keys ...string) []error {
	var errs []error
	seenUnder := map[string]string{}
	for _, key := range keys {
		raw, ok := m[key]
		if !ok || raw == nil {
			continue
		}
		sm, ok := raw.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("config: %s: %s: must be a map of server id to server entry", l.source, key))
			continue
		}
		for _, id := range sortedKeys(sm) {
			fields, eerrs := normalizeEntry(l, id, sm[id])
			if prev, dup := seenUnder[id]; dup {
				l.servers[id].errs = append(l.servers[id].errs, entryError(l.source, id, "", fmt.Sprintf("defined under both %q and %q; keep one", prev, key)))
				continue
			}
			seenUnder[id] = key
			l.servers[id] = &layerEntry{fields: fields, errs: eerrs}
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// build merges the layers into a Config. With only non-nil, the servers are
// restricted to those ids (LoadScope).
func build(r *resolved, layers []*layer, files []string, only func(id string) bool) (*Config, error) {
	cfg := &Config{
		Names:        Names{Scheme: SchemePrefixed, MaxLength: DefaultMaxNameLength},
		Files:        files,
		ProjectDir:   r.workDir,
		TrustChanged: r.trustChanged,
	}
	if cfg.Files == nil {
		cfg.Files = []string{}
	}
	m, err := buildManaged(r.managedDir, layers)
	if err != nil {
		return nil, err
	}
	cfg.Managed = m
	holdLayers(m, layers, r.warn)
	h := heldBy(layers)
	var errs []error
	for _, l := range layers {
		if l.untrusted {
			// An untrusted file contributes servers (shown as untrusted,
			// never started) and nothing else.
			continue
		}
		if err := applyNames(&cfg.Names, l); err != nil {
			errs = append(errs, err)
		}
		if err := applyPolicy(&cfg.Policy, l, h, r.warn); err != nil {
			errs = append(errs, err)
		}
		if err := applyResults(&cfg.Results, l, h, r.warn); err != nil {
			errs = append(errs, err)
		}
		if err := applyPinning(&cfg.Pinning, l, h, r.warn); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if r.managedDir != "" {
		// Present even without a managed file: an administrator may ship
		// only pins.
		if p := filepath.Join(r.managedDir, ManagedPinsFile); fileExists(p) {
			cfg.Pinning.ManagedFiles = append(cfg.Pinning.ManagedFiles, p)
		}
	}
	merged := mergeServers(layers, r.warn)
	cfg.Servers = make([]*Server, 0, len(merged))
	for _, ms := range merged {
		if only != nil && !only(ms.id) {
			continue
		}
		s := decodeServer(ms, layers, lookups{r.lookup, r.lookupSecret}, r.workDir, false)
		s.TrustChanged = s.Untrusted && r.trustChanged && filepath.Clean(s.ProjectDir) == filepath.Clean(r.workDir)
		s.Blocked = m.blockReason(s, layers[definedBy(ms)].fromProject(), r.matchEnv())
		cfg.Servers = append(cfg.Servers, s)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].ID < cfg.Servers[j].ID })
	cfg.Plugins = buildPlugins(layers, lookups{r.lookup, r.lookupSecret})
	for _, p := range cfg.Plugins {
		p.Blocked = m.pluginBlockReason(p)
	}
	cfg.Warnings = r.warnings
	return cfg, nil
}
