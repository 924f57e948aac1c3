package clientconf

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// projectShapes are the places, inside a project directory, of the files
// clients read a project's servers from: a file at such a place belongs to
// the project that holds it, wherever that is.
var projectShapes = [][]string{
	{".vscode", "mcp.json"},
	{".vscode", "settings.json"},
	{".cursor", "mcp.json"},
	{".mcp.json"},
	{".gemini", "settings.json"},
	{".zed", "settings.json"},
	{".codelia", "config.json"},
	{".beans", "mcp.json"},
	{".codex", "config.toml"},
}

// ProjectFileDir reports whether path (absolute) is where a client keeps
// a project's servers (.vscode/mcp.json, .cursor/mcp.json, .mcp.json,
// .gemini/settings.json, .zed/settings.json, .codelia/config.json,
// .beans/mcp.json, .codex/config.toml, and any mcp.json of tenx, which has no other file), and
// returns the directory of that project: the one its ${workspaceFolder}
// and relative paths mean. The user's own files (the user locations of
// every client) are not a project's, even where they have the same shape
// (~/.cursor/mcp.json).
func ProjectFileDir(kind Kind, env Env, path string) (string, bool) {
	path = filepath.Clean(path)
	if UserFile(env, path) {
		return "", false
	}
	if kind == Tenx && filepath.Base(path) == "mcp.json" {
		return filepath.Dir(path), true
	}
	for _, shape := range projectShapes {
		dir, ok := trimShape(path, shape)
		if ok {
			return dir, true
		}
	}
	return "", false
}

// UserFile reports whether path is one of the user's own files of a
// client (a user location of Locations, of any kind).
func UserFile(env Env, path string) bool {
	path = filepath.Clean(path)
	for _, k := range Kinds {
		for _, loc := range Locations(k, env) {
			if loc.Scope == ScopeUser && filepath.Clean(loc.Path) == path {
				return true
			}
		}
	}
	return false
}

// trimShape is path without the trailing elements of shape, if it ends so,
// in any case: Windows and macOS compare names so, and elsewhere it only
// makes more files count as a project's.
func trimShape(path string, shape []string) (string, bool) {
	for i := len(shape) - 1; i >= 0; i-- {
		if !strings.EqualFold(filepath.Base(path), shape[i]) {
			return "", false
		}
		parent := filepath.Dir(path)
		if parent == path {
			return "", false
		}
		path = parent
	}
	return path, true
}

// ErrOutsideProject is wrapped by ImportFile's error for a project's file
// that leads outside the project directory.
var ErrOutsideProject = errors.New("the file leads outside the project directory")

// checkInProject refuses a project's file that is, once every symbolic
// link in its path is resolved, outside the project directory dir: a
// repository's ".cursor/mcp.json -> ~/.cursor/mcp.json" would otherwise
// copy the user's own servers, tokens and all, into the shared project
// file. A file that does not exist is left to the reader to report.
func checkInProject(path, dir string) error {
	if dir == "" {
		return fmt.Errorf("clientconf: %s: a project's file needs the project directory", path)
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clientconf: %w", err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("clientconf: the project directory: %w", err)
	}
	if !isWithin(realDir, real) {
		return fmt.Errorf("clientconf: %s: %w %s (it is %s): not read; a project's file must be the project's own", path, ErrOutsideProject, dir, real)
	}
	return nil
}
