package clientconf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file at a project's place belongs to the project that holds it; the
// user's own files do not, even where they have that shape.
func TestProjectFileDir(t *testing.T) {
	env := Env{GOOS: "linux", Home: "/home/alice", WorkDir: "/home/alice/work"}
	for _, c := range []struct {
		kind Kind
		path string
		dir  string // "" for not a project's file
	}{
		{VSCode, "/home/alice/clone/.vscode/mcp.json", "/home/alice/clone"},
		{Cursor, "/home/alice/clone/.cursor/mcp.json", "/home/alice/clone"},
		{Cursor, "/home/alice/.cursor/mcp.json", ""},
		{ClaudeCode, "/srv/repo/.mcp.json", "/srv/repo"},
		{Gemini, "/srv/repo/.gemini/settings.json", "/srv/repo"},
		{Gemini, "/home/alice/.gemini/settings.json", ""},
		{Zed, "/srv/repo/.zed/settings.json", "/srv/repo"},
		{Codelia, "/srv/repo/.codelia/config.json", "/srv/repo"},
		{Codelia, "/home/alice/.codelia/config.json", ""},
		{Beans, "/srv/repo/.beans/mcp.json", "/srv/repo"},
		{Tenx, "/srv/repo/mcp.json", "/srv/repo"},
		{Cursor, "/srv/repo/mcp.json", ""},
		{Codex, "/home/alice/backup/config.toml", ""},
		// The shape decides, whichever client is named.
		{Cursor, "/srv/repo/.vscode/mcp.json", "/srv/repo"},
	} {
		dir, ok := ProjectFileDir(c.kind, env, c.path)
		if ok != (c.dir != "") || dir != c.dir {
			t.Errorf("%s %s: %q %v, want %q", c.kind, c.path, dir, ok, c.dir)
		}
	}
}

// A repository's project file that is a symbolic link to the user's own
// file is not read: its servers, tokens and all, would go into the shared
// project file.
func TestImportFileSymlinkOutsideProject(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	const token = "Bearer user-own-token-0000"
	mine := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte(`{"mcpServers": {"api": {"url": "https://api.example/mcp", "headers": {"Authorization": "`+token+`"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(repo, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Dir(link), mine)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	env := Env{GOOS: "linux", Home: home, WorkDir: repo}
	res, err := ImportFile(Location{Kind: Cursor, Scope: ScopeProject, Path: link}, env)
	if !errors.Is(err, ErrOutsideProject) || res != nil {
		t.Fatalf("a link out of the project: %v %+v", err, res)
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("the error shows the file's content: %v", err)
	}
	// A link that stays inside the project is the project's own file.
	inside := filepath.Join(repo, "shared", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(inside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inside, []byte(`{"mcpServers": {"x": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "shared", "mcp.json"), link); err != nil {
		t.Fatal(err)
	}
	if res, err := ImportFile(Location{Kind: Cursor, Scope: ScopeProject, Path: link}, env); err != nil || len(res.Servers) != 1 {
		t.Errorf("a link inside the project: %v %+v", err, res)
	}
	// The user's own file, read as theirs, is read.
	if _, err := ImportFile(Location{Kind: Cursor, Scope: ScopeUser, Path: mine}, env); err != nil {
		t.Error(err)
	}
}

// The plan masks the value of a flag that names a secret.
func TestMaskSecretArgs(t *testing.T) {
	got := strings.Join(MaskSecretArgs([]string{"-y", "srv", "--api-key", "k-123", "--token=t-456", "--dir", "/tmp"}), " ")
	if got != "-y srv --api-key **** --token=**** --dir /tmp" {
		t.Errorf("masked: %s", got)
	}
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--header", "Authorization: Bearer hdr-1"}, []string{"--header", "****"}},
		{[]string{"--github-pat", "pat-2", "--path", "/p", "--pattern", "x*"}, []string{"--github-pat", "****", "--path", "/p", "--pattern", "x*"}},
		{[]string{"API_KEY=env-3", "MODE=fast", "http://h/x?a=b"}, []string{"API_KEY=****", "MODE=fast", "http://h/x?a=b"}},
		{[]string{"Bearer tok-4", "Authorization: Basic dXNlcg==", "a bearer of news"}, []string{"Bearer ****", "Authorization: Basic ****", "a bearer of news"}},
	} {
		if got := MaskSecretArgs(tc.in); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("MaskSecretArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
