package userdirs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestStateHonoursXDGStateHome(t *testing.T) {
	cases := []struct {
		vars       map[string]string
		home, goos string
		want       string
		err        error
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state"}, "/home/u", "linux", "/x/state/mcphost", nil},
		{map[string]string{"XDG_STATE_HOME": "/x/state"}, "/Users/u", "darwin", "/x/state/mcphost", nil},
		// A relative XDG_STATE_HOME is invalid by the XDG rules: ignored.
		{map[string]string{"XDG_STATE_HOME": "rel"}, "/home/u", "linux", "/home/u/.local/state/mcphost", nil},
		{nil, "/home/u", "linux", "/home/u/.local/state/mcphost", nil},
		{nil, "/Users/u", "darwin", "/Users/u/Library/Application Support/mcphost/state", nil},
		{nil, "", "linux", "", ErrNoStateDir},
		{nil, "relative", "linux", "", ErrNoStateDir},
	}
	for _, c := range cases {
		got, err := State(envOf(c.vars), c.home, c.goos)
		if got != filepath.FromSlash(c.want) || !errors.Is(err, c.err) {
			t.Errorf("State(%v, %q, %s) = %q, %v; want %q, %v", c.vars, c.home, c.goos, got, err, c.want, c.err)
		}
	}
}

// Two projects' files of one name get two names; two routes to one file
// (a linked directory) get one; what a project names its file cannot
// escape the directory or grow without bound.
func TestKeyedName(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	na, nb := KeyedName(filepath.Join(a, ".mcphost.yaml")), KeyedName(filepath.Join(b, ".mcphost.yaml"))
	if na == nb {
		t.Fatalf("two projects share %q", na)
	}
	if !strings.HasPrefix(na, "mcphost.yaml-") || len(na) != len("mcphost.yaml-")+16 {
		t.Errorf("KeyedName = %q, want mcphost.yaml-<16 hex>", na)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(a, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if got := KeyedName(filepath.Join(link, ".mcphost.yaml")); got != na {
		t.Errorf("through a linked directory: %q, want %q", got, na)
	}
	odd := KeyedName(filepath.Join(a, "..\x1b]52;c;x\a"+strings.Repeat("y", 300)))
	if strings.ContainsAny(odd, "/\\\x1b\a") || len(odd) > maxBaseLen+17 {
		t.Errorf("KeyedName of an odd name = %q", odd)
	}
}
