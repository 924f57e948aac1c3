package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// localPath is where the local scope of e's project directory is written.
func (e *testEnv) localPath() string {
	e.t.Helper()
	p, exists, err := ScopeFile(e.opts(), ScopeLocal)
	if err != nil {
		e.t.Fatal(err)
	}
	if exists && filepath.Dir(p) != filepath.Join(e.global, "local") {
		e.t.Fatalf("local file %s is not under the user's config directory", p)
	}
	return p
}

func TestLocalFileIsPerDirectory(t *testing.T) {
	e := newEnv(t)
	p := e.localPath()
	if filepath.Dir(p) != filepath.Join(e.global, "local") || !strings.HasPrefix(filepath.Base(p), "project-") || filepath.Ext(p) != ".yaml" {
		t.Fatalf("local file = %s", p)
	}
	// Another directory of the same name has a file of its own.
	other := filepath.Join(t.TempDir(), "project")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	q, _, err := ScopeFile(LoadOptions{GlobalDir: e.global, WorkDir: other}, ScopeLocal)
	if err != nil || q == p || filepath.Dir(q) != filepath.Dir(p) {
		t.Fatalf("other project's local file = %s, %v (first: %s)", q, err, p)
	}
	// Odd directory names still make a plain file name.
	for _, dir := range []string{"/", "/srv/a b/\x1b[2J", "/srv/..hidden", "/srv/" + strings.Repeat("x", 300)} {
		base := localBase(dir)
		if strings.ContainsAny(base, " /\\\x1b") || strings.HasPrefix(base, ".") || len(base) > 64 {
			t.Errorf("localBase(%q) = %q", dir, base)
		}
	}
}

