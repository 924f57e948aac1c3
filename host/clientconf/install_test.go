package clientconf

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateInstall = flag.Bool("update-install", false, "rewrite the golden files of testdata/install/golden")

const testCommand = "/opt/mcphost/bin/mcphost"

// realFiles are client files as those clients write them: other servers
// (some with tokens), comments, trailing commas, tabs, other settings.
var realFiles = []struct {
	file string
	kind Kind
	// restored: uninstall leaves an empty container where install added
	// one (golden/FILE.restored), instead of the original bytes.
	restored bool
}{
	{"claude-desktop.json", ClaudeDesktop, false},
	{"claude-code-user.json", ClaudeCode, false},
	{"claude-code-project.json", ClaudeCode, false},
	{"cursor.json", Cursor, false},
	{"cursor-empty.json", Cursor, false},
	{"windsurf.json", Windsurf, false},
	{"vscode.json", VSCode, false},
	{"codex.toml", Codex, false},
	{"gemini.json", Gemini, false},
	{"zed.json", Zed, false},
	{"zed-new.json", Zed, true},
}

// putFile writes data to a new file in a temporary directory.
func putFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func installAt(t *testing.T, kind Kind, path string) *Change {
	t.Helper()
	c, err := PlanInstall(kind, stateEnv(t), InstallOptions{File: path, Command: testCommand})
	if err != nil {
		t.Fatalf("install into %s: %v", filepath.Base(path), err)
	}
	return c
}

func uninstallAt(t *testing.T, kind Kind, path string) *Change {
	t.Helper()
	c, err := PlanUninstall(kind, stateEnv(t), InstallOptions{File: path})
	if err != nil {
		t.Fatalf("uninstall from %s: %v", filepath.Base(path), err)
	}
	return c
}

func apply(t *testing.T, c *Change) string {
	t.Helper()
	backup, err := c.Apply()
	if err != nil {
		t.Fatal(err)
	}
	return backup
}

