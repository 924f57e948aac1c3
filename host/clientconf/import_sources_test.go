package clientconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file given is the user's, a project's by its place or by being in this
// directory; one of another project, or of nobody known, needs the scope
// named.
func TestImportSourceAt(t *testing.T) {
	env := Env{GOOS: "linux", Home: "/home/alice", WorkDir: "/home/alice/work"}
	for _, c := range []struct {
		kind       Kind
		path       string
		scopeNamed bool
		scope      Scope
		workDir    string
		refused    string // part of the error; "" for none
	}{
		{Cursor, "/home/alice/.cursor/mcp.json", false, ScopeUser, "/home/alice/work", ""},
		{Cursor, ".cursor/mcp.json", false, ScopeProject, "/home/alice/work", ""},
		{Cursor, "sub/servers.json", false, ScopeProject, "/home/alice/work", ""},
		{VSCode, "/srv/repo/.vscode/mcp.json", false, "", "", "is the file of the project in /srv/repo, not of this directory"},
		{VSCode, "/srv/repo/.vscode/mcp.json", true, ScopeProject, "/srv/repo", ""},
		{Cursor, "/tmp/servers.json", false, "", "", "is neither one of your clients' own files nor in this directory"},
		{Cursor, "/tmp/servers.json", true, ScopeUser, "/home/alice/work", ""},
		{Cursor, "../work/./x/../servers.json", false, ScopeProject, "/home/alice/work", ""},
	} {
		src, err := ImportSourceAt(c.kind, env, c.path, c.scopeNamed)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "nothing was imported") {
				t.Errorf("%s %s: %v, want an error saying %q", c.kind, c.path, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.kind, c.path, err)
			continue
		}
		want := c.path
		if !filepath.IsAbs(want) {
			want = filepath.Join(env.WorkDir, want)
		}
		if src.Location.Path != filepath.Clean(want) || src.Location.Kind != c.kind || src.Location.Scope != c.scope || src.Env.WorkDir != c.workDir {
			t.Errorf("%s %s: %+v, want scope %s, work dir %s", c.kind, c.path, src, c.scope, c.workDir)
		}
	}
}

// A path with a control character is shown escaped in the refusal.
func TestImportSourceAtEscapesPath(t *testing.T) {
	env := Env{GOOS: "linux", Home: "/home/alice", WorkDir: "/home/alice/work"}
	_, err := ImportSourceAt(Cursor, env, "/tmp/a\x1b[2Jb.json", false)
	if err == nil || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `\x1b`) {
		t.Fatalf("error %q: want the escape shown escaped", err)
	}
}

// Without a path, the client's files that exist are read, the user's
// first; none is an error naming where it looked.
func TestImportSources(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env := Env{GOOS: "linux", Home: home, WorkDir: work}
	_, err := ImportSources(Cursor, env)
	if err == nil || !strings.Contains(err.Error(), "no cursor configuration found (looked for "+filepath.Join(home, ".cursor", "mcp.json")) {
		t.Fatalf("no files: %v", err)
	}
	for _, p := range []string{filepath.Join(home, ".cursor", "mcp.json"), filepath.Join(work, ".cursor", "mcp.json")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srcs, err := ImportSources(Cursor, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Location.Scope != ScopeUser || srcs[1].Location.Scope != ScopeProject || srcs[1].Env.WorkDir != work {
		t.Fatalf("sources %+v", srcs)
	}
}
