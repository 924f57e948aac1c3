package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/internal/safefile"
)

// Project files can start programs (a stdio server's command) and send
// environment secrets to URLs (${VAR} in headers). A repository someone
// clones must therefore not be able to do either until the user says so:
// servers from project files are loaded with Untrusted set, and the host does
// not start them, until the user runs `mcphost trust DIR`.
//
// Trust records live in the global config file (never in a project file,
// which would trust itself) as
//
//	trusted_projects:
//	  - path: /abs/project
//	    sha256: <hex>
//
// The hash covers the project files' names and contents, the bytes of
// every .wasm plugin a project file loads and those of every env_file its
// servers name, so any change to them (swapping a plugin file, adding
// NODE_OPTIONS to an env file) makes the project untrusted again until it
// is trusted anew.

type trustRecord struct {
	Path   string `json:"path" yaml:"path" toml:"path"`
	SHA256 string `json:"sha256" yaml:"sha256" toml:"sha256"`
}

// UntrustedHint is the message to show for servers with Untrusted set.
func UntrustedHint(dir string) string { return untrustedHint(dir, false) }

// UntrustedHint is the message to show for the project's untrusted
// servers: it says when the files changed since the project was trusted.
func (c *Config) UntrustedHint() string { return untrustedHint(c.ProjectDir, c.TrustChanged) }

func untrustedHint(dir string, changed bool) string {
	arg := dir
	if strings.ContainsAny(dir, " \t\n'\"$`\\*?[]{}()<>|&;#~") {
		arg = "'" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	}
	if changed {
		return fmt.Sprintf("the project files in %s changed since you trusted them, so their servers are not started: review the changes, then run \"mcphost trust %s\" to trust them again", dir, arg)
	}
	return fmt.Sprintf("project servers in %s are not trusted yet: run \"mcphost trust %s\" to start them", dir, arg)
}

// hasTrustRecord reports whether recs trust dir, with whatever contents.
func hasTrustRecord(recs []trustRecord, dir string) bool {
	dir = filepath.Clean(dir)
	for _, r := range recs {
		if filepath.Clean(r.Path) == dir {
			return true
		}
	}
	return false
}

// UntrustedHint is the message to show for s when it is Untrusted: it names
// s.ProjectDir (for a Server built without it, the directory of Source).
func (s *Server) UntrustedHint() string {
	dir := s.ProjectDir
	if dir == "" {
		dir = "."
		if s.Source != "" {
			dir = filepath.Dir(s.Source)
		}
	}
	return untrustedHint(dir, s.TrustChanged)
}

// hashProject hashes the project files in their fixed order: for each file
// that exists, its name, its length and its content (the length makes the
// encoding unambiguous).
func hashProject(contents map[string][]byte) hash.Hash {
	h := sha256.New()
	for _, name := range projectFiles() {
		data, ok := contents[name]
		if !ok {
			continue
		}
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(data))))
		h.Write([]byte{0})
		h.Write(data)
	}
	return h
}

// MaxPluginBytes caps a .wasm file read for the trust hash (the plugin
// loader has the same cap).
const MaxPluginBytes = 128 << 20

// The trust hash is computed for every project mcphost runs in, trusted or
// not, so what it reads besides the project files is bounded: a cloned
// repository naming a thousand links to one large file must not stall
// every command. A project over these bounds cannot be trusted.
const maxTrustRefs = 1024 // plugin and env files named

// maxTrustBytes bounds their bytes in all (a variable for the tests).
var maxTrustBytes int64 = 512 << 20

// trustHash is the hash a trust record holds (see projectHash); "" for a
// project that cannot be trusted, which matches no record.
func trustHash(r *resolved, dir string, contents map[string][]byte) string {
	h, err := projectHash(r, dir, contents)
	if err != nil {
		return ""
	}
	return h
}