// TestInstallRealFiles: install adds exactly the golden entry, installing
// again is a no-op, and uninstall gives back the original bytes.
func TestInstallRealFiles(t *testing.T) {
	for _, rf := range realFiles {
		t.Run(rf.file, func(t *testing.T) {
			orig := readBytes(t, filepath.Join("testdata", "install", rf.file))
			path := putFile(t, rf.file, orig)

			c := installAt(t, rf.kind, path)
			if c.Action != ActionAdd || c.Created {
				t.Fatalf("action %v created %v, want an add to an existing file", c.Action, c.Created)
			}
			golden := filepath.Join("testdata", "install", "golden", rf.file)
			if *updateInstall {
				if err := os.WriteFile(golden, c.After(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := readBytes(t, golden); !bytes.Equal(c.After(), want) {
				t.Fatalf("installed file differs from %s:\n%s", golden, c.After())
			}
			backup := apply(t, c)
			if got := readBytes(t, backup); !bytes.Equal(got, orig) {
				t.Fatalf("backup %s does not hold the original", backup)
			}

			again := installAt(t, rf.kind, path)
			if again.Action != ActionNone || again.Note != "already installed" {
				t.Fatalf("second install: action %v note %q", again.Action, again.Note)
			}

			u := uninstallAt(t, rf.kind, path)
			if u.Action != ActionRemove {
				t.Fatalf("uninstall action %v", u.Action)
			}
			apply(t, u)
			want := orig
			if rf.restored {
				want = readBytes(t, golden+".restored")
			}
			if got := readBytes(t, path); !bytes.Equal(got, want) {
				t.Fatalf("install then uninstall changed the file:\n--- got\n%s\n--- want\n%s", got, want)
			}
			if u := uninstallAt(t, rf.kind, path); u.Action != ActionNone || u.Note != "not installed" {
				t.Fatalf("second uninstall: action %v note %q", u.Action, u.Note)
			}
		})
	}
}

// TestInstallLayouts: the entry is laid out like its neighbours, and
// uninstall restores the bytes (or, where noted, an equivalent file).
func TestInstallLayouts(t *testing.T) {
	cases := []struct {
		name      string
		kind      Kind
		src       string
		installed string // "" when only the round trip is checked
		restored  string // after uninstall; "" means src itself
	}{{
		name:      "empty file",
		kind:      ClaudeDesktop,
		src:       "",
		installed: "{\n  \"mcpServers\": {\n    \"mcphost\": {\n      \"command\": \"/opt/mcphost/bin/mcphost\",\n      \"args\": [\"serve\"]\n    }\n  }\n}\n",
		restored:  "{\n  \"mcpServers\": {}\n}\n", // the container stays
	}, {
		name:      "empty object",
		kind:      Cursor,
		src:       "{}\n",
		installed: "{\n  \"mcpServers\": {\n    \"mcphost\": {\n      \"command\": \"/opt/mcphost/bin/mcphost\",\n      \"args\": [\"serve\"]\n    }\n  }\n}\n",
		restored:  "{\n  \"mcpServers\": {}\n}\n",
	}, {
		name:      "empty object, no newline",
		kind:      Cursor,
		src:       "{}",
		installed: `{"mcpServers":{"mcphost":{"command":"/opt/mcphost/bin/mcphost","args":["serve"]}}}`,
		restored:  `{"mcpServers":{}}`,
	}, {
		name:      "minified",
		kind:      ClaudeDesktop,
		src:       `{"mcpServers":{"a":{"command":"x"}}}`,
		installed: `{"mcpServers":{"a":{"command":"x"},"mcphost":{"command":"/opt/mcphost/bin/mcphost","args":["serve"]}}}`,
	}, {
		name:      "one line with spaces",
		kind:      Windsurf,
		src:       `{"mcpServers": {"a": {"command": "x"}}}` + "\n",
		installed: `{"mcpServers": {"a": {"command": "x"}, "mcphost": {"command": "/opt/mcphost/bin/mcphost", "args": ["serve"]}}}` + "\n",
	}, {
		name:      "crlf",
		kind:      ClaudeDesktop,
		src:       "{\r\n  \"mcpServers\": {\r\n    \"a\": {\"command\": \"x\"}\r\n  }\r\n}\r\n",
		installed: "{\r\n  \"mcpServers\": {\r\n    \"a\": {\"command\": \"x\"},\r\n    \"mcphost\": {\r\n      \"command\": \"/opt/mcphost/bin/mcphost\",\r\n      \"args\": [\"serve\"]\r\n    }\r\n  }\r\n}\r\n",
	}, {
		name:      "tabs and a line comment after the last entry",
		kind:      VSCode,
		src:       "{\n\t\"servers\": {\n\t\t\"a\": {\"command\": \"x\"} // keep me\n\t}\n}\n",
		installed: "{\n\t\"servers\": {\n\t\t\"a\": {\"command\": \"x\"}, // keep me\n\t\t\"mcphost\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"/opt/mcphost/bin/mcphost\",\n\t\t\t\"args\": [\"serve\"]\n\t\t}\n\t}\n}\n",
	}, {
		name: "block comment after the last entry",
		kind: Gemini,
		src:  "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"} /* note */\n  }\n}\n",
	}, {
		name:      "comments only inside the container",
		kind:      Zed,
		src:       "{\n  \"context_servers\": {\n    // none yet\n  }\n}\n",
		installed: "{\n  \"context_servers\": {\n    // none yet\n    \"mcphost\": {\n      \"command\": \"/opt/mcphost/bin/mcphost\",\n      \"args\": [\"serve\"],\n      \"env\": {}\n    }\n  }\n}\n",
	}, {
		name:     "comments only",
		kind:     Zed,
		src:      "// nothing yet\n",
		restored: "// nothing yet\n{\n  \"context_servers\": {}\n}\n",
	}, {
		name: "trailing comma inline",
		kind: Gemini,
		src:  `{"mcpServers": {"a": {"command": "x"},},}`,
	}, {
		name: "container in the middle, other keys after",
		kind: ClaudeCode,
		src:  "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  },\n  \"z\": 1\n}\n",
	}, {
		name:      "byte order mark",
		kind:      ClaudeDesktop,
		src:       "\xef\xbb\xbf{\"mcpServers\": {}}",
		installed: "\xef\xbb\xbf{\"mcpServers\": {\"mcphost\": {\"command\": \"/opt/mcphost/bin/mcphost\", \"args\": [\"serve\"]}}}",
	}, {
		name:      "toml without servers",
		kind:      Codex,
		src:       "model = \"o3\"\n",
		installed: "model = \"o3\"\n\n[mcp_servers.mcphost]\ncommand = \"/opt/mcphost/bin/mcphost\"\nargs = [\"serve\"]\n",
	}, {
		name:      "toml empty",
		kind:      Codex,
		src:       "",
		installed: "[mcp_servers.mcphost]\ncommand = \"/opt/mcphost/bin/mcphost\"\nargs = [\"serve\"]\n",
	}, {
		name:     "toml without a final newline",
		kind:     Codex,
		src:      "model = \"o3\" # the model",
		restored: "model = \"o3\" # the model\n",
	}, {
		name: "toml crlf with a comment at the end",
		kind: Codex,
		src:  "model = \"o3\"\r\n\r\n[mcp_servers.a]\r\ncommand = \"x\"\r\n# the end\r\n",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "f.json"
			if tc.kind == Codex {
				name = "config.toml"
			}
			path := putFile(t, name, []byte(tc.src))
			c := installAt(t, tc.kind, path)
			if tc.installed != "" && string(c.After()) != tc.installed {
				t.Fatalf("installed:\n%q\nwant:\n%q", c.After(), tc.installed)
			}
			apply(t, c)
			if again := installAt(t, tc.kind, path); again.Action != ActionNone {
				t.Fatalf("second install: action %v", again.Action)
			}
			apply(t, uninstallAt(t, tc.kind, path))
			want := tc.restored
			if want == "" {
				want = tc.src
			}
			if got := readBytes(t, path); string(got) != want {
				t.Fatalf("after uninstall:\n%q\nwant:\n%q", got, want)
			}
		})
	}
}

