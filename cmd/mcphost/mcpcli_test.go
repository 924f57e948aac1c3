package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// mcp add without --scope writes the local scope: private to the user and
// this directory, not the project, and trusted (it starts without
// "mcphost trust"). The command is given as Gemini CLI takes it.
func TestMCPAddLocalByDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ts := hosttest.BuildTestServer(t)
	local := e.localFile()
	r := e.must(exitOK, "mcp", "add", "mine", ts, "-e", "GREETING=hello")
	wantContains(t, "stdout", r.stdout, `added server "mine"`, local, "only you")
	wantNotContains(t, "stdout", r.stdout, "trust")
	if _, err := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); err == nil {
		t.Fatal("a local add wrote the project file")
	}
	s := e.getServer("mine")
	if s["source"] != local || s["scope"] != "local" || s["untrusted"] != false || s["command"] != ts {
		t.Errorf("mine = %v", s)
	}
	servers := decodeJSON[[]map[string]any](t, e.must(exitOK, "servers", "--json"))
	if st := stateOf(servers, "mine"); st != "ready" {
		t.Errorf("mine did not start: %v", servers)
	}
	r = e.must(exitOK, "call", "mine:env", "--args", `{"name":"GREETING"}`)
	wantContains(t, "call", r.stdout, "hello")

	// Another directory does not see it.
	other := &testEnv{t: t, global: e.global, state: e.state, cache: e.cache, work: t.TempDir(), environ: []string{}}
	if l := other.listServers(); len(l) != 0 {
		t.Errorf("another directory sees %v", l)
	}
}

// Claude Code's and Gemini CLI's habits: the URL as an argument, -H "K: V",
// -t, -s, -e, --include-tools / --exclude-tools.
func TestMCPAddLikeOtherCLIs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must(exitOK, "mcp", "add", "linear", "https://mcp.linear.app/mcp", "-H", "Authorization: Bearer ${TOKEN}", "-H", "X-Team=core",
		"--include-tools", "issue_*,search", "--exclude-tools", "issue_delete", "--exclude-tools", "admin_*")
	s := e.getServer("linear")
	if s["url"] != "https://mcp.linear.app/mcp" || s["transport"] != "http" ||
		!slices.Equal(strs(s["tools_allow"]), []string{"issue_*", "search"}) ||
		!slices.Equal(strs(s["tools_deny"]), []string{"issue_delete", "admin_*"}) {
		t.Errorf("linear = %v", s)
	}
	wantContains(t, "local file", readFile(t, e.localFile()), "Authorization: Bearer ${TOKEN}", "X-Team: core", "allow:", "deny:")

	e.must(exitOK, "mcp", "add", "events", "https://h.example/sse", "-t", "sse", "-s", "user")
	if s := e.getServer("events"); s["transport"] != "sse" || s["scope"] != "user" {
		t.Errorf("events = %v", s)
	}
	e.must(exitOK, "mcp", "add", "sock", "wss://h.example/mcp")
	if s := e.getServer("sock"); s["transport"] != "websocket" {
		t.Errorf("sock = %v", s)
	}
	e.must(exitOK, "mcp", "add", "mem", "npx", "@modelcontextprotocol/server-memory", "-s", "project")
	if s := e.getServer("mem"); s["command"] != "npx" || !slices.Equal(strs(s["args"]), []string{"@modelcontextprotocol/server-memory"}) || s["scope"] != "project" {
		t.Errorf("mem = %v", s)
	}
	// After --, flags belong to the server, -y included.
	e.must(exitOK, "mcp", "add", "fs", "-s", "local", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".")
	if s := e.getServer("fs"); !slices.Equal(strs(s["args"]), []string{"-y", "@modelcontextprotocol/server-filesystem", "."}) {
		t.Errorf("fs = %v", s)
	}
	r := e.must(exitOK, "mcp", "add", "--help")
	wantContains(t, "help", r.stdout, "-e, --env", "-H, --header", "-t, --transport", "-s, --scope", "--include-tools", "--exclude-tools", "--env-file", `(default "local")`)
	r = e.must(exitOK, "mcp", "--help")
	wantContains(t, "mcp help", r.stdout, "list", "remove")
}

// mcp get shows lists and maps as people write them, not as Go prints
// them; secrets stay masked.
func TestMCPGetReadable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const secret = "s3cr3t-token-value"
	e.must(exitOK, "mcp", "add", "cli", "--", "srv", "-y", "two words", "it's")
	e.must(exitOK, "mcp", "add", "cli2", "--command", "srv", "-e", "TOKEN="+secret, "-e", "MODE=debug", "--exclude-tools", "a*,b")
	e.must(exitOK, "mcp", "add", "web", "https://h.example/mcp", "-H", "Authorization: Bearer "+secret, "-H", "X-Key: "+secret)
	out := e.must(exitOK, "mcp", "get", "cli").stdout
	wantContains(t, "mcp get cli", out, "args:", `-y 'two words' 'it'\''s'`)
	out = e.must(exitOK, "mcp", "get", "cli2").stdout + e.must(exitOK, "mcp", "get", "web").stdout
	wantContains(t, "mcp get", out, "env:\n  MODE=****\n  TOKEN=****\n", "headers:\n  Authorization: Bearer ****\n  X-Key: ****\n", "tools_deny:", "a* b")
	wantNotContains(t, "mcp get", out, "map[", "[a*", secret)
	// The fields that say what the server is come first.
	lines := strings.Split(e.must(exitOK, "mcp", "get", "cli").stdout, "\n")
	if !strings.HasPrefix(lines[0], "id:") || !strings.HasPrefix(lines[1], "scope:") || !strings.HasPrefix(lines[2], "source:") {
		t.Errorf("mcp get order:\n%s", strings.Join(lines, "\n"))
	}
	if text := e.getText("cli2"); text["env"] != "MODE=****\nTOKEN=****" {
		t.Errorf("env = %q", text["env"])
	}
}

