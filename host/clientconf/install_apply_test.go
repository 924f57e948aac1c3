package clientconf

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/userdirs"
)

// testInstallEnv is a home and a project directory of their own.
func testInstallEnv(t *testing.T, goos string) Env {
	t.Helper()
	return Env{GOOS: goos, Home: t.TempDir(), WorkDir: t.TempDir()}
}

func TestInstallLocation(t *testing.T) {
	env := testInstallEnv(t, "linux")
	for _, tc := range []struct {
		kind  Kind
		scope Scope
		want  string // relative to the home (user) or the project
	}{
		{ClaudeDesktop, ScopeUser, ".config/Claude/claude_desktop_config.json"},
		{ClaudeCode, ScopeUser, ".claude.json"},
		{ClaudeCode, ScopeProject, ".mcp.json"},
		{Cursor, ScopeUser, ".cursor/mcp.json"},
		{Cursor, ScopeProject, ".cursor/mcp.json"},
		{Windsurf, ScopeUser, ".codeium/windsurf/mcp_config.json"},
		{VSCode, ScopeUser, ".config/Code/User/mcp.json"},
		{VSCode, ScopeProject, ".vscode/mcp.json"},
		{Codex, ScopeUser, ".codex/config.toml"},
		{Gemini, ScopeUser, ".gemini/settings.json"},
		{Gemini, ScopeProject, ".gemini/settings.json"},
		{Zed, ScopeUser, ".config/zed/settings.json"},
		{Zed, ScopeProject, ".zed/settings.json"},
	} {
		loc, err := InstallLocation(tc.kind, env, tc.scope)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.kind, tc.scope, err)
		}
		base := env.Home
		if tc.scope == ScopeProject {
			base = env.WorkDir
		}
		if want := filepath.Join(base, filepath.FromSlash(tc.want)); loc.Path != want {
			t.Errorf("%s %s: %s, want %s", tc.kind, tc.scope, loc.Path, want)
		}
	}
	for _, kind := range []Kind{ClaudeDesktop, Windsurf, Codex} {
		_, err := InstallLocation(kind, env, ScopeProject)
		if err == nil || !strings.Contains(err.Error(), "--scope user") {
			t.Errorf("%s project: want a hint to use --scope user, got %v", kind, err)
		}
	}
	if _, err := InstallLocation(Cursor, Env{}, ScopeUser); err == nil || !strings.Contains(err.Error(), "HOME") {
		t.Errorf("no home: %v", err)
	}
}

// TestApplyCreates: a missing file (and directory) is created private,
// with no backup; the whole plan goes through the user's home of Env.
func TestApplyCreates(t *testing.T) {
	env := testInstallEnv(t, "linux")
	c, err := PlanInstall(ClaudeDesktop, env, InstallOptions{Command: testCommand})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Created || c.Action != ActionAdd {
		t.Fatalf("created %v action %v", c.Created, c.Action)
	}
	want := filepath.Join(env.Home, ".config", "Claude", "claude_desktop_config.json")
	if c.Path != want {
		t.Fatalf("path %s, want %s", c.Path, want)
	}
	if backup := apply(t, c); backup != "" {
		t.Fatalf("a new file got a backup: %s", backup)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(want); fi.Mode().Perm() != 0o600 {
			t.Errorf("new file mode %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(filepath.Dir(want)); fi.Mode().Perm() != 0o700 {
			t.Errorf("new directory mode %v, want 0700", fi.Mode().Perm())
		}
	}
	if c := installAt(t, ClaudeDesktop, want); c.Action != ActionNone {
		t.Fatalf("second install: %v", c.Action)
	}
}

// TestApplyKeepsModeAndBackup: the file keeps its mode; the backup holds
// the original, is private, and a second backup does not replace it.
func TestApplyKeepsModeAndBackup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes")
	}
	orig := []byte(`{"mcpServers": {"a": {"command": "x", "env": {"T": "secret"}}}}`)
	path := putFile(t, "mcp.json", orig)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	b1 := apply(t, installAt(t, Cursor, path))
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(b1); fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", fi.Mode().Perm())
	}
	wantBackupOf(t, b1, path)
	if fi, _ := os.Stat(filepath.Dir(b1)); fi.Mode().Perm() != 0o700 {
		t.Errorf("backup directory mode %v, want 0700", fi.Mode().Perm())
	}
	installed := readBytes(t, path)
	b2 := apply(t, uninstallAt(t, Cursor, path))
	if b2 == b1 {
		t.Fatalf("the second backup replaced the first: %s", b1)
	}
	if string(readBytes(t, b1)) != string(orig) || string(readBytes(t, b2)) != string(installed) {
		t.Fatal("backups do not hold the file as it was before each change")
	}
}

