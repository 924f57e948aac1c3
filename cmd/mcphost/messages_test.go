package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// Messages that point the right way: what failed, where, and what to do.

// npmScript writes a server command that fails as "npx -y" of a package the
// registry does not have does: the line that says why comes before npm's
// footer, which is the last line. One line holds an escape sequence, which
// every command must show escaped.
func npmScript(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the server is a shell script")
	}
	script := writeFile(t, filepath.Join(t.TempDir(), "npx-404.sh"), `#!/bin/sh
cat >&2 <<'EOF'
npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fdoes-not-exist-xyz
npm error 404
npm error 404  The requested resource '@modelcontextprotocol/does-not-exist-xyz@*' could not be found or you do not have permission to access it.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
EOF
printf 'npm error \033[31mred\n' >&2
echo 'npm error A complete log of this run can be found in: /home/u/.npm/_logs/x-debug-0.log' >&2
exit 1
`)
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	return script
}

// Every command that meets a failed server shows the same telling lines
// of its stderr (the 404), not npm's last line (where its log is).
func TestFailedServerStderrSaysWhyInEveryCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script := npmScript(t)
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  npm: {command: "+quoteYAML(script)+"}\n")
	runs := []result{
		e.must(exitFailure, "servers"),
		e.must(exitFailure, "tools"),
		e.must(exitFailure, "tools", "--server", "npm"),
		e.must(exitFailure, "call", "npm:x"),
		e.must(exitFailure, "doctor"),
		e.must(exitFailure, "mcp", "test", "npm"),
		e.must(exitFailure, "tools", "--", script),
	}
	for _, r := range runs {
		out := r.stdout + r.stderr
		wantContains(t, r.String(), out,
			`stderr: "npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fdoes-not-exist-xyz"`,
			"| npm error code E404",
			"| npm error 404  The requested resource '@modelcontextprotocol/does-not-exist-xyz@*' could not be found",
			`| npm error \x1b[31mred`)
		wantNotContains(t, r.String(), out, "A complete log of this run", "\x1b[31m", "tarball, folder")
	}
}

// An entry's several problems are lines of their own, not one line with
// a literal \n, in servers and in doctor.
func TestEntryProblemsAreLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file := writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  two: {command: \"\", startup_timeout: banana}\n")
	first := "config: " + file + `: server "two": startup_timeout: "banana" is not a duration (use e.g. "30s")`
	second := "config: " + file + `: server "two": command: is empty`
	r := e.must(exitFailure, "servers")
	wantContains(t, "servers", r.stdout, "\ntwo: "+first+"\n  "+second+"\n")
	r = e.must(exitFailure, "tools")
	wantContains(t, "tools", r.stderr, "warning: server two is not available (error): "+first+"\n  "+second+"\n")
	r = e.must(exitFailure, "doctor")
	wantContains(t, "doctor", r.stdout, "fail  server   two: invalid entry: 2 problems\n",
		"               | "+first+"\n", "               | "+second+"\n")
	for _, out := range []string{r.stdout, e.must(exitFailure, "servers").stdout} {
		wantNotContains(t, "output", out, `\n`)
	}
}

// doctor says to set a missing variable or secret, not to fix an entry
// that is right.
func TestDoctorMissingVariableSaysSetIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.environ = []string{"MCPHOST_SECRET_STORE=file"}
	file := writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  envy: {command: x, env: {A: "${MY_TOKEN}"}}
  secretive: {command: x, env: {B: "${secret:api-key}"}}
  both: {command: x, env: {A: "${MY_TOKEN}"}, startup_timeout: banana}
