// Package userdirs says where mcphost keeps what belongs to the user and
// not to a project: the locks of the files it edits and the backups of the
// files it changes. Kept out of a project, they are never committed with
// it, and a cloned repository cannot plant or redirect them.
package userdirs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNoStateDir: neither XDG_STATE_HOME nor a home directory is known.
var ErrNoStateDir = errors.New("no user state directory: set XDG_STATE_HOME (or HOME)")

// State is the user's state directory for mcphost: $XDG_STATE_HOME/mcphost
// when that variable holds an absolute path (on every system: the user
// asked for it), else ~/.local/state/mcphost (the XDG default),
// ~/Library/Application Support/mcphost/state on macOS and
// %LocalAppData%\mcphost\state on Windows. getenv reads the environment
// and home is the home directory: tests give their own, so that nothing
// reaches the real user's.
func State(getenv func(string) string, home, goos string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcphost"), nil
	}
	if goos == "windows" {
		if d := getenv("LocalAppData"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "mcphost", "state"), nil
		}
	}
	if home == "" || !filepath.IsAbs(home) {
		return "", ErrNoStateDir
	}
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "mcphost", "state"), nil
	case "windows":
		return filepath.Join(home, "AppData", "Local", "mcphost", "state"), nil
	}
	return filepath.Join(home, ".local", "state", "mcphost"), nil
}

// ProcessState is State for this process's environment and home.
func ProcessState() (string, error) {
	home, _ := os.UserHomeDir()
	return State(os.Getenv, home, runtime.GOOS)
}

// maxBaseLen keeps a keyed name well under the 255 bytes a file name may
// have, whatever the name of the file it is about.
const maxBaseLen = 64

// KeyedName is the name, inside a state directory, of something about the
// file at path (its lock, its backups): the file's base name, so that a
// person can find it, then 16 hex digits of the SHA-256 of its absolute
// path, so that two projects' .mcphost.yaml never share one. Symbolic links
// of path are resolved first (read only, nothing is opened there): two
// routes to one file get one name, as they write one file. The base name is
// reduced to letters, digits, '.', '_' and '-' (no leading dot, at most 64
// bytes): it comes from a project and may be anything a file name may be.
func KeyedName(path string) string {
	abs := resolved(path)
	sum := sha256.Sum256([]byte(abs))
	return cleanBase(filepath.Base(abs)) + "-" + hex.EncodeToString(sum[:8])
}

// resolved is path made absolute with its symbolic links resolved as far
// as they exist (the file itself, or else its directory, may not exist yet).
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

func cleanBase(base string) string {
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= maxBaseLen {
			break
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if s == "" {
		s = "file"
	}
	return s
}
