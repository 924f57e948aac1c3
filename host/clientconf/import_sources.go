package clientconf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcphost/mcphost/internal/termtext"
)

// ImportSource is one client file to read, with the environment it is
// read in: for a project's file, Env.WorkDir is that project's directory
// (what its ${workspaceFolder} and relative paths mean).
type ImportSource struct {
	Location Location
	Env      Env
}

// ImportSourceAt is the file path given for an import of kind's servers
// (relative to env.WorkDir). It is a project's file by its place
// (.vscode/mcp.json, ...), or when it is in env.WorkDir and not one of the
// user's own files. A project's file outside env.WorkDir is refused
// unless the scope was named (scopeNamed): its servers are not this
// directory's, and the user scope runs them everywhere without "mcphost
// trust". So is a file that is neither the user's own nor in env.WorkDir:
// it may be anyone's.
func ImportSourceAt(kind Kind, env Env, path string, scopeNamed bool) (ImportSource, error) {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.WorkDir, p)
	}
	p = filepath.Clean(p)
	src := ImportSource{Location: Location{Kind: kind, Scope: ScopeUser, Path: p}, Env: env}
	if dir, ok := ProjectFileDir(kind, env, p); ok {
		if !isWithin(env.WorkDir, dir) && !scopeNamed {
			return ImportSource{}, fmt.Errorf("%s is the file of the project in %s, not of this directory: nothing was imported.\n"+
				"Run the import in %s (its servers then go to that project's file, which runs them only after \"mcphost trust\"), "+
				"or read its plan (--dry-run) and name the scope with --scope local, project or user", termtext.Line(p), termtext.Line(dir), termtext.Line(dir))
		}
		src.Location.Scope, src.Env.WorkDir = ScopeProject, dir
	} else if !UserFile(env, p) {
		if !isWithin(env.WorkDir, p) && !scopeNamed {
			// Neither the user's own file nor this directory's: it may be
			// anyone's, and the user scope runs it everywhere without
			// "mcphost trust".
			return ImportSource{}, fmt.Errorf("%s is neither one of your clients' own files nor in this directory: nothing was imported.\n"+
				"Read its plan (--dry-run) and name the scope with --scope local, project or user", termtext.Line(p))
		}
		if isWithin(env.WorkDir, p) {
			src.Location.Scope = ScopeProject
		}
	}
	return src, nil
}

// ImportSources are kind's files (Locations) that exist. None is an error
// that names the files looked for; so is a file that cannot be looked at.
func ImportSources(kind Kind, env Env) ([]ImportSource, error) {
	var (
		found  []ImportSource
		looked []string
	)
	for _, loc := range Locations(kind, env) {
		looked = append(looked, loc.Path)
		if _, err := os.Stat(loc.Path); err == nil {
			found = append(found, ImportSource{Location: loc, Env: env})
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %v", loc.Path, err)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no %s configuration found (looked for %s): give the file's path", kind, strings.Join(looked, ", "))
	}
	return found, nil
}
