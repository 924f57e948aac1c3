package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Scope names a place the CLI reads or writes servers (mcp add/remove/
// enable/disable/list --scope). The names and their precedence are Claude
// Code's: local over project over user.
type Scope string

const (
	// ScopeEffective is the merged result of every layer (read only).
	ScopeEffective Scope = "effective"
	// ScopeLocal is private to the user and to one project directory: a
	// file in the user's config directory, <GlobalDir>/local/<dir>-<hash>.yaml,
	// keyed by the absolute WorkDir (see LocalFile). Its entries are the
	// user's own words, trusted like the user file, and they take
	// precedence over the project's and the user file's.
	ScopeLocal Scope = "local"
	// ScopeProject is the project's .mcphost.{yaml,yml,json,toml} in WorkDir
	// (.mcphost.yaml is created if none exists). .mcp.json is read but never
	// written: it belongs to Claude Code.
	ScopeProject Scope = "project"
	// ScopeUser is <GlobalDir>/config.{yaml,yml,json,toml} (config.yaml is
	// created if none exists): every project of the user.
	ScopeUser Scope = "user"
	// ScopeManaged is the administrator's managed layer (read only: it
	// is not a scope the CLI writes).
	ScopeManaged Scope = "managed"
	// ScopeGlobal is the former name of ScopeUser; ParseScope still reads
	// "global".
	ScopeGlobal = ScopeUser
)

// scopeNames is how errors list the scopes a write may name.
const scopeNames = "local, project or user"

// ParseScope parses a --scope value: local, project, user (or its former
// name global) and effective.
func ParseScope(s string) (Scope, error) {
	switch Scope(strings.ToLower(strings.TrimSpace(s))) {
	case ScopeEffective:
		return ScopeEffective, nil
	case ScopeLocal:
		return ScopeLocal, nil
	case ScopeProject:
		return ScopeProject, nil
	case ScopeUser, "global":
		return ScopeUser, nil
	}
	return "", fmt.Errorf("config: unknown scope %q (use %s; effective to read the merged result)", s, scopeNames)
}

// localDirName is the directory of the local files inside GlobalDir.
const localDirName = "local"

// localBase names the local file of project directory dir: its last
// element, made safe for a file name, and a hash of the whole path so that
// two projects called "api" do not share servers. One file per directory
// rather than one map for all: every edit is the plain file edit of the
// other scopes (locked, atomic, comments kept), one project's file cannot
// break another's, and deleting a project's private servers is deleting a
// file.
func localBase(dir string) string {
	dir = filepath.Clean(dir)
	sum := sha256.Sum256([]byte(dir))
	var b strings.Builder
	for _, c := range filepath.Base(dir) {
		switch {
		case c < 0x80 && (isNameByte(byte(c)) || c == '-' || c == '.'):
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	name := strings.Trim(b.String(), "._")
	if name == "" {
		name = "root"
	}
	return name + "-" + hex.EncodeToString(sum[:8])
}

// localFile returns the local file of r's WorkDir: the existing one (any
// format), else the YAML file to create; "" when there is no user config
// directory.
func localFile(r *resolved) (string, error) {
	if r.globalDir == "" {
		return "", nil
	}
	dir, base := filepath.Join(r.globalDir, localDirName), localBase(r.workDir)
	p, err := findLayerFile(dir, base)
	if err != nil || p != "" {
		return p, err
	}
	return filepath.Join(dir, base+".yaml"), nil
}

// localHeader is the comment a new local file starts with, so that whoever
// opens it knows which directory it belongs to.
func localHeader(dir string) string {
	safe := strings.Map(func(c rune) rune {
		if c < 0x20 || c == 0x7f {
			return '?'
		}
		return c
	}, dir)
	return "mcphost: servers private to you in " + safe + "\n(mcphost mcp add --scope local). Other projects do not see them."
}

// scopeFile is the file a write to scope touches: the existing one, or the
// YAML file to create.
func scopeFile(r *resolved, scope Scope) (string, error) {
	var dir, base string
	switch scope {
	case ScopeLocal:
		p, err := localFile(r)
		if err == nil && p == "" {
			err = errors.New("config: no user config directory for the local scope (set LoadOptions.GlobalDir or XDG_CONFIG_HOME)")
		}
		return p, err
	case ScopeProject:
		dir, base = r.workDir, projectBase
	case ScopeUser:
		if r.globalDir == "" {
			return "", fmt.Errorf("config: no user config directory (set LoadOptions.GlobalDir or XDG_CONFIG_HOME)")
		}
		dir, base = r.globalDir, globalBase
	default:
		return "", fmt.Errorf("config: cannot write to scope %q (use %s)", scope, scopeNames)
	}
	p, err := findLayerFile(dir, base)
	if err != nil || p != "" {
		return p, err
	}
	return filepath.Join(dir, base+".yaml"), nil
}

// scopeTarget resolves opts and returns the file a write to scope touches.
func scopeTarget(opts LoadOptions, scope Scope) (*resolved, string, error) {
	r, err := opts.resolve()
	if err != nil {
		return nil, "", err
	}
	p, err := scopeFile(r, scope)
	if err == nil && scope == ScopeProject {
		err = checkProjectFile(r.workDir, p)
	}
	return r, p, err
}

// checkProjectFile refuses to write the project file p when a symbolic
// link leads it outside the project directory dir: a cloned repository
// could ship .mcphost.yaml as a link to the user's own config file, and
// what mcphost wrote "to the project" would then run everywhere, trusted.
func checkProjectFile(dir, p string) error {
	inside, err := insideDir(dir, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // a new file (a dangling link is replaced, not followed)
	case err != nil:
		return fmt.Errorf("config: %s: %w", p, err)
	case inside == "":
		return fmt.Errorf("config: %s is a symbolic link outside the project directory %s: mcphost does not write through it "+
			"(a cloned repository could point it at your own config file); replace the link with a file of the project's own, or use --scope local or user", p, dir)
	}
	return nil
}

// ScopeFile returns the file that writes to scope (local, project or user)
// touch, and whether it exists yet.
func ScopeFile(opts LoadOptions, scope Scope) (string, bool, error) {
	_, p, err := scopeTarget(opts, scope)
	if err != nil {
		return "", false, err
	}
	_, err = os.Stat(p)
	return p, err == nil, nil
}

func scopeKind(s Scope) layerKind {
	switch s {
	case ScopeUser:
		return kindGlobal
	case ScopeLocal:
		return kindLocal
	}
	return kindProject
}

// scopeOfKind is the scope a layer belongs to; "" for --config, env and
// flags. .mcp.json is part of the project scope (read only).
func scopeOfKind(k layerKind) Scope {
	switch k {
	case kindManaged:
		return ScopeManaged
	case kindGlobal:
		return ScopeUser
	case kindProject, kindMCPJSON:
		return ScopeProject
	case kindLocal:
		return ScopeLocal
	}
	return ""
}

// LoadScope loads the servers of one scope, for `mcp list --scope`:
// effective is Load; user is the user file alone; project lists the
// servers the project files (.mcphost.*, .mcp.json) define, merged over the
// user file so that an override entry (enabled: false) shows the server it
// overrides; local lists the servers of the local file, merged over the
// user and project files for the same reason. Environment variables and
// Overrides are not applied to these listings; ${VAR} references are
// expanded as by Load. Files lists the scope's own files, and Plugins
// holds only the plugins they define.
func LoadScope(opts LoadOptions, scope Scope) (*Config, error) {
	if scope == ScopeEffective {
		return Load(opts)
	}
	r, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if scope != ScopeLocal && scope != ScopeProject && scope != ScopeUser && scope != ScopeManaged {
		return nil, fmt.Errorf("config: unknown scope %q (use effective, %s)", scope, scopeNames)
	}
	r.configFile = ""
	layers, _, err := readLayers(r, false)
	if err != nil {
		return nil, err
	}
	var (
		keep  []*layer
		files []string
		ids   = map[string]bool{}
	)
	for _, l := range layers {
		own := scopeOfKind(l.kind) == scope
		// The managed layer is under every scope; the user's file is over
		// it, so not part of a listing of the managed scope.
		below := (l.kind == kindGlobal && scope != ScopeManaged) || l.kind == kindManaged ||
			(scope == ScopeLocal && scopeOfKind(l.kind) == ScopeProject)
		if !own && !below {
			continue
		}
		keep = append(keep, l)
		if own {
			files = append(files, l.source)
			for id := range l.servers {
				ids[id] = true
			}
		}
	}
	cfg, err := build(r, keep, files, func(id string) bool { return ids[id] })
	if err != nil {
		return nil, err
	}
	// The listing merges over lower files for servers, but its plugins are
	// only its own.
	cfg.Plugins = pluginsFrom(cfg.Plugins, files)
	return cfg, nil
}

// ErrSeveralScopes is wrapped by RemoveServerAnyScope's error when more
// than one scope's file defines the server.
var ErrSeveralScopes = errors.New("defined in more than one scope")

// ServerScopes lists the writable scopes whose file has an entry for id,
// highest precedence first (local, project, user), with their files.
// .mcp.json, the managed layer, --config, MCPHOST_* variables and flags
// are not scopes a write can name, so they are not listed.
func ServerScopes(opts LoadOptions, id string) ([]Scope, []string, error) {
	r, err := opts.resolve()
	if err != nil {
		return nil, nil, err
	}
	r.configFile = ""
	layers, _, err := readLayers(r, false)
	if err != nil {
		return nil, nil, err
	}
	var (
		scopes []Scope
		files  []string
	)
	for i := len(layers) - 1; i >= 0; i-- {
		l := layers[i]
		if _, ok := l.servers[id]; !ok || l.kind == kindMCPJSON || l.kind == kindManaged {
			continue
		}
		if s := scopeOfKind(l.kind); s != "" {
			scopes = append(scopes, s)
			files = append(files, l.source)
		}
	}
	return scopes, files, nil
}

// notInScope says that the scope's file (path) has no entry id: that the
// file does not exist, or that it lacks the entry; and where the server
// comes from instead, with what can be done about it.
func notInScope(opts LoadOptions, r *resolved, scope Scope, path string, exists bool, id string) error {
	var msg string
	switch {
	case exists:
		msg = fmt.Sprintf("config: %s: no server %q in this file", path, id)
	case scope == ScopeProject:
		msg = fmt.Sprintf("config: no .mcphost.* in %s: nothing to remove", r.workDir)
	case scope == ScopeLocal:
		msg = fmt.Sprintf("config: no local servers for %s (%s does not exist): nothing to remove", r.workDir, path)
	default:
		msg = fmt.Sprintf("config: no user config file (%s does not exist): nothing to remove", path)
	}
	return errors.New(msg + "; " + whereFrom(opts, id, path))
}

// whereFrom says where server id comes from when it is not in file path,
// and how to switch it off or remove it there.
func whereFrom(opts LoadOptions, id, path string) string {
	cfg, err := Load(opts)
	if err != nil {
		return fmt.Sprintf("the configuration does not load (%v)", err)
	}
	for _, s := range cfg.Servers {
		if s.ID != id {
			continue
		}
		if s.Source == path {
			break
		}
		disable := fmt.Sprintf(`"mcphost mcp disable %s"`, id)
		switch {
		case s.Scope == ScopeManaged:
			return fmt.Sprintf("server %q is the administrator's (%s), which mcphost does not edit (switch it off for yourself with %s)", id, s.Source, disable)
		case filepath.Base(s.Source) == MCPJSONFile:
			return fmt.Sprintf("server %q comes from %s, Claude Code's file, which mcphost does not edit (switch it off with %s)", id, s.Source, disable)
		case s.Scope != "":
			return fmt.Sprintf("server %q comes from %s (use %s, or the %s scope to remove it there)", id, s.Source, disable, s.Scope)
		default:
			return fmt.Sprintf("server %q comes from %s (switch it off with %s)", id, s.Source, disable)
		}
	}
	return fmt.Sprintf("no server %q is configured (see \"mcphost mcp list\")", id)
}
