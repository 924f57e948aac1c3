package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	ktoml "github.com/knadh/koanf/parsers/toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/mcphost/mcphost/internal/safefile"
)

// One edit of a configuration file: locked, checked, written atomically.

// fileEdit is one change, for YAML as node edits (comments and order
// survive) and for JSON and TOML on the decoded tree.
type fileEdit struct {
	kind layerKind // which rules the file is checked by before and after
	yaml func(root *yaml.Node) error
	tree func(m map[string]any) error
	// project, for an edit of a project file, is where the trust records
	// are: a trusted project stays trusted after mcphost's own edit.
	project *resolved
	// header is the comment a YAML file created by the edit starts with.
	header string
}

// headerOf is the header of a new file of scope: the local file says
// which directory it belongs to (its name only has a hash of it).
func headerOf(r *resolved, scope Scope) string {
	if scope == ScopeLocal {
		return localHeader(r.workDir)
	}
	return ""
}

// untyped is e for content the user did not type (an import, pasted
// JSON): a trusted project is not kept trusted after it, since the trust
// record would otherwise cover text nobody has read.
func (e fileEdit) untyped() fileEdit {
	e.project = nil
	return e
}

// projectOf is r for an edit of the project scope, else nil.
func projectOf(r *resolved, scope Scope) *resolved {
	if scope == ScopeProject {
		return r
	}
	return nil
}

// scopeEdit is e as an edit of the file of scope: checked by the scope's
// rules, a trusted project kept trusted, a new local file headed with the
// directory it belongs to.
func scopeEdit(r *resolved, scope Scope, e fileEdit) fileEdit {
	e.kind = scopeKind(scope)
	e.project = projectOf(r, scope)
	e.header = headerOf(r, scope)
	return e
}

// editFile applies e to path (an absent file counts as empty) and writes the
// result atomically. JSON keeps unknown keys but not their order (written
// with 2-space indent); TOML is decoded and re-encoded, which loses comments.
//
// The edit holds the file's lock from reading to renaming, so two mcphost
// processes editing one file both land (or one says to try again). When e
// edits a project file (e.project set) of a project that was trusted with
// the file as it was just read, the trust record is renewed for the result:
// the user's own edits through mcphost keep the project trusted, while an
// edit by anyone else, or of content the user did not type (see untyped),
// still untrusts it.
func editFile(r *resolved, path string, e fileEdit) error {
	unlock, err := lockFile(r, path)
	if err != nil {
		return err
	}
	defer unlock()
	wasTrusted := false
	if e.project != nil {
		wasTrusted, _ = isTrustedDir(e.project, filepath.Dir(path))
	}
	if err := editFileLocked(path, e); err != nil {
		return err
	}
	if wasTrusted {
		return trustDir(e.project, filepath.Dir(path))
	}
	return nil
}

func editFileLocked(path string, e fileEdit) error {
	data, err := readConfigFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: %w", unwrapPathError(err, path))
	}
	format, err := formatOf(path)
	if err != nil {
		return err
	}
	wasValid := checkFile(e.kind, path, data) == nil
	if _, err := parseFile(path, data); err != nil {
		return err
	}
	var out []byte
	switch format {
	case "yaml":
		edit := e.yaml
		if e.header != "" && len(bytes.TrimSpace(data)) == 0 {
			edit = func(root *yaml.Node) error {
				root.HeadComment = e.header
				return e.yaml(root)
			}
		}
		out, err = editYAML(path, data, edit)
	case "json":
		m := map[string]any{}
		if len(bytes.TrimSpace(data)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				return parseError(path, format, data, err)
			}
			if m == nil {
				m = map[string]any{}
			}
		}
		if err = e.tree(m); err != nil {
			return err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err = enc.Encode(m); err != nil {
			return fmt.Errorf("config: %s: %w", path, err)
		}
		out = buf.Bytes()
	case "toml":
		m, perr := ktoml.Parser().Unmarshal(data)
		if perr != nil {
			return parseError(path, format, data, perr)
		}
		if m == nil {
			m = map[string]any{}
		}
		if err = e.tree(m); err != nil {
			return err
		}
		out, err = ktoml.Parser().Marshal(m)
		if err != nil {
			return fmt.Errorf("config: %s: %w", path, err)
		}
	}
	if err != nil {
		return err
	}
	// Never turn a good file into a broken one (a YAML round trip of odd
	// input can change its meaning).
	if err := checkFile(e.kind, path, out); err != nil && wasValid {
		return fmt.Errorf("config: %s: the edit would make the file invalid, nothing written: %w", path, err)
	}
	return writeAtomic(path, out)
}

// checkFile reports the file-level errors Load would give for data.
func checkFile(kind layerKind, path string, data []byte) error {
	m, err := parseFile(path, data)
	if err != nil {
		return err
	}
	if _, errs := buildLayer(kind, path, filepath.Dir(path), m, false); len(errs) > 0 {
		return joinErrors(errs)
	}
	return nil
}

// writeAtomic writes through a temporary file and a rename, so a crash never
// leaves half a config (safefile.WriteAtomic).
func writeAtomic(path string, data []byte) error {
	if err := safefile.WriteAtomic(path, data); err != nil {
		return fmt.Errorf("config: writing %s: %w", path, err)
	}
	return nil
}
