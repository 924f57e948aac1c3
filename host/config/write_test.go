package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func boolPtr(b bool) *bool { return &b }

func readString(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestParseScope(t *testing.T) {
	for in, want := range map[string]Scope{
		"project": ScopeProject, "Global": ScopeUser, "global": ScopeGlobal, "user": ScopeUser,
		" effective ": ScopeEffective, "local": ScopeLocal, "LOCAL": ScopeLocal,
	} {
		if got, err := ParseScope(in); err != nil || got != want {
			t.Errorf("ParseScope(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "shared", "projects"} {
		_, err := ParseScope(in)
		wantErrContains(t, err, "unknown scope", "local, project or user")
	}
}

const commentedYAML = `# Team servers. Keep this comment.
servers:
  # The memory server.
  memory:
    command: npx # from npm
    args: [-y, "@modelcontextprotocol/server-memory"]
  github:
    url: https://api.example.com/mcp
names:
  scheme: mcp # default
`

func TestAddServerYAMLKeepsComments(t *testing.T) {
	e := newEnv(t)
	p := e.writeProject(".mcphost.yaml", commentedYAML)
	got, err := AddServer(e.opts(), ScopeProject, ServerEntry{
		ID: "files", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."},
		Env: map[string]string{"TOKEN": "${TOKEN}"}, RequestTimeout: "2m",
	}, false)
	if err != nil || got != p {
		t.Fatalf("AddServer = %q, %v", got, err)
	}
	out := readString(t, p)
	for _, want := range []string{"# Team servers. Keep this comment.", "# The memory server.", "# from npm", "# default", "memory:", "github:", "files:", "request_timeout: 2m"} {
		if !strings.Contains(out, want) {
			t.Errorf("lost %q:\n%s", want, out)
		}
	}
	// Order: new server after the existing ones, names still last.
	if !(strings.Index(out, "memory:") < strings.Index(out, "github:") && strings.Index(out, "github:") < strings.Index(out, "files:") && strings.Index(out, "files:") < strings.Index(out, "names:")) {
		t.Errorf("order changed:\n%s", out)
	}
	e.trust()
	cfg := e.load()
	f := server(t, cfg, "files")
	if f.Err == nil { // TOKEN is not set in the test environment
		t.Fatalf("files = %+v", f)
	}
	if m := server(t, cfg, "memory"); m.Err != nil || len(m.Args) != 2 {
		t.Fatalf("memory = %+v", m)
	}

	// An existing id: an error unless replace.
	_, err = AddServer(e.opts(), ScopeProject, ServerEntry{ID: "memory", Command: "other"}, false)
	wantErrContains(t, err, p, `server "memory": server already exists`)
	if !errors.Is(err, ErrServerExists) {
		t.Errorf("error %v does not wrap ErrServerExists", err)
	}
	if _, err = AddServer(e.opts(), ScopeProject, ServerEntry{ID: "memory", Command: "other"}, true); err != nil {
		t.Fatal(err)
	}
	out = readString(t, p)
	if !strings.Contains(out, "# The memory server.") || !strings.Contains(out, "command: other") || strings.Contains(out, "server-memory") {
		t.Errorf("replace:\n%s", out)
	}
}

func TestAddServerCreatesFiles(t *testing.T) {
	e := newEnv(t)
	e.global = filepath.Join(e.global, "sub")
	p, err := AddServer(e.opts(), ScopeGlobal, ServerEntry{ID: "web", URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOK}"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(e.global, "config.yaml") {
		t.Fatalf("path = %q", p)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("stat = %v, %v", st, err)
	}
	pp, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "local", Command: "./srv", Enabled: boolPtr(false)}, false)
	if err != nil || pp != filepath.Join(e.work, ".mcphost.yaml") {
		t.Fatalf("project add = %q, %v", pp, err)
	}
	e.environ = []string{"TOK=t"}
	e.trust()
	cfg := e.load()
	if s := server(t, cfg, "web"); s.Err != nil || s.Headers["Authorization"] != "Bearer t" {
		t.Fatalf("web = %+v", s)
	}
	if s := server(t, cfg, "local"); s.Err != nil || s.Enabled {
		t.Fatalf("local = %+v", s)
	}
	// No temp files left behind, and no lock (it is in the state directory).
	entries, _ := os.ReadDir(e.global)
	if len(entries) != 1 || entries[0].Name() != "config.yaml" {
		t.Fatalf("global dir holds %v", entries)
	}
}

func TestAddServerRefusesInvalid(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		entry ServerEntry
		want  string
	}{
		{ServerEntry{ID: "bad id", Command: "x"}, "bad id"},
		{ServerEntry{ID: "a"}, "command"},
		{ServerEntry{ID: "a", Transport: "http"}, "url"},
		{ServerEntry{ID: "a", URL: "ftp://x"}, "scheme"},
		{ServerEntry{ID: "a", Command: "x", RequestTimeout: "3x"}, "request_timeout"},
		{ServerEntry{ID: "a", Command: "x", Env: map[string]string{"K": "${oops"}}, "env.K"},
		{ServerEntry{ID: "a", Command: "x", Tools: &ToolsEntry{Deny: []string{"["}}}, "tools.deny"},
		{ServerEntry{ID: "a", Command: "x", ProtocolVersion: "v1"}, "protocol_version"},
		{ServerEntry{ID: "a", Command: "x", MaxMessageBytes: -5}, "max_message_bytes"},
		{ServerEntry{ID: "a", Command: "x", HealthInterval: "often"}, "health_interval"},
		{ServerEntry{ID: "a", Command: "x", HealthInterval: "-1s"}, "health_interval"},
		{ServerEntry{ID: "a", Command: "x", Reconnect: &ReconnectEntry{InitialDelay: "soon"}}, "reconnect.initial_delay"},
		{ServerEntry{ID: "a", Command: "x", Reconnect: &ReconnectEntry{InitialDelay: "10s", MaxDelay: "1s"}}, "reconnect.max_delay: 1s is less than reconnect.initial_delay (10s)"},
		{ServerEntry{ID: "a", Command: "x", Reconnect: &ReconnectEntry{MaxAttempts: -1}}, "reconnect.max_attempts"},
	}
	for _, tc := range cases {
		_, err := AddServer(e.opts(), ScopeProject, tc.entry, false)
		wantErrContains(t, err, tc.want, "not written")
	}
	if _, err := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); !os.IsNotExist(err) {
		t.Fatal("a file was written")
	}
	// A url with a variable is checked when it is loaded, not now.
	if err := (ServerEntry{ID: "a", URL: "${BASE_URL}/mcp"}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// The health and reconnect settings written by AddServer load back as they
// were given, in every format; YAML keeps the documented field order.
func TestAddServerHealthAndReconnect(t *testing.T) {
	entry := ServerEntry{
		ID: "a", Command: "x", RequestTimeout: "2m", MaxMessageBytes: 4096,
		HealthInterval: "45s",
		Reconnect:      &ReconnectEntry{InitialDelay: "250ms", MaxDelay: "1m", MaxAttempts: 4},
	}
	off := ServerEntry{ID: "b", URL: "https://b.example/mcp", HealthInterval: "off", Reconnect: &ReconnectEntry{MaxAttempts: 1}}
	for _, name := range []string{"config.yaml", "config.json", "config.toml"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			p := e.writeGlobal(name, "")
			for _, en := range []ServerEntry{entry, off} {
				if _, err := AddServer(e.opts(), ScopeGlobal, en, false); err != nil {
					t.Fatal(err)
				}
			}
			out := readString(t, p)
			cfg := e.load()
			a := server(t, cfg, "a")
			if a.Err != nil || a.HealthInterval != 45*time.Second || a.RequestTimeout != 2*time.Minute || a.MaxMessageBytes != 4096 ||
				a.Reconnect != (Reconnect{InitialDelay: 250 * time.Millisecond, MaxDelay: time.Minute, MaxAttempts: 4}) {
				t.Fatalf("a = %+v\n%s", a, out)
			}
			b := server(t, cfg, "b")
			if b.Err != nil || b.HealthInterval != -1 || b.Reconnect != (Reconnect{MaxAttempts: 1}) {
				t.Fatalf("b = %+v\n%s", b, out)
			}
			if name != "config.yaml" {
				return
			}
			want := "    max_message_bytes: 4096\n    health_interval: 45s\n    reconnect:\n      initial_delay: 250ms\n      max_delay: 1m\n      max_attempts: 4\n"
			if !strings.Contains(out, want) {
				t.Fatalf("want\n%s\nin\n%s", want, out)
			}
			if !strings.Contains(out, "health_interval: \"off\"") && !strings.Contains(out, "health_interval: off") {
				t.Fatalf("off not written:\n%s", out)
			}
		})
	}
	// An empty reconnect writes nothing.
	e := newEnv(t)
	p, err := AddServer(e.opts(), ScopeGlobal, ServerEntry{ID: "c", Command: "x", Reconnect: &ReconnectEntry{}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if out := readString(t, p); strings.Contains(out, "reconnect") {
		t.Fatalf("empty reconnect written:\n%s", out)
	}
}

func TestJSONKeepsUnknownKeys(t *testing.T) {
	e := newEnv(t)
	p := e.writeGlobal("config.json", `{
  "names": {"scheme": "tool"},
  "mcpServers": {
    "a": {"command": "x", "args": ["1"]},
    "c": {"command": "y", "x-comment": {"kept": [1, 2.5, "three"]}}
  },
  "trusted_projects": [{"path": "/elsewhere", "sha256": "00"}]
}`)
	if _, err := AddServer(e.opts(), ScopeGlobal, ServerEntry{ID: "b", URL: "https://b/mcp", MaxMessageBytes: 123456789012}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := SetEnabled(e.opts(), ScopeGlobal, "a", false); err != nil {
		t.Fatal(err)
	}
	out := readString(t, p)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	servers := m["mcpServers"].(map[string]any)
	if _, ok := m["servers"]; ok {
		t.Errorf("a servers key was added to a file that uses mcpServers:\n%s", out)
	}
	if servers["a"].(map[string]any)["enabled"] != false || servers["b"] == nil || m["names"] == nil || m["trusted_projects"] == nil {
		t.Errorf("file:\n%s", out)
	}
	if !reflect.DeepEqual(servers["c"].(map[string]any)["x-comment"], map[string]any{"kept": []any{1.0, 2.5, "three"}}) {
		t.Errorf("unknown key lost:\n%s", out)
	}
	if !strings.Contains(out, "\n  \"") || !strings.Contains(out, "123456789012") {
		t.Errorf("want 2-space indent and exact numbers:\n%s", out)
	}
	cfg := e.load()
	if a := server(t, cfg, "a"); a.Enabled || a.Err != nil {
		t.Fatalf("a = %+v", a)
	}
}

func TestTOMLRoundTrip(t *testing.T) {
	e := newEnv(t)
	p := e.writeGlobal("config.toml", "# lost\n[names]\nscheme = \"server\"\n\n[servers.a]\ncommand = \"x\"\nprotocol_version = 2025-06-18\n")
	if _, err := AddServer(e.opts(), ScopeGlobal, ServerEntry{ID: "b", Command: "y", Args: []string{"1"}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveServer(e.opts(), ScopeGlobal, "a"); err != nil {
		t.Fatal(err)
	}
	cfg := e.load()
	if got := ids(cfg); !reflect.DeepEqual(got, []string{"b"}) || cfg.Names.Scheme != SchemeServer {
		t.Fatalf("ids = %v names = %+v\n%s", got, cfg.Names, readString(t, p))
	}
}

func TestRemoveServer(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "servers:\n  g: {command: x}\n")
	p := e.writeProject(".mcphost.yaml", commentedYAML)
	if _, err := RemoveServer(e.opts(), ScopeProject, "memory"); err != nil {
		t.Fatal(err)
	}
	out := readString(t, p)
	if strings.Contains(out, "memory") || !strings.Contains(out, "github:") || !strings.Contains(out, "# Team servers") {
		t.Fatalf("file:\n%s", out)
	}
	_, err := RemoveServer(e.opts(), ScopeProject, "memory")
	wantErrContains(t, err, p, `no server "memory"`)
	_, err = RemoveServer(e.opts(), ScopeProject, "g")
	wantErrContains(t, err, p, `no server "g"`, "comes from "+g, "mcphost mcp disable g", "user scope")
	_, err = RemoveServer(e.opts(), ScopeGlobal, "github")
	wantErrContains(t, err, g, `no server "github"`, "comes from "+p)
	// A scope without a file.
	e2 := newEnv(t)
	_, err = RemoveServer(e2.opts(), ScopeGlobal, "x")
	wantErrContains(t, err, filepath.Join(e2.global, "config.yaml"), "does not exist", "nothing to remove", `no server "x" is configured`)
}

// Without a project file, removing from the project scope says so, and
// where the server comes from instead.
func TestRemoveServerNoProjectFile(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "servers:\n  g: {command: x}\n")
	_, err := RemoveServer(e.opts(), ScopeProject, "g")
	wantErrContains(t, err, "no .mcphost.* in "+e.work, "nothing to remove", `server "g" comes from `+g, "mcp disable g", "user scope")
	if _, err := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); err == nil {
		t.Error("a failed remove created the project file")
	}
	e.writeProject(".mcp.json", `{"mcpServers": {"cc": {"command": "y"}}}`)
	_, err = RemoveServer(e.opts(), ScopeProject, "cc")
	wantErrContains(t, err, "nothing to remove", "Claude Code's file", "mcp disable cc")
	_, err = RemoveServer(e.opts(), ScopeLocal, "g")
	wantErrContains(t, err, "no local servers for "+e.work, "nothing to remove", "comes from "+g)
}

func TestSetEnabled(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  github: {command: gh}\n")
	p := e.writeProject(".mcphost.yaml", "# project\nservers:\n  local:\n    command: x\n    enabled: true # on\n")

	// Disabling a global server from the project writes an override entry.
	if got, err := SetEnabled(e.opts(), ScopeProject, "github", false); err != nil || got != p {
		t.Fatalf("SetEnabled = %q, %v", got, err)
	}
	if _, err := SetEnabled(e.opts(), ScopeProject, "local", false); err != nil {
		t.Fatal(err)
	}
	out := readString(t, p)
	if !strings.Contains(out, "# project") || !strings.Contains(out, "# on") {
		t.Errorf("comments lost:\n%s", out)
	}
	cfg := e.load()
	gh := server(t, cfg, "github")
	if gh.Enabled || gh.Err != nil || gh.Command != "gh" || gh.Source != p {
		t.Fatalf("github = %+v\n%s", gh, out)
	}
	if l := server(t, cfg, "local"); l.Enabled {
		t.Fatalf("local = %+v", l)
	}
	// And back on.
	if _, err := SetEnabled(e.opts(), ScopeProject, "github", true); err != nil {
		t.Fatal(err)
	}
	if gh := server(t, e.load(), "github"); !gh.Enabled {
		t.Fatalf("github = %+v", gh)
	}
	// Unknown everywhere.
	_, err := SetEnabled(e.opts(), ScopeProject, "nope", false)
	wantErrContains(t, err, `no server "nope"`)
	// The global file does not take overrides for project servers.
	_, err = SetEnabled(e.opts(), ScopeGlobal, "local", false)
	wantErrContains(t, err, `"local"`, "project scope")
	// .mcp.json servers can be switched off from .mcphost.yaml.
	e.writeProject(".mcp.json", `{"mcpServers": {"claude": {"command": "c"}}}`)
	if _, err := SetEnabled(e.opts(), ScopeProject, "claude", false); err != nil {
		t.Fatal(err)
	}
	if c := server(t, e.load(), "claude"); c.Enabled {
		t.Fatalf("claude = %+v", c)
	}
}

func TestWriteRefusesBrokenFile(t *testing.T) {
	e := newEnv(t)
	p := e.writeProject(".mcphost.json", "{\n  \"servers\": \n")
	_, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "a", Command: "x"}, false)
	wantErrContains(t, err, p+":3:")
	if readString(t, p) != "{\n  \"servers\": \n" {
		t.Fatal("the file was changed")
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	e := newEnv(t)
	real := writeFile(t, t.TempDir(), "dotfiles-config.yaml", "servers: {}\n")
	link := filepath.Join(e.global, "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := AddServer(e.opts(), ScopeGlobal, ServerEntry{ID: "a", Command: "x"}, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if !strings.Contains(readString(t, real), "command: x") {
		t.Fatal("target not written")
	}
}