`)
	r := e.must(exitFailure, "doctor")
	wantContains(t, "doctor", r.stdout,
		`envy: invalid entry: `, `variable "MY_TOKEN" is not set`,
		"fix: set the variable MY_TOKEN in the environment mcphost runs in (export MY_TOKEN=...), or give it a default in the entry: ${MY_TOKEN:-default}\n",
		"fix: store the secret: mcphost secret set api-key (the value on stdin)\n",
		// A wrong entry besides the variable: both fixes.
		"or give it a default in the entry: ${MY_TOKEN:-default}; fix the entry in "+file+"; the other servers are not affected\n")
	if n := strings.Count(r.stdout, "fix: fix the entry"); n != 0 {
		t.Errorf("doctor tells to fix an entry that is right %d times:\n%s", n, r.stdout)
	}
}

// An ad-hoc server that answers 401 is given credentials with -H: "mcphost
// login" knows only configured servers, and would say there is no server
// "adhoc".
func TestAdhocUnauthorizedSaysHeader(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(ts.Close)
	r := e.must(exitFailure, "tools", "--url", ts.URL+"/mcp")
	wantContains(t, "tools", r.stderr, `server "adhoc" needs credentials: give it a token with -H 'Authorization: Bearer …'`,
		`"mcphost login" is for configured servers: add it with "mcphost mcp add NAME URL", then run "mcphost login NAME"`)
	wantNotContains(t, "tools", r.stderr, "mcphost login adhoc")
	r = e.must(exitFailure, "call", "--url", ts.URL+"/mcp", "-H", "Authorization: Bearer wrong-token-2", "whoami")
	wantContains(t, "call", r.stderr, "it refused the Authorization header given with -H: check the token")
	wantNotContains(t, "call", r.stderr, "mcphost login adhoc", "wrong-token-2")

	// A configured server is still told to log in.
	cfg := e.configFile(map[string]any{"remote": map[string]any{"url": ts.URL + "/mcp"}})
	r = e.must(exitFailure, "--config", cfg, "tools")
	wantContains(t, "configured", r.stderr, `run "mcphost login remote"`)
}

// An SSE server's url without -t sse fails with a bare 400 from the
// server: the error says it looks like SSE, and how to say so.
func TestSSEURLWithoutTransportSaysSSE(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, sse := headerServer(t)
	r := e.must(exitFailure, "tools", "--url", sse, "-H", "Authorization: Bearer tok-adhoc-7f3e")
	wantContains(t, "tools", r.stderr, "the url ends in /sse, as an SSE server's does: if it is one, add -t sse")
	e.must(exitOK, "tools", "--url", sse, "-t", "sse", "-H", "Authorization: Bearer tok-adhoc-7f3e")

	cfg := e.configFile(map[string]any{"events": map[string]any{"url": sse + "/", "headers": map[string]any{"Authorization": "Bearer tok-adhoc-7f3e"}}})
	r = e.must(exitFailure, "--config", cfg, "servers")
	wantContains(t, "servers", r.stdout, "the url ends in /sse, as an SSE server's does: if it is one, set transport: sse in its entry ("+cfg+")")
}

// A project trusted, then edited, says that its files changed since they
// were trusted (not "not trusted yet") and how to trust them again.
func TestTrustedProjectEditedSaysChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := filepath.Join(e.work, ".mcphost.yaml")
	writeFile(t, project, "servers:\n  p: {command: mcphost-test-no-such-command}\n")
	r := e.run("servers")
	wantContains(t, "servers before trust", r.stdout, "are not trusted yet")
	e.must(exitOK, "trust")
	writeFile(t, project, "servers:\n  p: {command: mcphost-test-no-such-command, args: [x]}\n")
	hint := "the project files in " + e.work + " changed since you trusted them, so their servers are not started: review the changes, then run \"mcphost trust " + e.work + "\" to trust them again"
	r = e.must(exitOK, "servers")
	wantContains(t, "servers", r.stdout, "p: "+hint)
	wantNotContains(t, "servers", r.stdout, "not trusted yet")
	r = e.must(exitOK, "mcp", "list")
	wantContains(t, "mcp list", r.stdout, "changed since trusted (mcphost trust)")
	r = e.must(exitOK, "doctor")
	wantContains(t, "doctor", r.stdout, ".mcphost.yaml: changed since you trusted them; not started until you trust them again: 1 server (p)",
		"fix: review the changes, then run: mcphost trust "+e.work)
	e.must(exitOK, "trust")
	r = e.run("servers")
	wantNotContains(t, "servers after trusting again", r.stdout, "changed since", "not trusted")
}

// mcp add of an id that another scope defines says which entry wins.
func TestMcpAddSaysWhichScopeWins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	user := filepath.Join(e.global, "config.yaml")
	r := e.must(exitOK, "mcp", "add", "dup", "--scope", "user", "--", "echo")
	wantNotContains(t, "first add", r.stdout, "also defined")
	r = e.must(exitOK, "mcp", "add", "dup", "--", "echo")
	wantContains(t, "local over user", r.stdout, `note: server "dup" is also defined in the user scope (`+user+`); this local entry shadows it: it wins`)
	r = e.must(exitOK, "mcp", "add", "dup", "--scope", "user", "--replace", "--", "echo")
	wantContains(t, "user under local", r.stdout, `note: server "dup" is also defined in the local scope (`, `), which shadows this user entry: it wins in this directory; remove it with "mcphost mcp remove dup -s local" for this one to apply`)
	r = e.must(exitOK, "mcp", "add", "dup", "--scope", "project", "--", "echo")
	wantContains(t, "project between", r.stdout,
		`note: server "dup" is also defined in the local scope (`, `which shadows this project entry`,
		`note: server "dup" is also defined in the user scope (`+user+`), which wins: this project entry may only switch it on or off`)
}

// mcp add of a command that is not installed warns (it may be later) and
// writes the entry.
func TestMcpAddWarnsMissingCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "mcp", "add", "later", "--", "mcphost-test-no-such-command", "--flag")
	wantContains(t, "mcp add", r.stdout, `added server "later"`)
	wantContains(t, "mcp add", r.stderr, "warning: mcphost-test-no-such-command: not found on PATH; server later will not start until it is there: install mcphost-test-no-such-command")
	r = e.must(exitOK, "mcp", "add", "here", "--", "go", "version")
	wantNotContains(t, "mcp add of an installed command", r.stderr, "warning")
	// A path names the file once.
	r = e.must(exitOK, "mcp", "add", "local", "--", "./no-such-server")
	wantContains(t, "mcp add of a missing file", r.stderr, "warning: ./no-such-server: no such file; server local will not start")
}

// A plugin that does not load is reported once at the default log level:
// one warning, then each call's own error, not a log line per load and
// per call besides.
func TestPluginLoadFailureSaidOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.wasm"), "not wasm")
	writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  ts: {command: `+quoteYAML(hosttest.BuildTestServer(t))+`}
plugins:
  - {name: broken, path: `+quoteYAML(bad)+`, hooks: [policy]}
`)
	const reason = "not a WebAssembly module"
	r := e.must(exitOK, "tools")
	if n := strings.Count(r.stderr, reason); n != 1 {
		t.Errorf("tools says the reason %d times; want once:\n%s", n, r)
	}
	wantContains(t, "tools", r.stderr, "warning: plugin broken did not load")
	r = e.run("call", "ts:echo", "text=x")
	if n := strings.Count(r.stderr, reason); r.code == exitOK || n != 2 {
		t.Errorf("call says the reason %d times; want the warning and the call's error:\n%s", n, r)
	}
}