// TestApplyFollowsSymlink: a symlinked file (dotfiles) is written at its
// target, which the Change names, the link stays, and the backup is named
// after the target; a dangling link is refused.
func TestApplyFollowsSymlink(t *testing.T) {
	dir := realTempDir(t)
	target := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("{\n  // mine\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	c := installAt(t, Gemini, link)
	if c.Path != link || c.Target != target {
		t.Fatalf("path %s target %s, want %s and %s", c.Path, c.Target, link, target)
	}
	wantBackupOf(t, apply(t, c), target)
	if m, _ := filepath.Glob(link + ".mcphost-backup-*"); len(m) != 0 {
		t.Errorf("backup beside the link: %v", m)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if !strings.Contains(string(readBytes(t, target)), testCommand) || !strings.Contains(string(readBytes(t, target)), "// mine") {
		t.Fatalf("target not edited in place:\n%s", readBytes(t, target))
	}
	// No link on the way: the target is the path as given.
	plain := dir + string(filepath.Separator) + "." + string(filepath.Separator) + "plain.json"
	if c := installAt(t, Gemini, plain); c.Target != plain {
		t.Errorf("target %s, want %s", c.Target, plain)
	}
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink(filepath.Join(dir, "nowhere", "x.json"), dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanInstall(Gemini, stateEnv(t), InstallOptions{File: dangling, Command: testCommand}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("dangling link: %v", err)
	}
}

// TestApplyRefusesChangedFile: a client that wrote its file between the
// plan and the write keeps its edit.
func TestApplyRefusesChangedFile(t *testing.T) {
	path := putFile(t, "mcp.json", []byte(`{"mcpServers": {}}`))
	c := installAt(t, Cursor, path)
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"new": {"command": "x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(); !errors.Is(err, ErrChanged) {
		t.Fatalf("want ErrChanged, got %v", err)
	}
	if got := string(readBytes(t, path)); !strings.Contains(got, `"new"`) || strings.Contains(got, "mcphost") {
		t.Fatalf("the client's edit was lost: %s", got)
	}
	matches, _ := filepath.Glob(filepath.Join(c.backupDir, "*"))
	if len(matches) != 0 {
		t.Fatalf("backups left: %v", matches)
	}
}

func TestInstallStates(t *testing.T) {
	env := testInstallEnv(t, "linux")
	o := InstallOptions{Command: testCommand}
	c, err := PlanInstall(Cursor, env, o)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, c)
	gem := filepath.Join(env.Home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(gem), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gem, []byte(`{"mcpServers": {"mcphost": {"command": "/old/mcphost", "args": ["serve"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	zed := filepath.Join(env.Home, ".config", "zed", "settings.json")
	if err := os.MkdirAll(filepath.Dir(zed), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zed, []byte(`{"context_servers": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.WorkDir, ".mcp.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got := map[string]InstallState{}
	for _, st := range InstallStates(env, o) {
		got[string(st.Kind)+" "+string(st.Scope)] = st
	}
	for key, want := range map[string]string{
		"cursor user":         "installed",
		"cursor project":      "no file",
		"gemini user":         "different",
		"zed user":            "error",
		"claude-code project": "not installed",
		"codex user":          "no file",
	} {
		if got[key].State != want {
			t.Errorf("%s: %q, want %q (%v)", key, got[key].State, want, got[key].Err)
		}
	}
	if got["gemini user"].Command != "/old/mcphost" {
		t.Errorf("gemini: command %q", got["gemini user"].Command)
	}
	if _, ok := got["codex project"]; ok {
		t.Error("codex has no project file, yet it is listed")
	}
}

func TestDiff(t *testing.T) {
	path := putFile(t, "config.toml", nil)
	c := installAt(t, Codex, path)
	want := "+ [mcp_servers.mcphost]\n+ command = \"/opt/mcphost/bin/mcphost\"\n+ args = [\"serve\"]\n"
	if c.Diff() != want || c.Summary() != `add "mcphost" to mcp_servers` {
		t.Fatalf("diff:\n%s\nsummary %q", c.Diff(), c.Summary())
	}
	path = putFile(t, "mcp.json", []byte(`{"servers": {"mcphost": {"command": "mcphost", "args": ["serve", "--token", "tok-123", "--api-key=k-456"], "env": {"A": "v-789"}, "headers": {"H": ["x-1"]}}}}`))
	u := uninstallAt(t, VSCode, path)
	d := u.Diff()
	for _, secret := range []string{"tok-123", "k-456", "v-789", "x-1"} {
		if strings.Contains(d, secret) {
			t.Errorf("diff shows %s:\n%s", secret, d)
		}
	}
	if !strings.Contains(d, "- \"mcphost\": {") || !strings.Contains(d, `"--api-key=****"`) || strings.Contains(d, "+ ") {
		t.Errorf("diff:\n%s", d)
	}
}

// realTempDir is a temporary directory with symbolic links resolved (on
// some systems the temporary directory is itself reached through one).
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// symlink makes link point at target by a relative path, as a link
// checked into a repository does; no symlinks here skips the test.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
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

// TestInstallRefusesProjectLinkOutside: a project whose .cursor/mcp.json
// (or .cursor directory) is a link to the user's own file neither has that
// file edited nor gets a backup of it, with the user's token, in the
// project. A link that stays in the project is followed.
func TestInstallRefusesProjectLinkOutside(t *testing.T) {
	env := Env{GOOS: "linux", Home: realTempDir(t), WorkDir: realTempDir(t)}
	userFile := filepath.Join(env.Home, ".cursor", "mcp.json")
	secret := `{"mcpServers": {"gh": {"command": "x", "env": {"AUTH": "Bearer ghp_USERSECRET"}}}}`
	if err := os.MkdirAll(filepath.Dir(userFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(userFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	projFile := filepath.Join(env.WorkDir, ".cursor", "mcp.json")
	for _, linked := range []string{"file", "directory"} {
		t.Run(linked, func(t *testing.T) {
			os.RemoveAll(filepath.Join(env.WorkDir, ".cursor"))
			if linked == "file" {
				symlink(t, userFile, projFile)
			} else {
				symlink(t, filepath.Dir(userFile), filepath.Dir(projFile))
			}
			o := InstallOptions{Scope: ScopeProject, Command: "mcphost", Force: true}
			for _, plan := range []func(Kind, Env, InstallOptions) (*Change, error){PlanInstall, PlanUninstall} {
				_, err := plan(Cursor, env, o)
				if err == nil || !strings.Contains(err.Error(), "outside the project directory") || !strings.Contains(err.Error(), userFile) {
					t.Fatalf("want a refusal naming %s, got %v", userFile, err)
				}
			}
			for _, st := range InstallStates(env, o) {
				if st.Kind == Cursor && st.Scope == ScopeProject && st.State != "error" {
					t.Errorf("client list: %q, want error", st.State)
				}
			}
			if got := string(readBytes(t, userFile)); got != secret {
				t.Fatalf("the user's file changed:\n%s", got)
			}
			assertNoSecretIn(t, env.WorkDir, "USERSECRET")
		})
	}
	// A link to another file of the project is fine: written at its
	// target, the backup named after it.
	os.RemoveAll(filepath.Join(env.WorkDir, ".cursor"))
	shared := filepath.Join(env.WorkDir, "shared", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(shared), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, shared, projFile)
	c, err := PlanInstall(Cursor, env, InstallOptions{Scope: ScopeProject, Command: "mcphost"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != projFile || c.Target != shared {
		t.Fatalf("path %s target %s", c.Path, c.Target)
	}
	wantBackupOf(t, apply(t, c), shared)
}

// wantBackupOf checks that backup is a backup of path in a state
// directory's backups/, under a name that starts with path's.
func wantBackupOf(t *testing.T, backup, path string) {
	t.Helper()
	if filepath.Base(filepath.Dir(backup)) != "backups" || !strings.HasPrefix(filepath.Base(backup), userdirs.KeyedName(path)+".") {
		t.Errorf("backup %s is not %s's in a state directory", backup, path)
	}
	if filepath.Dir(backup) == filepath.Dir(path) {
		t.Errorf("backup %s is beside the file", backup)
	}
}

func assertNoSecretIn(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Type()&os.ModeSymlink != 0 || d.IsDir() {
			return err
		}
		if strings.Contains(string(readBytes(t, p)), secret) {
			t.Errorf("%s holds the user's secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestApplyRefusesRetargetedLink: a link changed between the plan and the
// write (to the user's file) is not written through.
func TestApplyRefusesRetargetedLink(t *testing.T) {
	env := Env{GOOS: "linux", Home: realTempDir(t), WorkDir: realTempDir(t)}
	inside := filepath.Join(env.WorkDir, "shared.json")
	outside := filepath.Join(env.Home, "mine.json")
	for _, p := range []string{inside, outside} {
		if err := os.WriteFile(p, []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(env.WorkDir, ".mcp.json")
	symlink(t, inside, link)
	c, err := PlanInstall(ClaudeCode, env, InstallOptions{Scope: ScopeProject, Command: "mcphost"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, link)
	if _, err := c.Apply(); !errors.Is(err, ErrChanged) {
		t.Fatalf("want ErrChanged, got %v", err)
	}
	for _, p := range []string{inside, outside} {
		if got := string(readBytes(t, p)); got != `{}` {
			t.Errorf("%s written: %s", p, got)
		}
	}
}

// TestForeignTextStaysOnOneLine: a command or key with a newline in a
// client's file adds no line to an error or a diff.
func TestForeignTextStaysOnOneLine(t *testing.T) {
	fake := "x\nvscode user installed /fake"
	path := putFile(t, "mcp.json", []byte(`{"mcpServers": {"mcphost": {"command": "x\nvscode user installed /fake", "args": ["serve"]}}}`))
	_, err := PlanInstall(Cursor, stateEnv(t), InstallOptions{File: path, Command: testCommand})
	var conflict *ConflictError
	if !errors.As(err, &conflict) || conflict.Command != fake {
		t.Fatalf("want a conflict, got %v", err)
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `"x\nvscode user installed /fake"`) {
		t.Fatalf("the error is not one line with the command quoted: %q", err)
	}
	path = putFile(t, "mcp.json", []byte(`{"mcpServers": {"mcphost": {"command": "x\nvscode user installed /fake", "args": ["other"]}}}`))
	if _, err := PlanUninstall(Cursor, stateEnv(t), InstallOptions{File: path}); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("uninstall: %q", err)
	}
	path = putFile(t, "config.toml", []byte("[mcp_servers.mcphost]\ncommand = \"x\"\n\"k\\n+ injected\" = 1\n"))
	c, err := PlanInstall(Codex, stateEnv(t), InstallOptions{File: path, Command: testCommand, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	// 3 lines removed (the table, command, the key), 3 added.
	if lines := strings.Split(strings.TrimSuffix(c.Diff(), "\n"), "\n"); len(lines) != 6 || strings.Contains(c.Diff(), "\n- + injected") {
		t.Fatalf("the key added a line to the diff:\n%s", c.Diff())
	}
}

// Without a state directory there is nowhere to keep the backup: Apply
// writes nothing rather than change a file with no way back.
func TestApplyWithoutStateDirWritesNothing(t *testing.T) {
	orig := []byte(`{"mcpServers": {}}`)
	path := putFile(t, "mcp.json", orig)
	c, err := PlanInstall(Cursor, Env{GOOS: "linux"}, InstallOptions{File: path, Command: testCommand})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(); err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("Apply without a state directory: %v", err)
	}
	if got := readBytes(t, path); string(got) != string(orig) {
		t.Fatalf("the file changed:\n%s", got)
	}
}