// projectHash hashes the project files (hashProject); then, for every
// plugin path the project's native file names, the path and the file's
// bytes; then, for every env file its servers name (in the native file or
// .mcp.json), the path and the bytes the loader would read ("missing",
// "unreadable" or "outside" instead when there are none to read). A project
// without plugins or env files hashes as it did before they counted.
func projectHash(r *resolved, dir string, contents map[string][]byte) (string, error) {
	h := hashProject(contents)
	plugins, envFiles := projectRefs(r, dir, contents)
	if n := len(plugins) + len(envFiles); n > maxTrustRefs {
		return "", fmt.Errorf("config: %s: the project files name %d plugin and env files, more than %d: mcphost does not trust such a project", dir, n, maxTrustRefs)
	}
	budget := maxTrustBytes
	for _, p := range plugins {
		h.Write([]byte("\x00plugin\x00" + p + "\x00"))
		hashFile(h, p, MaxPluginBytes, &budget)
	}
	for _, p := range envFiles {
		h.Write([]byte("\x00env_file\x00" + p + "\x00"))
		read, outside, err := projectEnvPath(dir, p)
		switch {
		case outside:
			h.Write([]byte("outside")) // the loader refuses it
		case err != nil:
			h.Write([]byte("unreadable"))
		default:
			hashFile(h, read, MaxEnvFileBytes, &budget)
		}
	}
	if budget < 0 {
		return "", fmt.Errorf("config: %s: the plugin and env files the project names hold more than %d bytes in all: mcphost does not trust such a project", dir, maxTrustBytes)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile writes the length and bytes of the file at p (at most limit of
// them), or "missing" or "unreadable", and takes what it read from budget.
// Once budget is spent nothing more is read.
func hashFile(h hash.Hash, p string, limit int64, budget *int64) {
	if *budget < 0 {
		return
	}
	data, err := safefile.ReadFile(p, limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		h.Write([]byte("missing"))
	case err != nil:
		h.Write([]byte("unreadable"))
	default:
		*budget -= int64(len(data))
		h.Write([]byte(strconv.Itoa(len(data)) + "\x00"))
		h.Write(data)
	}
}

// projectRefs lists, sorted and once each, the absolute paths of the
// plugins the project's native file names and of the env files the servers
// of its files name (${VAR} expanded as the loader does; a value that does
// not expand, or names a file outside the project as written, is left to
// the loader's error: it is never read).
func projectRefs(r *resolved, dir string, contents map[string][]byte) (plugins, envFiles []string) {
	for _, name := range projectFiles() {
		data, ok := contents[name]
		if !ok {
			continue
		}
		m, err := parseFile(filepath.Join(dir, name), data)
		if err != nil {
			continue
		}
		keys := []string{"mcpServers"}
		if name != MCPJSONFile {
			keys = append(keys, "servers")
			list, _ := m["plugins"].([]any)
			for _, e := range list {
				pm, _ := e.(map[string]any)
				if p := refPath(r, dir, pm["path"]); p != "" {
					plugins = append(plugins, p)
				}
			}
		}
		for _, k := range keys {
			servers, _ := m[k].(map[string]any)
			for _, e := range servers {
				em, _ := e.(map[string]any)
				for _, f := range []string{"env_file", "envFile"} {
					p := refPath(r, dir, em[f])
					if p != "" && within(dir, p) {
						envFiles = append(envFiles, p)
					}
				}
			}
		}
	}
	slices.Sort(plugins)
	slices.Sort(envFiles)
	return slices.Compact(plugins), slices.Compact(envFiles)
}

// refPath is the absolute, clean path a project file's value v names: ""
// when v is not a string, is empty, does not expand or starts with "~"
// (the home directory, outside every project).
func refPath(r *resolved, dir string, v any) string {
	raw, _ := v.(string)
	if raw == "" {
		return ""
	}
	p, err := Expand(raw, r.lookup)
	if err != nil || p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// projectDir makes dir absolute and clean; "" means the options' WorkDir.
// A relative dir is taken from the process's directory, as a CLI argument is.
func projectDir(r *resolved, dir string) (string, error) {
	if dir == "" {
		dir = r.workDir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("config: %s: %w", dir, err)
	}
	return filepath.Clean(abs), nil
}

func matchTrust(recs []trustRecord, dir, hash string) bool {
	if hash == "" {
		return false // a project that cannot be trusted
	}
	dir = filepath.Clean(dir)
	for _, r := range recs {
		if filepath.Clean(r.Path) == dir && r.SHA256 == hash {
			return true
		}
	}
	return false
}

func parseTrusted(source string, v any) ([]trustRecord, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("config: %s: trusted_projects: must be a list of {path, sha256}", source)
	}
	var out []trustRecord
	for i, e := range list {
		m, ok := e.(map[string]any)
		p, ok1 := m["path"].(string)
		h, ok2 := m["sha256"].(string)
		if !ok || !ok1 || !ok2 {
			return nil, fmt.Errorf("config: %s: trusted_projects[%d]: must have string fields path and sha256", source, i)
		}
		out = append(out, trustRecord{Path: p, SHA256: h})
	}
	return out, nil
}

// IsTrusted reports whether the project in dir ("" for opts.WorkDir) is
// trusted with its current files, by the records in the global config file
// of opts.
func IsTrusted(opts LoadOptions, dir string) (bool, error) {
	r, err := opts.resolve()
	if err != nil {
		return false, err
	}
	dir, err = projectDir(r, dir)
	if err != nil {
		return false, err
	}
	return isTrustedDir(r, dir)
}

// isTrustedDir is IsTrusted for an absolute, clean dir.
func isTrustedDir(r *resolved, dir string) (bool, error) {
	g, errs := readGlobal(r)
	if len(errs) > 0 {
		return false, errs[0]
	}
	contents, err := readProjectFiles(dir)
	if err != nil {
		return false, err
	}
	if g == nil {
		return false, nil
	}
	return matchTrust(g.trusted, dir, trustHash(r, dir, contents)), nil
}

// Trust records the project in dir ("" for opts.WorkDir), with the current
// content of its files, as trusted in the global config file (created if
// absent; the rest of the file is kept). A record for the same path is
// replaced.
func Trust(opts LoadOptions, dir string) error {
	r, err := opts.resolve()
	if err != nil {
		return err
	}
	if r.globalDir == "" {
		return fmt.Errorf("config: no user config directory (set LoadOptions.GlobalDir or XDG_CONFIG_HOME)")
	}
	dir, err = projectDir(r, dir)
	if err != nil {
		return err
	}
	return trustDir(r, dir)
}

// trustDir is Trust for an absolute, clean dir.
func trustDir(r *resolved, dir string) error {
	contents, err := readProjectFiles(dir)
	if err != nil {
		return err
	}
	sum, err := projectHash(r, dir, contents)
	if err != nil {
		return err
	}
	rec := trustRecord{Path: dir, SHA256: sum}
	path, err := scopeFile(r, ScopeGlobal)
	if err != nil {
		return err
	}
	return editFile(r, path, fileEdit{
		kind: kindGlobal,
		yaml: func(root *yamlNode) error { return yamlSetTrust(root, rec) },
		tree: func(m map[string]any) error {
			list, _ := m["trusted_projects"].([]any)
			if m["trusted_projects"] != nil && list == nil {
				return fmt.Errorf("config: %s: trusted_projects: must be a list", path)
			}
			entry := map[string]any{"path": rec.Path, "sha256": rec.SHA256}
			for i, e := range list {
				if em, ok := e.(map[string]any); ok && em["path"] == rec.Path {
					list[i] = entry
					m["trusted_projects"] = list
					return nil
				}
			}
			m["trusted_projects"] = append(list, entry)
			return nil
		},
	})
}
