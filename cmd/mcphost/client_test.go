package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/userdirs"
)

const fakeMcphost = "/opt/mcphost/bin/mcphost"

// newClientEnv is a testEnv whose home directory is a temporary one: the
// clients' user files are looked for there, never in the real home. Its
// directories are reached through no symbolic link, so that the files
// edited are the paths shown.
func newClientEnv(t *testing.T) (*testEnv, string) {
	t.Helper()
	e := newEnv(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if e.work, err = filepath.EvalSymlinks(e.work); err != nil {
		t.Fatal(err)
	}
	e.environ = []string{"HOME=" + home}
	return e, home
}

// backupsOf lists the backups of path in the env's state directory.
func (e *testEnv) backupsOf(path string) []string {
	m, _ := filepath.Glob(filepath.Join(e.state, "backups", userdirs.KeyedName(path)+".*"))
	return m
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestClientInstallYes(t *testing.T) {
	e, home := newClientEnv(t)
	r := e.must(0, "client", "install", "cursor", "--command", fakeMcphost, "--yes")
	path := filepath.Join(home, ".cursor", "mcp.json")
	for _, want := range []string{"Cursor (user scope): " + path, `add "mcphost" to mcpServers:`, `+   "command": "` + fakeMcphost + `",`, "created " + path} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r)
		}
	}
	want := "{\n  \"mcpServers\": {\n    \"mcphost\": {\n      \"command\": \"" + fakeMcphost + "\",\n      \"args\": [\"serve\"]\n    }\n  }\n}\n"
	if got := fileText(t, path); got != want {
		t.Fatalf("file:\n%s\nwant:\n%s", got, want)
	}
	r = e.must(0, "client", "install", "cursor", "--command", fakeMcphost)
	if !strings.Contains(r.stdout, `"mcphost" is already installed`) {
		t.Fatalf("second install:\n%s", r)
	}
}

func TestClientInstallDryRun(t *testing.T) {
	e, home := newClientEnv(t)
	path := filepath.Join(home, ".gemini", "settings.json")
	orig := "{\n  // mine\n  \"theme\": \"GitHub\"\n}\n"
	writeFile(t, path, orig)
	r := e.must(0, "client", "install", "gemini", "--command", fakeMcphost, "--dry-run")
	if !strings.Contains(r.stdout, "+ \"mcphost\": {") || !strings.Contains(r.stdout, "dry run: "+path+" not changed") {
		t.Fatalf("dry run output:\n%s", r)
	}
	if fileText(t, path) != orig {
		t.Fatal("--dry-run wrote the file")
	}
	if m := e.backupsOf(path); len(m) != 0 {
		t.Fatalf("--dry-run left backups: %v", m)
	}
}

// TestClientInstallNeedsConfirmation: without --yes, a terminal is asked;
// without one, the command refuses and says what to pass.
func TestClientInstallNeedsConfirmation(t *testing.T) {
	e, home := newClientEnv(t)
	path := filepath.Join(home, ".codex", "config.toml")
	orig := "model = \"o3\" # keep\n"
	writeFile(t, path, orig)

	r := e.must(exitUsage, "client", "install", "codex", "--command", fakeMcphost)
	if !strings.Contains(r.stderr, "no terminal to confirm on: pass --yes") || !strings.Contains(r.stderr, "--dry-run") {
		t.Fatalf("no terminal:\n%s", r)
	}
	if !strings.Contains(r.stdout, "+ [mcp_servers.mcphost]") {
		t.Fatalf("the change is not shown before refusing:\n%s", r)
	}
	e.terminal = true
	r = e.runStdin("n\n", "client", "install", "codex", "--command", fakeMcphost)
	if r.code != exitFailure || !strings.Contains(r.stderr, "write "+path+"? [y/N]") || !strings.Contains(r.stderr, "not confirmed") {
		t.Fatalf("answer n:\n%s", r)
	}
	if fileText(t, path) != orig {
		t.Fatal("written although not confirmed")
	}
	r = e.runStdin("y\n", "client", "install", "codex", "--command", fakeMcphost)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+path) || !strings.Contains(r.stdout, "the previous version is kept in "+filepath.Join(e.state, "backups", userdirs.KeyedName(path))+".") {
		t.Fatalf("answer y:\n%s", r)
	}
	want := orig + "\n[mcp_servers.mcphost]\ncommand = \"" + fakeMcphost + "\"\nargs = [\"serve\"]\n"
	if got := fileText(t, path); got != want {
		t.Fatalf("file:\n%s\nwant:\n%s", got, want)
	}

	r = e.runStdin("yes\n", "client", "uninstall", "codex")
	if r.code != 0 || !strings.Contains(r.stdout, `remove "mcphost" from mcp_servers`) {
		t.Fatalf("uninstall:\n%s", r)
	}
	if fileText(t, path) != orig {
		t.Fatalf("install then uninstall changed the file:\n%s", fileText(t, path))
	}
	if m := e.backupsOf(path); len(m) != 2 {
		t.Fatalf("want a backup per write, got %v", m)
	}
}