// TestInstallConflict: an entry of the same name that runs something else
// is replaced only with Force, and an identical one is left alone.
func TestInstallConflict(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		src  string
	}{
		{ClaudeDesktop, "{\n  \"mcpServers\": {\n    \"mcphost\": {\n      \"command\": \"/old/mcphost\",\n      \"args\": [\"serve\"],\n      \"env\": {\"TOKEN\": \"s3cret-value\"}\n    },\n    \"b\": {\"command\": \"y\"}\n  }\n}\n"},
		{Codex, "[mcp_servers.mcphost]\ncommand = \"/old/mcphost\"\nargs = [\"serve\"]\n\n[mcp_servers.mcphost.env]\nTOKEN = \"s3cret-value\"\n\n# the next table\n[mcp_servers.b]\ncommand = \"y\"\n"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			path := putFile(t, "f", []byte(tc.src))
			_, err := PlanInstall(tc.kind, stateEnv(t), InstallOptions{File: path, Command: testCommand})
			var conflict *ConflictError
			if !errors.As(err, &conflict) || conflict.Command != "/old/mcphost" || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("want a conflict naming /old/mcphost and --force, got %v", err)
			}
			c, err := PlanInstall(tc.kind, stateEnv(t), InstallOptions{File: path, Command: testCommand, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if c.Action != ActionReplace {
				t.Fatalf("action %v, want replace", c.Action)
			}
			diff := c.Diff()
			if strings.Contains(diff, "s3cret-value") || !strings.Contains(diff, "****") || !strings.Contains(diff, "/old/mcphost") || !strings.Contains(diff, testCommand) {
				t.Fatalf("diff must show both commands and mask the token:\n%s", diff)
			}
			apply(t, c)
			if again := installAt(t, tc.kind, path); again.Action != ActionNone {
				t.Fatalf("after --force, install is not a no-op: %v", again.Action)
			}
			got := string(readBytes(t, path))
			if strings.Contains(got, "s3cret-value") || !strings.Contains(got, `"y"`) {
				t.Fatalf("the replaced entry (and only it) should be gone:\n%s", got)
			}
		})
	}
}

// TestInstallKeepsAdditions: fields added to an installed entry (a startup
// timeout, env values) leave it installed.
func TestInstallKeepsAdditions(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		src  string
	}{
		{Codex, "[mcp_servers.mcphost]\ncommand = \"/opt/mcphost/bin/mcphost\"\nargs = [\"serve\"]\nstartup_timeout_sec = 60\n"},
		{Zed, `{"context_servers": {"mcphost": {"command": "/opt/mcphost/bin/mcphost", "args": ["serve"], "env": {"X": "1"}}}}`},
		{VSCode, `{"servers": {"mcphost": {"type": "stdio", "command": "/opt/mcphost/bin/mcphost", "args": ["serve"], "envFile": "x"}}}`},
		{ClaudeCode, `{"mcpServers": {"mcphost": {"type": "stdio", "command": "/opt/mcphost/bin/mcphost", "args": ["serve"], "env": {}}}}`},
	} {
		path := putFile(t, "f", []byte(tc.src))
		if c := installAt(t, tc.kind, path); c.Action != ActionNone {
			t.Errorf("%s: action %v, want already installed", tc.kind, c.Action)
		}
	}
	path := putFile(t, "f", []byte(`{"servers": {"mcphost": {"command": "/opt/mcphost/bin/mcphost", "args": ["serve"]}}}`))
	if _, err := PlanInstall(VSCode, stateEnv(t), InstallOptions{File: path, Command: testCommand}); err == nil {
		t.Error("VS Code entry without \"type\": \"stdio\" counted as installed")
	}
}