// mcp list keeps one line per server: the note is the first problem, cut,
// without the file and id the row shows; mcp get shows every problem.
func TestMCPListNoteOneLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{
		"broken": map[string]any{"url": "ftp://h/", "startup_timeout": "soon", "request_timeout": "later",
			"headers": map[string]any{"X-" + strings.Repeat("Long", 40): "${UNSET_VARIABLE_WITH_A_LONG_NAME}"}},
	})
	r := e.must(exitOK, "--config", cfg, "mcp", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("mcp list:\n%s", r.stdout)
	}
	wantContains(t, "row", lines[1], "4 errors: ", "…")
	wantNotContains(t, "row", lines[1], `config: `+cfg+`: server "broken"`)
	if n := len([]rune(lines[1][strings.Index(lines[1], "4 errors"):])); n > noteWidth {
		t.Errorf("note of %d runes:\n%s", n, lines[1])
	}
	get := e.must(exitOK, "--config", cfg, "mcp", "get", "broken").stdout
	wantContains(t, "mcp get", get, "error:\n  ", "startup_timeout", "request_timeout", "UNSET_VARIABLE_WITH_A_LONG_NAME")
}

// ${secret:NAME} in a header or env value comes from the OS keychain
// ("mcphost secret set"), never shows in output, and is refused in the
// project scope. Not parallel: the keychain is replaced by a mock for the
// whole process.
func TestMCPSecretReferences(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	const value = "keychain-token-0a1b2c3d"
	if err := authn.SetSecret("srv-token", value); err != nil {
		t.Fatal(err)
	}
	ts := hosttest.BuildTestServer(t)
	r := e.must(exitOK, "mcp", "add", "kc", "-e", "TOKEN=${secret:srv-token}", "--", ts)
	wantNotContains(t, "stdout", r.stdout, value)
	wantNotContains(t, "local file", readFile(t, e.localFile()), value)
	r = e.must(exitOK, "call", "kc:env", "--args", `{"name":"TOKEN"}`)
	wantContains(t, "call", r.stdout, "****")
	wantNotContains(t, "call", r.stdout+r.stderr, value)
	for _, args := range [][]string{{"mcp", "get", "kc"}, {"mcp", "get", "kc", "--json"}, {"mcp", "list", "--json"}, {"servers", "--json"}} {
		r := e.must(exitOK, args...)
		wantNotContains(t, strings.Join(args, " "), r.stdout+r.stderr, value)
	}

	e.must(exitOK, "mcp", "add", "missing", "-e", "TOKEN=${secret:absent}", "--", ts)
	r = e.must(exitOK, "mcp", "get", "missing")
	wantContains(t, "mcp get missing", r.stdout, "${secret:absent}", "mcphost secret set absent")

	r = e.must(exitUsage, "mcp", "add", "shared", "-s", "project", "-e", "TOKEN=${secret:srv-token}", "--", ts)
	wantContains(t, "stderr", r.stderr, "not allowed in a project file", "local or user scope", "not written")
	if _, err := os.Stat(filepath.Join(e.work, ".mcphost.yaml")); err == nil {
		t.Error("the refused entry was written")
	}
}

// --env-file: the server gets the file's variables; -e wins; the values
// are masked like env values.
func TestMCPAddEnvFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ts := hosttest.BuildTestServer(t)
	writeFile(t, filepath.Join(e.work, ".env"), "# for the server\nSHORT=Zq7\nexport LONG=\"env-file-secret-value\"\nMODE=file\n")
	e.must(exitOK, "mcp", "add", "ef", "--env-file", ".env", "-e", "MODE=flag", "--", ts)
	for name, want := range map[string]string{"SHORT": "Zq7", "MODE": "flag", "LONG": "****"} {
		r := e.must(exitOK, "call", "ef:env", "--args", `{"name":"`+name+`"}`)
		wantContains(t, "call env "+name, r.stdout, want)
		wantNotContains(t, "call env "+name, r.stdout, "env-file-secret-value")
	}
	s := e.getText("ef")
	if s["env_file"] != filepath.Join(e.work, ".env") || !strings.Contains(s["env"], "LONG=****") {
		t.Errorf("mcp get = %v", s)
	}
	r := e.must(exitUsage, "mcp", "add", "out", "-s", "project", "--env-file", "../elsewhere.env", "--", ts)
	wantContains(t, "stderr", r.stderr, "outside the project directory")
}