func TestClientInstallConflict(t *testing.T) {
	e, home := newClientEnv(t)
	e.must(0, "client", "install", "windsurf", "--command", fakeMcphost, "-y")
	path := filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")
	r := e.must(exitFailure, "client", "install", "windsurf", "--command", "/usr/local/bin/mcphost", "-y")
	if !strings.Contains(r.stderr, "already has a different entry") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("conflict:\n%s", r)
	}
	r = e.must(0, "client", "install", "windsurf", "--command", "/usr/local/bin/mcphost", "-y", "--force")
	if !strings.Contains(r.stdout, "- ") || !strings.Contains(r.stdout, "/usr/local/bin/mcphost") || !strings.Contains(fileText(t, path), "/usr/local/bin/mcphost") {
		t.Fatalf("--force:\n%s", r)
	}
	// Another name installs beside it.
	e.must(0, "client", "install", "windsurf", "--command", fakeMcphost, "--name", "gateway", "-y")
	if got := fileText(t, path); !strings.Contains(got, `"gateway"`) || !strings.Contains(got, `"mcphost"`) {
		t.Fatalf("file:\n%s", got)
	}
}

func TestClientUninstall(t *testing.T) {
	e, _ := newClientEnv(t)
	path := filepath.Join(e.work, ".vscode", "mcp.json")
	orig := "{\n\t\"servers\": {\n\t\t// the team's\n\t\t\"mcphost\": {\"command\": \"npx\", \"args\": [\"other\"]}\n\t}\n}\n"
	writeFile(t, path, orig)
	r := e.must(exitFailure, "client", "uninstall", "vscode", "--scope", "project", "-y")
	if !strings.Contains(r.stderr, `does not run "mcphost serve"`) || fileText(t, path) != orig {
		t.Fatalf("uninstall of a foreign entry:\n%s", r)
	}
	e.must(0, "client", "rm", "vscode", "-s", "project", "-y", "--force")
	if got := fileText(t, path); got != "{\n\t\"servers\": {\n\t\t// the team's\n\t}\n}\n" {
		t.Fatalf("after uninstall:\n%q", got)
	}
	r = e.must(0, "client", "uninstall", "vscode", "-s", "project")
	if !strings.Contains(r.stdout, `"mcphost" is not installed`) {
		t.Fatalf("second uninstall:\n%s", r)
	}
}

func TestClientInstallProjectAndConfig(t *testing.T) {
	e, _ := newClientEnv(t)
	cfg := filepath.Join(t.TempDir(), "org.yaml")
	e.must(0, "--config", cfg, "client", "install", "claude-code", "--scope", "project", "--command", fakeMcphost, "-y")
	got := fileText(t, filepath.Join(e.work, ".mcp.json"))
	if !strings.Contains(got, `"args": ["serve", "--config", "`+cfg+`"]`) {
		t.Fatalf(".mcp.json:\n%s", got)
	}
	r := e.must(exitFailure, "client", "install", "claude-desktop", "--scope", "project", "--command", fakeMcphost, "-y")
	if !strings.Contains(r.stderr, "--scope user") {
		t.Fatalf("claude-desktop project:\n%s", r)
	}
}

func TestClientUsageErrors(t *testing.T) {
	e, _ := newClientEnv(t)
	for _, args := range [][]string{
		{"client", "install", "nosuch"},
		{"client", "install", "goose"},
		{"client", "install", "cursor", "--scope", "local"},
		{"client", "install"},
		{"client", "nosuch"},
	} {
		e.must(exitUsage, args...)
	}
	e.environ = []string{}
	r := e.must(exitFailure, "client", "install", "cursor", "--command", fakeMcphost, "-y")
	if !strings.Contains(r.stderr, "set HOME") {
		t.Fatalf("no home:\n%s", r)
	}
}