func TestParseServerEntry(t *testing.T) {
	e, err := ParseServerEntry("remote", []byte(`{"type": "streamableHttp", "url": "https://x/mcp", "headers": {"A": "b"}, "request_timeout": 30}`))
	if err != nil {
		t.Fatal(err)
	}
	want := ServerEntry{ID: "remote", Transport: TransportHTTP, URL: "https://x/mcp", Headers: map[string]string{"A": "b"}, RequestTimeout: "30s"}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("got %+v", e)
	}

	e, err = ParseServerEntry("r", []byte(`{"command": "a", "health_interval": 0, "reconnect": {"initial_delay": 0.5, "max_delay": "1m", "max_attempts": 3}}`))
	if err != nil {
		t.Fatal(err)
	}
	want = ServerEntry{ID: "r", Command: "a", HealthInterval: "off", Reconnect: &ReconnectEntry{InitialDelay: "500ms", MaxDelay: "1m", MaxAttempts: 3}}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("got %+v", e)
	}
	e, err = ParseServerEntry("r", []byte(`{"command": "a", "health_interval": 30}`))
	if err != nil || e.HealthInterval != "30s" {
		t.Fatalf("got %+v, %v", e, err)
	}
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "reconnect": {"max_delays": "1m"}}`))
	wantErrContains(t, err, `reconnect: unknown field "max_delays"`, `did you mean "max_delay"?`)
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "reconnect": {"max_attempts": "many"}}`))
	wantErrContains(t, err, "wrong type", "reconnect.max_attempts")
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "reconnect": [1]}`))
	wantErrContains(t, err, "wrong type", "reconnect")
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "reconnect": {"initial_delay": "5s", "max_delay": "1s"}}`))
	wantErrContains(t, err, "reconnect.max_delay", "reconnect.initial_delay")
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "health_interval": -3}`))
	wantErrContains(t, err, "wrong type", "health_interval")
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "comand": "b"}`))
	wantErrContains(t, err, `unknown field "comand"`, `did you mean "command"?`)
	_, err = ParseServerEntry("x", []byte(`[1]`))
	wantErrContains(t, err, "entry must be a map")
	_, err = ParseServerEntry("x", []byte(`{"command": "a", "args": "b"}`))
	wantErrContains(t, err, "args")
}