func TestLocalScopeAddListRemove(t *testing.T) {
	e := newEnv(t)
	path, err := AddServer(e.opts(), ScopeLocal, ServerEntry{ID: "mine", Command: "srv", Args: []string{"-v"}, Cwd: "sub"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if path != e.localPath() {
		t.Fatalf("written to %s, want %s", path, e.localPath())
	}
	content := readString(t, path)
	// The file says which directory it belongs to.
	if !strings.HasPrefix(content, "# mcphost: servers private to you in "+e.work) {
		t.Errorf("local file:\n%s", content)
	}
	// Nothing was written into the project.
	if _, err := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); err == nil {
		t.Fatal("a local add created the project file")
	}
	s := server(t, e.load(), "mine")
	// Trusted (the user's own words); cwd relative to the project directory.
	if s.Err != nil || s.Untrusted || s.Source != path || s.Scope != ScopeLocal || s.Cwd != filepath.Join(e.work, "sub") {
		t.Fatalf("mine = %+v", s)
	}
	// Another directory does not see it.
	other := LoadOptions{GlobalDir: e.global, WorkDir: t.TempDir(), Environ: []string{}}
	if cfg, err := Load(other); err != nil || len(cfg.Servers) != 0 {
		t.Fatalf("another directory: %v, %v", ids(cfg), err)
	}

	e.writeGlobal("config.yaml", "servers:\n  g: {command: gcmd}\n")
	local, err := LoadScope(e.opts(), ScopeLocal)
	if err != nil || len(local.Servers) != 1 || local.Servers[0].ID != "mine" || !slices.Equal(local.Files, []string{path}) {
		t.Fatalf("LoadScope(local) = %v, %v, %v", ids(local), local.Files, err)
	}
	user, err := LoadScope(e.opts(), ScopeUser)
	if err != nil || len(user.Servers) != 1 || user.Servers[0].ID != "g" {
		t.Fatalf("LoadScope(user) = %v, %v", ids(user), err)
	}
	if scopes, files, err := ServerScopes(e.opts(), "mine"); err != nil || !slices.Equal(scopes, []Scope{ScopeLocal}) || files[0] != path {
		t.Fatalf("ServerScopes = %v %v %v", scopes, files, err)
	}

	if _, err := RemoveServer(e.opts(), ScopeLocal, "mine"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readString(t, path), "servers private to you") {
		t.Error("the header comment did not survive an edit")
	}
	if cfg := e.load(); len(cfg.Servers) != 1 {
		t.Fatalf("after remove: %v", ids(cfg))
	}
	_, err = RemoveServer(e.opts(), ScopeLocal, "g")
	wantErrContains(t, err, path, `no server "g"`, "comes from "+filepath.Join(e.global, "config.yaml"))
}

// Precedence is Claude Code's: local over project over user. A local entry
// that defines the server replaces the others' entry for that id whole; one
// that only refines (enabled, env) merges over it.
func TestLocalScopePrecedence(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  both: {command: user-cmd, env: {FROM_USER: u}}\n  shared: {command: shared-cmd}\n")
	proj := e.writeProject(".mcphost.yaml", "servers:\n  repo: {command: repo-cmd, args: [--evil], cwd: /opt/repo}\n")
	e.trust()
	if _, err := AddServer(e.opts(), ScopeLocal, ServerEntry{ID: "both", URL: "https://mine.example/mcp"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := AddServer(e.opts(), ScopeLocal, ServerEntry{ID: "repo", Command: "my-cmd"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := SetEnabled(e.opts(), ScopeLocal, "shared", false); err != nil {
		t.Fatal(err)
	}
	cfg := e.load()
	local := e.localPath()
	both := server(t, cfg, "both")
	if both.Err != nil || both.URL != "https://mine.example/mcp" || both.Command != "" || both.Env != nil || both.Source != local {
		t.Errorf("both = %+v", both)
	}
	// The project's args and cwd do not stick to the user's own command.
	repo := server(t, cfg, "repo")
	if repo.Err != nil || repo.Command != "my-cmd" || repo.Args != nil || repo.Cwd != "" || repo.Untrusted {
		t.Errorf("repo = %+v", repo)
	}
	shared := server(t, cfg, "shared")
	if shared.Enabled || shared.Command != "shared-cmd" || shared.Source != local {
		t.Errorf("shared = %+v", shared)
	}
	// The project file and the user file were not touched by local writes.
	if got := readString(t, proj); strings.Contains(got, "my-cmd") {
		t.Errorf("project file changed:\n%s", got)
	}
	// The local scope's listing shows the override over what it overrides.
	ls, err := LoadScope(e.opts(), ScopeLocal)
	if err != nil || len(ls.Servers) != 3 {
		t.Fatalf("LoadScope(local) = %v, %v", ids(ls), err)
	}
}

// A local override switches on or off a server of an untrusted project
// without making it trusted: only the user's own definition does that.
func TestLocalOverrideKeepsProjectUntrusted(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  repo: {command: repo-cmd, enabled: false}\n")
	if _, err := SetEnabled(e.opts(), ScopeLocal, "repo", true); err != nil {
		t.Fatal(err)
	}
	repo := server(t, e.load(), "repo")
	if !repo.Enabled || !repo.Untrusted || repo.Command != "repo-cmd" {
		t.Fatalf("repo = %+v", repo)
	}
	// The entry's source is now the local file, in the user's config
	// directory; what is to trust is still the project.
	if repo.ProjectDir != e.work {
		t.Errorf("ProjectDir = %q, want the project %q", repo.ProjectDir, e.work)
	}
	if hint := repo.UntrustedHint(); !strings.Contains(hint, "mcphost trust "+e.work) || strings.Contains(hint, e.global) {
		t.Errorf("hint names the wrong directory: %s", hint)
	}
}

func TestSetEnabledUserScopeRefusesOverrides(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  p: {command: x}\n")
	_, err := SetEnabled(e.opts(), ScopeUser, "p", false)
	wantErrContains(t, err, `"p"`, "not in the user file", "local scope")
}

func TestRemoveServerAnyScope(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "servers:\n  g: {command: x}\n  twice: {command: y}\n")
	if _, err := AddServer(e.opts(), ScopeLocal, ServerEntry{ID: "twice", Command: "z"}, false); err != nil {
		t.Fatal(err)
	}
	path, scope, err := RemoveServerAnyScope(e.opts(), "g")
	if err != nil || path != g || scope != ScopeUser {
		t.Fatalf("RemoveServerAnyScope(g) = %s %s %v", path, scope, err)
	}
	_, _, err = RemoveServerAnyScope(e.opts(), "twice")
	if !errors.Is(err, ErrSeveralScopes) {
		t.Fatalf("twice: %v", err)
	}
	wantErrContains(t, err, "local ("+e.localPath()+")", "user ("+g+")")
	if !strings.Contains(readString(t, g), "twice") {
		t.Fatal("an ambiguous remove removed something")
	}
	_, _, err = RemoveServerAnyScope(e.opts(), "nope")
	wantErrContains(t, err, `no server "nope" is configured`)
}

// A local file holds what the user file may, but no trust records.
func TestLocalFileKeys(t *testing.T) {
	e := newEnv(t)
	p := e.localPath()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("names: {scheme: tool}\nservers: {a: {command: x}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg := e.load(); cfg.Names.Scheme != SchemeBare || len(cfg.Servers) != 1 {
		t.Fatalf("cfg = %+v", cfg)
	}
	if err := os.WriteFile(p, []byte("trusted_projects: [{path: /x, sha256: y}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantErrContains(t, e.loadErr(), p, "trusted_projects is only read from the user (global) config file")
}

func TestWatchedFilesIncludeLocal(t *testing.T) {
	e := newEnv(t)
	files, err := WatchedFiles(e.opts())
	if err != nil || !slices.Contains(files, e.localPath()) {
		t.Fatalf("WatchedFiles = %v, %v (want %s)", files, err, e.localPath())
	}
}