// TestClientInstallDefaultCommand: the entry runs this executable, by its
// absolute path; a temporary build is warned about.
func TestClientInstallDefaultCommand(t *testing.T) {
	e, home := newClientEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	r := e.must(0, "client", "install", "zed", "--dry-run")
	if !strings.Contains(r.stdout, `"command": "`+exe+`"`) {
		t.Fatalf("the entry does not run %s:\n%s", exe, r)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") && !strings.Contains(r.stderr, "temporary build") {
		t.Fatalf("no warning about the temporary build:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "zed")); !os.IsNotExist(err) {
		t.Fatalf("--dry-run created the directory: %v", err)
	}
}

func TestClientList(t *testing.T) {
	e, home := newClientEnv(t)
	e.must(0, "client", "install", "claude-desktop", "--command", fakeMcphost, "-y")
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"mcphost": {"command": "/old/mcphost", "args": ["serve"]}}}`)
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": `)
	r := e.must(0, "client", "ls", "--command", fakeMcphost)
	lines := strings.Split(r.stdout, "\n")
	find := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(strings.Join(strings.Fields(l), " "), prefix) {
				return l
			}
		}
		t.Fatalf("no line %q:\n%s", prefix, r)
		return ""
	}
	find("CLIENT SCOPE STATE FILE")
	find("claude-desktop user installed " + filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"))
	find("cursor user different: runs /old/mcphost")
	find("cursor project no file")
	find("gemini user error")
	if !strings.Contains(r.stderr, "warning: gemini (user):") || !strings.Contains(r.stderr, "not valid JSON") {
		t.Fatalf("the broken file is not explained:\n%s", r)
	}
}

// Installing says which servers the client still starts itself: those
// mcphost serves too (their tools would show twice) and those it lacks.
func TestClientInstallNamesDirectServers(t *testing.T) {
	e, home := newClientEnv(t)
	path := filepath.Join(home, ".cursor", "mcp.json")
	writeFile(t, path, `{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
  "same-cmd": {"command": "uvx", "args": ["mcp-server-fetch"]},
  "only-here": {"command": "node", "args": ["x.js"]}
}}`)
	cfg := e.configFile(map[string]any{
		"files": map[string]any{"command": "npx", "args": []any{"-y", "@modelcontextprotocol/server-filesystem", "."}},
		"fetch": map[string]any{"command": "uvx", "args": []any{"mcp-server-fetch"}},
	})
	r := e.must(0, "--config", cfg, "client", "install", "cursor", "--command", fakeMcphost, "--dry-run")
	wantContains(t, "install", r.stdout,
		`Cursor also starts "files", "same-cmd" itself, which mcphost serves too`,
		`Cursor starts "only-here" itself, outside mcphost's policies; "mcphost mcp import --from cursor"`)
}

// symlinkTo makes link point at target by a relative path, as a link
// checked into a repository does.
func symlinkTo(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Dir(link), target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
}