// TestUninstallOnlyOurs: an entry of that name that does not run "mcphost
// serve" stays unless Force.
func TestUninstallOnlyOurs(t *testing.T) {
	src := `{"mcpServers": {"mcphost": {"command": "npx", "args": ["some-server"]}, "b": {"command": "y"}}}`
	path := putFile(t, "f.json", []byte(src))
	_, err := PlanUninstall(Cursor, stateEnv(t), InstallOptions{File: path})
	var conflict *ConflictError
	if !errors.As(err, &conflict) || conflict.Install || !strings.Contains(err.Error(), "npx") {
		t.Fatalf("want a refusal naming npx, got %v", err)
	}
	c, err := PlanUninstall(Cursor, stateEnv(t), InstallOptions{File: path, Force: true})
	if err != nil || c.Action != ActionRemove {
		t.Fatalf("forced uninstall: %v %v", c, err)
	}
	if want := `{"mcpServers": {"b": {"command": "y"}}}`; string(c.After()) != want {
		t.Fatalf("got %s, want %s", c.After(), want)
	}
	// A renamed or moved mcphost still counts as ours.
	for _, cmd := range []string{`C:\\Tools\\MCPHost.exe`, "/usr/local/bin/mcphost", "/custom/gw"} {
		path := putFile(t, "f.json", []byte(`{"mcpServers": {"mcphost": {"command": "`+cmd+`", "args": ["serve", "--config", "x"]}}}`))
		c, err := PlanUninstall(Cursor, stateEnv(t), InstallOptions{File: path, Command: "/custom/gw"})
		if err != nil || c.Action != ActionRemove {
			t.Fatalf("%s: %v %v", cmd, c, err)
		}
	}
}

func TestInstallRefusesBadFiles(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		kind            Kind
	}{
		{"not json", `{"mcpServers": `, "not valid JSON", ClaudeDesktop},
		{"unquoted token", `{"mcpServers": {"a": {"env": {"T": sk-live-0123}}}}`, "line 1, column 36: invalid value (not shown", Cursor},
		{"top is an array", `[]`, "JSON object at the top", ClaudeDesktop},
		{"container not an object", `{"mcpServers": []}`, "is not an object", Cursor},
		{"container twice", `{"mcpServers": {}, "mcpServers": {}}`, "twice", Cursor},
		{"entry twice", `{"mcpServers": {"mcphost": {}, "mcphost": {}}}`, "twice", Cursor},
		{"too deep", strings.Repeat("[", maxNesting+1), "nests deeper", Gemini},
		{"bad toml", "model = 1\nT = sk-live-0123\n", "not valid TOML (line 2, column 5: toml: incomplete number)", Codex},
		{"toml servers not a table", "mcp_servers = 1\n", "not a table", Codex},
		{"toml servers inline", "mcp_servers = { a = { command = \"x\" } }\n", "inline table or dotted keys", Codex},
		{"toml too deep", "a = " + strings.Repeat("[", maxNesting+1), "nests deeper", Codex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := putFile(t, "f", []byte(tc.src))
			_, err := PlanInstall(tc.kind, stateEnv(t), InstallOptions{File: path, Command: testCommand})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("want an error naming the file and %q, got %v", tc.want, err)
			}
			if errors.Is(err, errEditMismatch) {
				t.Fatalf("a bad file must be refused before editing: %v", err)
			}
			if strings.Contains(err.Error(), "sk-live") {
				t.Fatalf("the error quotes the file: %v", err)
			}
		})
	}
	if _, err := PlanInstall(Cursor, stateEnv(t), InstallOptions{File: "x", Command: testCommand, Name: "a b"}); err == nil {
		t.Fatal("a name with a space was accepted")
	}
	if _, err := PlanInstall(Goose, stateEnv(t), InstallOptions{File: "x", Command: testCommand}); err == nil || !strings.Contains(err.Error(), "claude-desktop") {
		t.Fatalf("goose: %v", err)
	}
}

// TestCodexDottedKeys: an entry written as dotted keys or an inline table
// is never rewritten.
func TestCodexDottedKeys(t *testing.T) {
	for _, src := range []string{
		"mcp_servers.mcphost.command = \"/usr/bin/mcphost\"\nmcp_servers.mcphost.args = [\"serve\"]\n",
		"[mcp_servers]\nmcphost = { command = \"/usr/bin/mcphost\", args = [\"serve\"] }\n",
	} {
		path := putFile(t, "config.toml", []byte(src))
		_, err := PlanUninstall(Codex, stateEnv(t), InstallOptions{File: path})
		if err == nil || !strings.Contains(err.Error(), "does not edit") {
			t.Fatalf("%q: want a refusal, got %v", src, err)
		}
		_, err = PlanInstall(Codex, stateEnv(t), InstallOptions{File: path, Command: testCommand, Force: true})
		if err == nil || !strings.Contains(err.Error(), "[mcp_servers.mcphost]") {
			t.Fatalf("%q: want a refusal showing the table, got %v", src, err)
		}
	}
	// Dotted keys of another server do not stop an install.
	path := putFile(t, "config.toml", []byte("mcp_servers.a.command = \"x\"\n"))
	if c := installAt(t, Codex, path); c.Action != ActionAdd {
		t.Fatalf("action %v", c.Action)
	}
}

// stateEnv locates nothing but the state directory, where backups go.
func stateEnv(t *testing.T) Env {
	return Env{StateDir: t.TempDir()}
}