// doctor counts a server's tools as "mcphost tools" lists them: the same
// client (a server may offer tools by the client's capabilities, as
// server-everything offers trigger-elicitation-request), all of them, and
// says how many the policy denies.
func TestDoctorCountsToolsAsToolsDoes(t *testing.T) {
	t.Parallel()
	npm := testenv.NPMBin(t)
	e := newEnv(t)
	e.environ = []string{"PATH=" + npm + string(os.PathListSeparator) + os.Getenv("PATH")}
	writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  ev: {command: `+quoteYAML(filepath.Join(npm, "mcp-server-everything"))+`, startup_timeout: 1h}
policy:
  deny: ["ev:echo"]
`)
	tools := decodeJSON[[]struct {
		Name   string `json:"name"`
		Denied string `json:"denied"`
	}](t, e.must(exitOK, "tools", "--json"))
	denied := 0
	for _, tool := range tools {
		if tool.Denied != "" {
			denied++
		}
	}
	if denied != 1 {
		t.Fatalf("tools --json: %d denied; want echo: %+v", denied, tools)
	}
	r := e.must(exitOK, "doctor")
	wantContains(t, "doctor", r.stdout, "ok    server   ev: connected in ", fmt.Sprintf(", %d tools (1 denied by the policy), ", len(tools)))
}

// mcp import --dry-run exits as the import would: 1 when a server could
// not be written (an id already configured, without --force), 0 with
// --force or when every one could.
func TestMCPImportDryRunExitStatus(t *testing.T) {
	keyring.MockInit()
	e := newEnv(t)
	home := e.withHome()
	copyClientFile(t, "windsurf/mcp_config.json", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"))
	e.must(exitOK, "mcp", "import", "--from", "windsurf", "--dry-run")
	e.must(exitOK, "mcp", "add", "git", "--url", "https://mine.example/mcp", "--scope", "user")
	r := e.must(exitFailure, "mcp", "import", "--from", "windsurf", "--dry-run")
	wantContains(t, "dry run", r.stdout, "conflict:", "dry run: nothing written")
	wantContains(t, "dry run", r.stderr, "mcphost: would not be imported, already configured: git (pass --force to replace them)")
	r = e.must(exitFailure, "mcp", "import", "--from", "windsurf", "--dry-run", "--json")
	if !json.Valid([]byte(r.stdout)) {
		t.Errorf("--json: stdout is not JSON:\n%s", r)
	}
	e.must(exitOK, "mcp", "import", "--from", "windsurf", "--dry-run", "--force")
	if got := e.getServer("git")["url"]; got != "https://mine.example/mcp" {
		t.Errorf("a dry run changed the entry: url %v", got)
	}
}