// A project whose .cursor/mcp.json links to the user's file: install is
// refused, the user's file is untouched, and no backup of it (with the
// user's token) is left in the project.
func TestClientInstallRefusesProjectLinkToHome(t *testing.T) {
	e, home := newClientEnv(t)
	userFile := filepath.Join(home, ".cursor", "mcp.json")
	secret := `{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"AUTH": "Bearer ghp_USERSECRET"}}}}`
	writeFile(t, userFile, secret)
	symlinkTo(t, userFile, filepath.Join(e.work, ".cursor", "mcp.json"))
	for _, args := range [][]string{
		{"client", "install", "cursor", "--scope", "project", "--yes"},
		{"client", "uninstall", "cursor", "--scope", "project", "--yes", "--force"},
	} {
		r := e.must(exitFailure, args...)
		wantContains(t, args[1], r.stderr, "outside the project directory", userFile)
	}
	if fileText(t, userFile) != secret {
		t.Fatalf("the user's file changed:\n%s", fileText(t, userFile))
	}
	err := filepath.WalkDir(e.work, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.Contains(fileText(t, p), "USERSECRET") {
			t.Errorf("%s in the project holds the user's token", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := e.must(0, "client", "list", "--command", fakeMcphost)
	wantContains(t, "list", r.stderr, "warning: cursor (project):", "outside the project directory")
}

// A user's file that is a link (dotfiles): the target is shown, written,
// and its backup named after it, in the state directory.
func TestClientInstallShowsLinkTarget(t *testing.T) {
	e, home := newClientEnv(t)
	target := writeFile(t, filepath.Join(home, "dotfiles", "cursor.json"), `{"mcpServers": {}}`)
	link := filepath.Join(home, ".cursor", "mcp.json")
	symlinkTo(t, target, link)
	r := e.must(0, "client", "install", "cursor", "--command", fakeMcphost, "--yes")
	wantContains(t, "install", r.stdout,
		"Cursor (user scope): "+link+"\n(a symbolic link: the file edited is "+target+")",
		"wrote "+target, "the previous version is kept in "+filepath.Join(e.state, "backups", userdirs.KeyedName(target))+".")
	if m, _ := filepath.Glob(link + ".mcphost-backup-*"); len(m) != 0 {
		t.Fatalf("backup beside the link: %v", m)
	}
	if !strings.Contains(fileText(t, target), fakeMcphost) {
		t.Fatalf("target not written:\n%s", fileText(t, target))
	}
	r = e.must(0, "client", "list", "--command", fakeMcphost)
	if !strings.Contains(r.stdout, link+" -> "+target) {
		t.Fatalf("list does not show the target:\n%s", r)
	}
}

// A newline in a project file's command, or in a server's name, adds no
// line to "client list", to the install error or to the hints.
func TestClientForeignNewlines(t *testing.T) {
	e, _ := newClientEnv(t)
	writeFile(t, filepath.Join(e.work, ".cursor", "mcp.json"),
		`{"mcpServers": {"mcphost": {"command": "x\nvscode user installed /fake", "args": ["serve"]}}}`)
	r := e.must(0, "client", "list", "--command", fakeMcphost)
	rows := 0
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "vscode") && strings.Contains(l, "user") {
			rows++
		}
	}
	if rows != 1 || !strings.Contains(r.stdout, `different: runs x\nvscode user installed /fake`) {
		t.Fatalf("the command added a row:\n%s", r)
	}
	r = e.must(exitFailure, "client", "install", "cursor", "--scope", "project", "--command", fakeMcphost, "-y")
	if strings.Contains(r.stderr, "\nvscode") || !strings.Contains(r.stderr, `(command "x\nvscode user installed /fake")`) {
		t.Fatalf("the command added a line to the error:\n%s", r)
	}

	e, home := newClientEnv(t)
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"),
		`{"mcpServers": {"a\nnote: fake": {"command": "node", "args": ["x.js"]}}}`)
	r = e.must(0, "client", "install", "cursor", "--command", fakeMcphost, "--dry-run")
	if strings.Contains(r.stdout, "\nnote: fake") || !strings.Contains(r.stdout, `starts "a\nnote: fake" itself`) {
		t.Fatalf("a server name added a line:\n%s", r)
	}
}

// A project's entry runs "mcphost" from PATH, not this machine's path of
// the executable, and the output says so; --command still wins.
func TestClientInstallProjectRunsFromPath(t *testing.T) {
	e, _ := newClientEnv(t)
	path := filepath.Join(e.work, ".cursor", "mcp.json")
	r := e.must(0, "client", "install", "cursor", "--scope", "project", "--yes")
	wantContains(t, "install", r.stdout, `+   "command": "mcphost",`, `the entry runs "mcphost" found on PATH`)
	if got := fileText(t, path); !strings.Contains(got, `"command": "mcphost",`) {
		t.Fatalf("file:\n%s", got)
	}
	r = e.must(0, "client", "list")
	if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "cursor project installed "+path) {
		t.Fatalf("list:\n%s", r)
	}
	e.must(0, "client", "uninstall", "cursor", "--scope", "project", "--yes")
	e.must(0, "client", "install", "cursor", "--scope", "project", "--command", fakeMcphost, "--yes")
	if got := fileText(t, path); !strings.Contains(got, `"command": "`+fakeMcphost+`"`) {
		t.Fatalf("--command:\n%s", got)
	}
}