func TestLoadScope(t *testing.T) {
	e := newEnv(t)
	g := e.writeGlobal("config.yaml", "servers:\n  github: {command: gh}\n  memory: {command: mem}\n")
	p := e.writeProject(".mcphost.yaml", "servers:\n  github: {enabled: false}\n  local: {command: ./x}\n")
	c := e.writeProject(".mcp.json", `{"mcpServers": {"claude": {"command": "c"}}}`)
	e.environ = []string{"MCPHOST_SERVERS__ENVONLY__COMMAND=x"}

	global, err := LoadScope(e.opts(), ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(global); !reflect.DeepEqual(got, []string{"github", "memory"}) || server(t, global, "github").Source != g || !server(t, global, "github").Enabled {
		t.Fatalf("global = %v", got)
	}
	project, err := LoadScope(e.opts(), ScopeProject)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(project); !reflect.DeepEqual(got, []string{"claude", "github", "local"}) {
		t.Fatalf("project = %v", got)
	}
	gh := server(t, project, "github")
	if gh.Enabled || gh.Err != nil || gh.Source != p || gh.Command != "gh" {
		t.Fatalf("github = %+v", gh)
	}
	if !reflect.DeepEqual(project.Files, []string{p, c}) {
		t.Fatalf("files = %v", project.Files)
	}
	eff, err := LoadScope(e.opts(), ScopeEffective)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(eff); !reflect.DeepEqual(got, []string{"claude", "envonly", "github", "local", "memory"}) {
		t.Fatalf("effective = %v", got)
	}
	if p, exists, err := ScopeFile(e.opts(), ScopeProject); err != nil || !exists || p != filepath.Join(e.work, ".mcphost.yaml") {
		t.Fatalf("ScopeFile = %q %v %v", p, exists, err)
	}
}

// A project file that a symbolic link leads outside the project (to the
// user's own config file, say) is not written through: what a cloned
// repository's link points at stays as it was.
func TestProjectFileLinkedOutsideIsNotWritten(t *testing.T) {
	e := newEnv(t)
	user := e.writeGlobal("config.yaml", "servers:\n  mine: {command: x}\n")
	if err := os.Symlink(user, filepath.Join(e.work, ".mcphost.yaml")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	before, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	entry := ServerEntry{ID: "evil", Command: "sh", Args: []string{"-c", "true"}}
	_, err = AddServer(e.opts(), ScopeProject, entry, false)
	if err == nil || !strings.Contains(err.Error(), "outside the project directory") {
		t.Fatalf("AddServer through the link: %v", err)
	}
	if _, err := RemoveServer(e.opts(), ScopeProject, "mine"); err == nil {
		t.Fatal("RemoveServer wrote through the link")
	}
	if _, err := SetEnabled(e.opts(), ScopeProject, "mine", false); err == nil {
		t.Fatal("SetEnabled wrote through the link")
	}
	after, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("the user's file changed:\n%s", after)
	}
	// A link that stays inside the project is written through.
	if err := os.Remove(filepath.Join(e.work, ".mcphost.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(e.work, "conf"), 0o700); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(e.work, "conf", "mcphost.yaml")
	if err := os.WriteFile(inside, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inside, filepath.Join(e.work, ".mcphost.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := AddServer(e.opts(), ScopeProject, entry, false); err != nil {
		t.Fatalf("AddServer through an inside link: %v", err)
	}
	if b, _ := os.ReadFile(inside); !strings.Contains(string(b), "evil") {
		t.Fatalf("the linked file:\n%s", b)
	}
}
